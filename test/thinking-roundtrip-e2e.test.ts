// Thinking blocks through the binary and back: kept exactly as they came, in their place, in the conversation, the
// session file and through the context step, against a server that signs them and refuses any change
// (test/support/server-thinking.ts). A block that came without its signature is asked for again, never sent back.
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { answer, messageText, runAgent, toolResults } from './support/run-agent.js';
import { agentIn, newPlace, resultOf, useScratch } from './support/session-files.js';
import type { Block, RecordedRequest, Turn } from './support/server.js';
import { useServer } from './support/use-server.js';

const serve = useServer();
const scratch = useScratch();
type Json = Record<string, any>;

const think = (text: string): Block => ({ type: 'thinking', thinking: text });
const call = (command: string): Block => ({ type: 'tool_use', name: 'bash', input: { command } });
const turn = (...content: Block[]): Turn => ({ kind: 'message', content });
const isThinking = (block: Json) => block.type === 'thinking' || block.type === 'redacted_thinking';
const assistantTurns = (request: RecordedRequest): any[] =>
  (request.body.messages as Json[]).filter((message) => message.role === 'assistant');
const withoutCacheMarks = (blocks: Json[]) => blocks.map(({ cache_control: _mark, ...block }) => block);

/** Turn n of a long run: thinking (now and then redacted too), then parallel commands. */
function busyTurn(n: number): Turn {
  const redacted: Block[] = n % 5 === 0 ? [{ type: 'redacted_thinking' }] : [];
  const commands = Array.from({ length: 1 + (n % 3) }, (_, k) => call(`echo turn ${n} call ${k}`));
  return turn(think(`Turn ${n}: what to check next, and why.`), ...redacted, ...commands);
}

describe('thinking in the conversation', () => {
  it('goes back exactly as it came, in its place before the tool calls, redacted thinking too', async () => {
    const s = await serve([
      turn(think('List first.'), { type: 'text', text: 'Looking around.' }, call('ls')),
      turn({ type: 'redacted_thinking' }, think('Now both at once.'), call('pwd'), call('echo hi')),
      answer('done'),
    ]);
    const run = await runAgent(['--output-format', 'stream-json', 'go'], s.url);
    expect(run.code).toBe(0);
    expect(s.rejections()).toEqual([]);
    const replies = run.stdout
      .trim()
      .split('\n')
      .map((line) => JSON.parse(line))
      .filter((line) => line.type === 'assistant');
    const sent = assistantTurns(s.validRequests()[2]!);
    expect(withoutCacheMarks(sent[0].content)).toEqual(replies[0].message.content);
    expect(withoutCacheMarks(sent[1].content)).toEqual(replies[1].message.content);
    expect(sent[1].content.map((block: Json) => block.type)).toEqual([
      'redacted_thinking',
      'thinking',
      'tool_use',
      'tool_use',
    ]);
  });

  it('30 turns of thinking and parallel tool calls: every request accepted', async () => {
    const script = [...Array.from({ length: 29 }, (_, n) => busyTurn(n + 1)), answer('all checked')];
    const s = await serve(script);
    const run = await runAgent(['--output-format', 'json', 'check everything'], s.url, { timeoutMs: 90_000 });
    expect(s.rejections().map((request) => request.rejected)).toEqual([]);
    expect(run.code).toBe(0);
    expect(JSON.parse(run.stdout)).toMatchObject({ subtype: 'success', num_turns: 30, result: 'all checked' });
    const last = s.validRequests().at(-1)!;
    for (const message of assistantTurns(last)) expect(isThinking(message.content[0])).toBe(true);
    expect(last.body.thinking).toEqual({ type: 'adaptive' });
  }, 120_000);

  it('a thinking block that came without its signature is asked for again, and never sent back', async () => {
    const unsigned: Turn = {
      kind: 'message',
      content: [{ type: 'thinking', thinking: 'Half a thought', signature: null }, call('echo one')],
    };
    const cut: Turn = {
      kind: 'truncated',
      afterEvents: 4,
      content: [think('A thought cut off in the middle of its text'), call('echo two')],
    };
    const s = await serve([unsigned, cut, turn(think('Whole.'), call('echo three')), answer('done')]);
    const run = await runAgent(['go'], s.url);
    expect(run.code).toBe(0);
    expect(run.stderr).toContain('a thinking block came without its signature');
    expect(run.stderr.match(/retrying in/g)).toHaveLength(2);
    expect(s.rejections()).toEqual([]);
    expect(toolResults(s.validRequests().at(-1)!).map((result) => result.content)).toEqual(['three']);
    for (const request of s.validRequests()) expect(JSON.stringify(request.body)).not.toContain('Half a thought');
  });

  it('thinking cut off at the token limit before its signature is left out of the conversation, and the run goes on', async () => {
    const cut: Turn = {
      kind: 'message',
      content: [{ type: 'thinking', thinking: 'A long thought that ran out', signature: null }],
      stop_reason: 'max_tokens',
    };
    const s = await serve([cut, turn(think('Shorter.'), call('echo ok')), answer('done')]);
    const run = await runAgent(['go'], s.url);
    expect(run.code).toBe(0);
    expect(s.rejections()).toEqual([]);
    expect(run.stderr).not.toContain('retrying');
    for (const request of s.validRequests()) expect(JSON.stringify(request.body)).not.toContain('ran out');
  });
});

describe('thinking in sessions', () => {
  it('a session with thinking resumes with its thinking intact', async () => {
    const where = newPlace(scratch);
    const s = await serve([
      turn(think('Start here.'), call('echo a')),
      answer('first done'),
      turn(think('Again.'), call('echo b')),
      answer('second done'),
    ]);
    const first = await agentIn(s, where, ['first']);
    expect(first.code).toBe(0);
    const second = await agentIn(s, where, ['--resume', resultOf(first).session_id, 'again']);
    expect(second.code).toBe(0);
    expect(s.rejections()).toEqual([]);
    const history = assistantTurns(s.validRequests().at(-1)!);
    expect(history[0].content[0]).toMatchObject({ type: 'thinking', thinking: 'Start here.' });
  });

  it('a session whose earlier thinking showed a secret resumes: that thinking is left out of the file, never sent altered', async () => {
    const where = newPlace(scratch);
    const secret = 'ghp_resumeSecret1234567890abcdef';
    const s = await serve([
      turn(think(`I saw ${secret} in the log.`), call('echo a')),
      turn(think('Now the check.'), call('echo b')),
      answer('first done'),
      answer('second done'),
    ]);
    const env = { GITHUB_TOKEN: secret };
    const first = await agentIn(s, where, ['first'], { env });
    expect(first.code).toBe(0);
    const session = readFileSync(join(where.state, 'agent', 'sessions', `${resultOf(first).session_id}.jsonl`), 'utf8');
    expect(session).not.toContain(secret);
    const second = await agentIn(s, where, ['--resume', resultOf(first).session_id, 'again'], { env });
    expect(second.code, second.stderr).toBe(0);
    expect(s.rejections()).toEqual([]);
    const history = assistantTurns(s.validRequests().at(-1)!);
    expect(history[0].content.some(isThinking)).toBe(false);
    expect(history[0].content.some((block: Json) => block.type === 'tool_use')).toBe(true);
    expect(history[1].content[0]).toMatchObject({ type: 'thinking', thinking: 'Now the check.' });
  });

  it('a session made without thinking goes on with thinking on', async () => {
    const where = newPlace(scratch);
    const s = await serve([
      turn(call('echo a')),
      answer('first done'),
      turn(think('Now I think.'), call('echo b')),
      answer('second done'),
    ]);
    const first = await agentIn(s, where, ['--no-thinking', 'first']);
    expect(s.validRequests()[0]!.body.thinking).toBeUndefined();
    const second = await agentIn(s, where, ['--resume', resultOf(first).session_id, 'again']);
    expect(second.code).toBe(0);
    expect(resultOf(second).result).toBe('second done');
    expect(s.rejections()).toEqual([]);
    expect(s.validRequests().at(-1)!.body.thinking).toEqual({ type: 'adaptive' });
  });
});

describe('thinking through the context step', () => {
  it('a long conversation with thinking: old results elided, the turn in progress and every thinking block kept', async () => {
    const lines = (n: number, k: number) => `seq 1 600 | sed 's/^/turn ${n} call ${k} line /'`;
    const script = Array.from({ length: 20 }, (_, n) =>
      turn(think(`Turn ${n}. ${'Weighing the output so far. '.repeat(40)}`), call(lines(n, 0)), call(lines(n, 1))),
    );
    const s = await serve([...script, answer('read it all')], { contextWindow: 40_000 });
    const run = await runAgent(['--output-format', 'json', '--context-window', '40000', 'read'], s.url, {
      timeoutMs: 90_000,
    });
    expect(s.rejections().map((request) => request.rejected)).toEqual([]);
    expect(run.code).toBe(0);
    for (const [index, request] of s.validRequests().slice(1).entries()) {
      const latest = toolResults(request);
      expect(
        latest.map((result) => result.content.split('\n').length),
        `request ${index + 1}`,
      ).toEqual([600, 600]);
      const messages = assistantTurns(request);
      expect(messages.every((message) => message.content[0].type === 'thinking')).toBe(true);
    }
    const all = (s.validRequests().at(-1)!.body.messages as Json[]).flatMap((message) =>
      Array.isArray(message.content) ? message.content : [],
    );
    const results = all.filter((block) => block.type === 'tool_result').map((block) => messageText(block.content));
    expect(results.filter((text) => text.startsWith('[output elided')).length).toBeGreaterThan(10);
  }, 120_000);
});
