// Continuing a session through the real binary, after every kind of ending: --resume and --continue.
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { numberedLinesCommand } from './support/bench-workloads.js';
import { isRunning, pidIn, waitUntil } from './support/processes.js';
import { answer, bash, readRecords } from './support/run-agent.js';
import {
  agentIn,
  killWhen,
  mergedMessages,
  newPlace,
  onlySessionId,
  resultOf,
  sessionDirEntries,
  sessionPathOf,
  sessionsDirOf,
  shapeOf,
  textOf,
  useScratch,
} from './support/session-files.js';
import type { TestServer, Turn } from './support/server.js';
import { useServer } from './support/use-server.js';

const serve = useServer();
const scratch = useScratch();
const place = () => newPlace(scratch);
const agent = agentIn;
const lastRequest = (s: TestServer) => s.validRequests().at(-1)!;

describe('--resume and --continue', () => {
  it('after a normal end: the conversation goes on under the same id, and usage, cost and num_turns count this run only', async () => {
    const where = place();
    const s = await serve([bash('echo first > notes; cat notes'), answer('wrote notes'), answer('read them again')]);
    const first = await agent(s, where, ['write notes']);
    const id = resultOf(first).session_id;
    const before = s.totals();
    const second = await agent(s, where, ['--resume', id, 'now read them']);
    expect(second.code).toBe(0);
    const result = resultOf(second);
    expect(result).toMatchObject({ session_id: id, num_turns: 1, result: 'read them again', commands: 0 });
    const after = s.totals();
    expect(result.usage).toEqual({
      input_tokens: after.input_tokens - before.input_tokens,
      output_tokens: after.output_tokens - before.output_tokens,
      cache_creation_input_tokens: after.cache_creation_input_tokens - before.cache_creation_input_tokens,
      cache_read_input_tokens: after.cache_read_input_tokens - before.cache_read_input_tokens,
    });
    expect(result.total_cost_usd).toBeLessThan(resultOf(first).total_cost_usd + result.total_cost_usd);
    expect(shapeOf(lastRequest(s))).toEqual([
      'user: text',
      'assistant: tool_use',
      'user: tool_result',
      'assistant: text',
      'user: text',
    ]);
    expect(textOf(mergedMessages(lastRequest(s)).at(-1)!.blocks)).toBe('now read them');
    expect(s.rejections()).toEqual([]);
    const types = readRecords(sessionPathOf(where.state, id)).map((record) => record.type);
    expect(types.filter((type) => type === 'session')).toHaveLength(1);
    expect(types.filter((type) => type === 'resume')).toHaveLength(1);
    expect(types.filter((type) => type === 'result')).toHaveLength(2);
  });

  it('--continue takes the most recent session of this working directory', async () => {
    const here = place();
    const elsewhere = { cwd: scratch('agent-work-'), state: here.state };
    const s = await serve([answer('one'), answer('two'), answer('other'), answer('continued')]);
    await agent(s, here, ['first task']);
    const second = resultOf(await agent(s, here, ['second task'])).session_id;
    await agent(s, elsewhere, ['task elsewhere']);
    const run = await agent(s, here, ['--continue', 'go on']);
    expect(run.code).toBe(0);
    expect(resultOf(run).session_id).toBe(second);
    expect(textOf(mergedMessages(lastRequest(s))[0]!.blocks)).toBe('second task');
  });

  it('after --max-turns: the unanswered tool call is answered as never run, and the API accepts the conversation', async () => {
    const where = place();
    const s = await serve([bash('touch made-it'), answer('finished'), answer('again')]);
    const first = await agent(s, where, ['--max-turns', '1', 'make it']);
    expect(first.code).toBe(1);
    expect(resultOf(first).subtype).toBe('error_max_turns');
    const id = resultOf(first).session_id;
    const second = await agent(s, where, ['-r', id, 'go on']);
    expect(second.code).toBe(0);
    expect(second.stderr).toMatch(
      /ended \(error_max_turns\) before running 1 command the model asked for; the model is told it was not run/,
    );
    expect(existsSync(join(where.cwd, 'made-it'))).toBe(false);
    expect(shapeOf(lastRequest(s))).toEqual(['user: text', 'assistant: tool_use', 'user: tool_result text']);
    const resumed = mergedMessages(lastRequest(s)).at(-1)!.blocks;
    expect(resumed[0]).toMatchObject({
      type: 'tool_result',
      is_error: true,
      content: 'Not run: the previous run ended (error_max_turns) before this command started.',
    });
    expect(s.rejections()).toEqual([]);
    // The results the model was given are in the session file, so the next load needs no repair.
    const third = await agent(s, where, ['-r', id, 'and again']);
    expect(third.code).toBe(0);
    expect(third.stderr).not.toMatch(/interrupted|not run/);
  });

  it("after SIGINT mid-command: the killed command's partial output is in the session, and the run goes on from it", async () => {
    const where = place();
    const s = await serve([bash('echo partial; sleep 100 & echo $! > sleep.pid; wait'), answer('resumed')]);
    const first = await agent(s, where, ['start it'], {
      onSpawn: killWhen(() => pidIn(join(where.cwd, 'sleep.pid')) > 0, 'SIGINT'),
    });
    expect(first.code).toBe(130);
    const id = resultOf(first).session_id;
    expect(await waitUntil(() => !isRunning(pidIn(join(where.cwd, 'sleep.pid'))), 2000)).toBe(true);
    const second = await agent(s, where, ['--resume', id, 'go on']);
    expect(second.code).toBe(0);
    expect(second.stderr).not.toMatch(/warning/);
    const resumed = mergedMessages(lastRequest(s)).at(-1)!.blocks;
    expect(resumed[0]).toMatchObject({
      type: 'tool_result',
      is_error: true,
      content: expect.stringMatching(/partial[\s\S]*aborted/),
    });
    expect(textOf(resumed)).toBe('go on');
    expect(s.rejections()).toEqual([]);
  });

  it('after SIGKILL mid-stream: the reply that was cut off is not in the session, its dead writer does not hold it, and the API accepts the rest', async () => {
    const where = place();
    const slow: Turn = {
      kind: 'message',
      content: [{ type: 'text', text: 'a long reply that never finishes streaming' }],
      chunkDelayMs: 400,
    };
    const s = await serve([slow, answer('done')]);
    const first = await agent(s, where, ['first prompt'], {
      onSpawn: killWhen(() => s.requests.length === 1, 'SIGKILL'),
    });
    expect(first.signal).toBe('SIGKILL');
    const id = onlySessionId(where.state);
    // The killed run named itself as the session's writer, and never wrote its result.
    const header = readRecords(sessionPathOf(where.state, id))[0];
    expect(header.pid).toBe(first.pid);
    const second = await agent(s, where, ['-r', id, 'second prompt']);
    expect(second.code).toBe(0);
    expect(resultOf(second)).toMatchObject({ session_id: id, result: 'done' });
    expect(shapeOf(lastRequest(s))).toEqual(['user: text text']);
    expect(textOf(mergedMessages(lastRequest(s))[0]!.blocks)).toBe('first prompt|second prompt');
    expect(s.rejections()).toEqual([]);
  });

  it('after SIGKILL while the next request is out: the command, its result and the request are in the session already', async () => {
    const where = place();
    const slow: Turn = {
      kind: 'message',
      content: [{ type: 'text', text: 'a reply that never finishes streaming' }],
      chunkDelayMs: 400,
    };
    const s = await serve([bash('echo ran-before-the-kill'), slow, answer('done')]);
    const first = await agent(s, where, ['first prompt'], {
      onSpawn: killWhen(() => s.requests.length === 2, 'SIGKILL'),
    });
    expect(first.signal).toBe('SIGKILL');
    const id = onlySessionId(where.state);
    const records = readRecords(sessionPathOf(where.state, id));
    expect(records.map((record) => record.type)).toEqual([
      'session',
      'message',
      'request',
      'response',
      'message',
      'command',
      'message',
      'request',
    ]);
    expect(records[5]).toMatchObject({ type: 'command', result: 'ran-before-the-kill', exit_code: 0 });
    const second = await agent(s, where, ['-r', id, 'second prompt']);
    expect(second.code).toBe(0);
    expect(second.stderr).not.toMatch(/cut off/);
    const results = mergedMessages(lastRequest(s))
      .flatMap((message) => message.blocks)
      .filter((block) => block.type === 'tool_result');
    expect(results).toEqual([expect.objectContaining({ content: 'ran-before-the-kill' })]);
    expect(s.rejections()).toEqual([]);
  });

  it('after SIGKILL mid-command of a continued run: its lock is taken over, and the command is answered as interrupted', async () => {
    const where = place();
    const s = await serve([answer('ready'), bash('echo $$ > shell.pid; sleep 30'), answer('done')]);
    const shellPid = () => pidIn(join(where.cwd, 'shell.pid'));
    const id = resultOf(await agent(s, where, ['get ready'])).session_id;
    const killed = await agent(s, where, ['-r', id, 'start'], { onSpawn: killWhen(() => shellPid() > 0, 'SIGKILL') });
    // A killed agent cannot clean up: its command's group is ours to end.
    process.kill(-shellPid(), 'SIGKILL');
    expect(killed.signal).toBe('SIGKILL');
    expect(readFileSync(join(sessionsDirOf(where.state), `${id}.lock`), 'utf8')).toBe(`${killed.pid}\n`);
    const third = await agent(s, where, ['--resume', id, 'what happened?']);
    expect(third.code).toBe(0);
    expect(third.stderr).toMatch(/cut off during 1 command/);
    const resumed = mergedMessages(lastRequest(s)).at(-1)!.blocks;
    expect(resumed[0]).toMatchObject({
      type: 'tool_result',
      is_error: true,
      content: expect.stringMatching(/^Interrupted/),
    });
    expect(s.rejections()).toEqual([]);
    expect(sessionDirEntries(where.state)).not.toContain(`${id}.lock`);
  });

  it('fits the context window: old outputs of a resumed conversation are elided to fit a smaller window', async () => {
    const where = place();
    const big = [0, 1, 2, 3, 4, 5].map((turn) => bash(numberedLinesCommand(turn)));
    const roomy = await serve([...big, answer('read')]);
    const first = await agent(roomy, where, ['read the outputs']);
    expect(first.code).toBe(0);
    const id = resultOf(first).session_id;
    const small = await serve([answer('fits')], { contextWindow: 40_000 });
    const second = await agent(small, where, ['--context-window', '40000', '-r', id, 'summarise']);
    expect(second.code).toBe(0);
    expect(resultOf(second)).toMatchObject({ num_turns: 1, result: 'fits' });
    expect(small.rejections()).toEqual([]);
    const results = mergedMessages(lastRequest(small))
      .flatMap((message) => message.blocks)
      .filter((block) => block.type === 'tool_result');
    expect(results).toHaveLength(6);
    expect(
      results.filter((block) => String(block.content).startsWith('[output elided to save context')).length,
    ).toBeGreaterThanOrEqual(3);
    // The session keeps the outputs whole: eliding is for the request, not the record.
    expect(readFileSync(sessionPathOf(where.state, id), 'utf8')).not.toContain('output elided');
  });
});
