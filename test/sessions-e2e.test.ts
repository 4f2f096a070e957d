// Sessions through the real binary: saved as the run goes, pruned, forked, and never shared between runs.
import type { ChildProcess } from 'node:child_process';
import { existsSync, mkdirSync, readFileSync, statSync, utimesSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { pidIn, waitUntil } from './support/processes.js';
import { answer, bash, readRecords, runAgent, toolResults } from './support/run-agent.js';
import {
  agentIn,
  mergedMessages,
  newPlace,
  onlySessionId,
  resultOf,
  sessionDirEntries,
  sessionPathOf,
  sessionsDirOf,
  textOf,
  useScratch,
  UUID,
} from './support/session-files.js';
import type { TestServer, Turn } from './support/server.js';
import { useServer } from './support/use-server.js';

const serve = useServer();
const scratch = useScratch();
const place = () => newPlace(scratch);
const agent = agentIn;
const lastRequest = (s: TestServer) => s.validRequests().at(-1)!;

describe('a session is saved as the run goes', () => {
  it('has a UUID in the result and the init line, and a 0600 file in a 0700 directory: header, timestamps, commands with exit code and duration', async () => {
    const where = place();
    const s = await serve([bash('sleep 0.2; echo slow; exit 3'), answer('done')]);
    const run = await runAgent(['--output-format', 'stream-json', 'go'], s.url, {
      cwd: where.cwd,
      env: { XDG_STATE_HOME: where.state },
    });
    expect(run.code).toBe(0);
    const lines = run.stdout
      .trim()
      .split('\n')
      .map((line) => JSON.parse(line));
    const id = lines.at(-1).session_id;
    expect(id).toMatch(UUID);
    expect(lines[0]).toMatchObject({ type: 'system', subtype: 'init', session_id: id });

    const path = sessionPathOf(where.state, id);
    expect(statSync(path).mode & 0o777).toBe(0o600);
    expect(statSync(sessionsDirOf(where.state)).mode & 0o777).toBe(0o700);
    const records = readRecords(path);
    expect(records[0]).toMatchObject({
      type: 'session',
      format: 'agent-session',
      version: 1,
      session_id: id,
      model: 'claude-sonnet-5-5',
      cwd: where.cwd,
    });
    expect(records[0].system_prompt).toContain(`Working directory: ${where.cwd}`);
    expect(records[0].tools.map((tool: { name: string }) => tool.name)).toEqual(['bash']);
    for (const record of records) expect(Number.isNaN(Date.parse(record.ts))).toBe(false);
    const command = records.find((record) => record.type === 'command');
    expect(command).toMatchObject({ exit_code: 3, is_error: false, result: expect.stringContaining('slow') });
    expect(command.duration_ms).toBeGreaterThanOrEqual(150);
    expect(records.at(-1)).toMatchObject({ type: 'result', session_id: id, subtype: 'success' });
    expect(sessionDirEntries(where.state).filter((name) => name.endsWith('.lock'))).toEqual([]);
  });

  it('saves nothing with --no-session-persistence, and still has a session id', async () => {
    const where = place();
    const s = await serve([answer('done')]);
    const run = await agent(s, where, ['--no-session-persistence', 'go']);
    expect(run.code).toBe(0);
    expect(resultOf(run).session_id).toMatch(UUID);
    expect(sessionDirEntries(where.state)).toEqual([]);
  });

  it('runs side by side in one directory, each in a session and a file of its own', async () => {
    const where = place();
    // One server for all four: each request gets a command first, then the answer once its result is in.
    const reply: Turn = (request) => (toolResults(request).length > 0 ? answer('done') : bash('sleep 0.3; echo hi'));
    const s = await serve([], { onExhausted: reply });
    const runs = await Promise.all([1, 2, 3, 4].map((n) => agent(s, where, [`task ${n}`])));
    const ids = runs.map((run) => resultOf(run).session_id);
    expect(new Set(ids).size).toBe(4);
    for (const [index, id] of ids.entries()) {
      const messages = readRecords(sessionPathOf(where.state, id)).filter((record) => record.type === 'message');
      expect(messages[0].message.content).toBe(`task ${index + 1}`);
      expect(messages.map((record) => record.message.role)).toEqual(['user', 'assistant', 'user', 'assistant']);
    }
  });
});

describe('pruning', () => {
  it('removes sessions not written to for 30 days at start-up, and keeps younger ones, even when the run ends first', async () => {
    const where = place();
    const dir = sessionsDirOf(where.state);
    mkdirSync(dir, { recursive: true, mode: 0o700 });
    const aged = (name: string, days: number) => {
      const path = join(dir, name);
      writeFileSync(path, '{"type":"session"}\n');
      const when = new Date(Date.now() - days * 24 * 60 * 60 * 1000);
      utimesSync(path, when, when);
      return name;
    };
    // Enough aged sessions that the prune outlasts a run answered at once: the run must still finish it.
    const old = Array.from({ length: 500 }, (_, n) => `0b5d7c1e-8a43-4f7e-9d1c-${String(n).padStart(12, '0')}`).flatMap(
      (id) => [aged(`${id}.jsonl`, 31), aged(`${id}.lock`, 31)],
    );
    const young = aged('0b5d7c1e-8a43-4f7e-9d1c-100000000029.jsonl', 29);
    const s = await serve([answer('done')]);
    const run = await agent(s, where, ['go']);
    expect(run.code).toBe(0);
    const entries = sessionDirEntries(where.state);
    expect(entries.filter((name) => old.includes(name))).toEqual([]);
    expect(entries).toContain(young);
    expect(entries).toContain(`${resultOf(run).session_id}.jsonl`);
  });

  it('a run that stops at a usage error leaves the prune, whole, to the next run', async () => {
    const where = place();
    const dir = sessionsDirOf(where.state);
    mkdirSync(dir, { recursive: true, mode: 0o700 });
    const old = join(dir, '0b5d7c1e-8a43-4f7e-9d1c-000000000031.jsonl');
    writeFileSync(old, '{"type":"session"}\n');
    const when = new Date(Date.now() - 31 * 24 * 60 * 60 * 1000);
    utimesSync(old, when, when);
    const s = await serve([answer('done')]);
    const refused = await agent(s, where, ['-r', '0b5d7c1e-8a43-4f7e-9d1c-999999999999', 'go']);
    expect(refused.code).toBe(2);
    expect(sessionDirEntries(where.state)).not.toContain('.last-prune');
    expect(existsSync(old)).toBe(true);
    expect((await agent(s, where, ['go'])).code).toBe(0);
    expect(existsSync(old)).toBe(false);
  });
});

describe('--fork-session', () => {
  it('continues under a new id in a new file, and leaves the original as it was', async () => {
    const where = place();
    const s = await serve([answer('original'), answer('forked'), answer('original again')]);
    const id = resultOf(await agent(s, where, ['start'])).session_id;
    const originalPath = sessionPathOf(where.state, id);
    const originalBytes = readFileSync(originalPath);
    const fork = await agent(s, where, ['-r', id, '--fork-session', 'branch off']);
    expect(fork.code).toBe(0);
    const forkId = resultOf(fork).session_id;
    expect(forkId).toMatch(UUID);
    expect(forkId).not.toBe(id);
    expect(readFileSync(originalPath).equals(originalBytes)).toBe(true);
    const forked = readRecords(sessionPathOf(where.state, forkId));
    expect(forked[0]).toMatchObject({ type: 'session', session_id: forkId, forked_from: id });
    expect(forked.filter((record) => record.type === 'message').map((record) => record.message.content)).toEqual([
      'start',
      [{ type: 'text', text: 'original' }],
      'branch off',
      [{ type: 'text', text: 'forked' }],
    ]);
    await agent(s, where, ['-r', id, 'back to the original']);
    expect(mergedMessages(lastRequest(s)).map((message) => textOf(message.blocks))).toEqual([
      'start',
      'original',
      'back to the original',
    ]);
  });

  it('refuses to resume a session that a running agent is writing, and may branch off it', async () => {
    const where = place();
    const s = await serve([bash('sleep 100 & echo $! > sleep.pid; wait'), answer('branched')]);
    let live: ChildProcess | undefined;
    const running = agent(s, where, ['long job'], { onSpawn: (child) => (live = child) });
    expect(await waitUntil(() => pidIn(join(where.cwd, 'sleep.pid')) > 0, 10_000)).toBe(true);
    const id = onlySessionId(where.state);
    const refused = await agent(s, where, ['-r', id, 'me too']);
    const fork = await agent(s, where, ['-r', id, '--fork-session', 'branch']);
    live!.kill('SIGINT');
    expect((await running).code).toBe(130);

    expect(refused.code).toBe(2);
    expect(refused.stderr).toContain(`Session ${id} is in use by a running agent (pid ${live!.pid}).`);
    expect(fork.code).toBe(0);
    expect(resultOf(fork).session_id).not.toBe(id);
    // The refused run wrote nothing into the live session: one header, no resume record.
    const types = readRecords(sessionPathOf(where.state, id)).map((record) => record.type);
    expect(types.filter((type) => type === 'resume' || type === 'session')).toEqual(['session']);
    expect(s.rejections()).toEqual([]);
  });

  it('refuses a second continuation while the first one lives, even before it has written anything', async () => {
    const where = place();
    const s = await serve([answer('first'), answer('second')]);
    const id = resultOf(await agent(s, where, ['start'])).session_id;
    let live: ChildProcess | undefined;
    // The first continuation reads its prompt from a stdin that stays open: it holds the session, writing nothing yet.
    const waiting = agent(s, where, ['-r', id], { stdin: 'open', onSpawn: (child) => (live = child) });
    const lock = join(sessionsDirOf(where.state), `${id}.lock`);
    expect(await waitUntil(() => existsSync(lock), 10_000)).toBe(true);
    const refused = await agent(s, where, ['-r', id, 'me too']);
    live!.kill('SIGTERM');
    expect((await waiting).code).toBe(143);
    expect(refused.code).toBe(2);
    expect(refused.stderr).toContain(`Session ${id} is in use by a running agent (pid ${live!.pid}).`);
    expect(existsSync(lock)).toBe(false);
    const after = await agent(s, where, ['-r', id, 'now me']);
    expect(after.code).toBe(0);
  });
});
