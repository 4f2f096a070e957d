// The session module on its own: the writer, loading, repair, the lock and pruning, on real files in temp directories.
import {
  existsSync,
  mkdtempSync,
  readFileSync,
  realpathSync,
  rmSync,
  statSync,
  utimesSync,
  writeFileSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type Anthropic from '@anthropic-ai/sdk';
import { testSessionLog } from './support/session-log.js';
import { afterEach, describe, expect, it } from 'vitest';
import { loadSession, SessionFileError } from '../src/session/load.js';
import { acquireLock, lockFile, lockHolder } from '../src/session/lock.js';
import { INTERRUPTED_RESULT, repairConversation } from '../src/session/repair.js';
import { newSessionId } from '../src/session/session-id.js';
import { latestSessionIn, pruneSessions, sessionFile, sessionsDir } from '../src/session/store.js';
import type { SessionFileSpec } from '../src/session/writer.js';
import type { ResultObject } from '../src/result.js';

const dirs: string[] = [];
function scratch(): string {
  const dir = realpathSync(mkdtempSync(join(tmpdir(), 'agent-session-unit-')));
  dirs.push(dir);
  return dir;
}
afterEach(() => {
  for (const dir of dirs.splice(0)) rmSync(dir, { recursive: true, force: true });
});

const DAY_MS = 24 * 60 * 60 * 1000;
const user = (content: Anthropic.MessageParam['content']): Anthropic.MessageParam => ({ role: 'user', content });
const toolCall = (...ids: string[]): Anthropic.MessageParam => ({
  role: 'assistant',
  content: ids.map((id) => ({ type: 'tool_use' as const, id, name: 'bash', input: { command: `echo ${id}` } })),
});
const result = (id: string, content: string): Anthropic.ToolResultBlockParam => ({
  type: 'tool_result',
  tool_use_id: id,
  content,
});

function logInto(path: string, conversation: Anthropic.MessageParam[], file: Partial<SessionFileSpec> = {}) {
  return testSessionLog(path, conversation, { file });
}

const fakeResult = { type: 'result', subtype: 'success', session_id: 'x' } as unknown as ResultObject;

describe('the writer and the loader', () => {
  it('writes each message as it joins the conversation, and a file cut off at any byte still loads', () => {
    const dir = scratch();
    const path = join(dir, 's.jsonl');
    const conversation: Anthropic.MessageParam[] = [user('first')];
    const log = logInto(path, conversation);
    log.onEvent({ type: 'request_start', turn: 1 });
    conversation.push(toolCall('toolu_1'));
    log.onEvent({ type: 'tool_start', id: 'toolu_1', command: 'echo toolu_1' });
    log.onEvent({
      type: 'tool_end',
      id: 'toolu_1',
      command: 'echo toolu_1',
      content: 'toolu_1',
      isError: false,
      blocked: false,
      exitCode: 0,
      durationMs: 5,
    });
    conversation.push(user([result('toolu_1', 'toolu_1')]));
    log.onEvent({ type: 'tool_results', message: conversation.at(-1)! });
    log.finish(fakeResult);

    const text = readFileSync(path, 'utf8');
    expect(loadSession(path).messages).toEqual(conversation);
    expect(statSync(path).mode & 0o777).toBe(0o600);
    const headerEnd = text.indexOf('\n') + 1;
    for (let cut = headerEnd; cut < text.length; cut++) {
      const kept = text.slice(0, cut);
      writeFileSync(path, kept);
      const loaded = loadSession(path);
      // A line cut just before its newline is still a whole record.
      const tail = kept.slice(kept.lastIndexOf('\n') + 1);
      expect(loaded.truncatedTail).toBe(tail !== '' && !text.startsWith(`${tail}\n`, cut - tail.length));
      // Whole messages only, always a prefix of the conversation.
      expect(conversation.slice(0, loaded.messages.length)).toEqual(loaded.messages);
    }
  });

  it('does not create the state directory file until the conversation has grown', () => {
    const dir = scratch();
    const path = join(dir, 's.jsonl');
    const log = logInto(path, []);
    log.onEvent({ type: 'warning', message: 'early' });
    log.finish(fakeResult);
    expect(existsSync(path)).toBe(false);
  });

  it('refuses files that are not sessions, corrupt ones and newer formats, naming the file', () => {
    const dir = scratch();
    const cases: Array<[string, RegExp]> = [
      ['hello world\n', /not a session file/],
      ['{"type":"request"}\n', /not a session file/],
      ['', /not a session file/],
      [
        '{"type":"session","session_id":"a","cwd":"/","version":1}\nnot json\n{"type":"message"}\n',
        /line 2 is not a JSON record/,
      ],
      [
        '{"type":"session","session_id":"a","cwd":"/","version":1}\n{"type":"message","message":{"role":"system","content":"x"}}\n',
        /line 2: a message record without a valid message/,
      ],
      ['{"type":"session","session_id":"a","cwd":"/","version":9}\n', /format version 9/],
    ];
    for (const [text, message] of cases) {
      const path = join(dir, 'bad.jsonl');
      writeFileSync(path, text);
      expect(() => loadSession(path)).toThrow(SessionFileError);
      expect(() => loadSession(path)).toThrow(message);
      expect(() => loadSession(path)).toThrow(path);
    }
  });
});

describe('repair of a conversation that was cut off', () => {
  it('answers the tool calls it ends with: recorded results first, the rest as interrupted', () => {
    const saved = [user('go'), toolCall('toolu_a', 'toolu_b')];
    const repaired = repairConversation(saved, new Map([['toolu_a', { content: 'done a', isError: false }]]));
    expect(repaired.history).toEqual(saved);
    expect(repaired.interrupted).toBe(1);
    expect(repaired.pendingResults).toEqual(
      user([
        result('toolu_a', 'done a'),
        { type: 'tool_result', tool_use_id: 'toolu_b', content: INTERRUPTED_RESULT, is_error: true },
      ]),
    );
  });

  it('drops an assistant message with no content, and answers calls left open in the middle in front of the next message', () => {
    const saved = [
      user('go'),
      toolCall('toolu_a'),
      user('more'),
      { role: 'assistant', content: [] } as Anthropic.MessageParam,
    ];
    const repaired = repairConversation(saved, new Map());
    expect(repaired.dropped).toBe(1);
    expect(repaired.pendingResults).toBeUndefined();
    expect(repaired.history).toEqual([
      user('go'),
      toolCall('toolu_a'),
      user([{ type: 'tool_result', tool_use_id: 'toolu_a', content: INTERRUPTED_RESULT, is_error: true }]),
      user('more'),
    ]);
  });

  it('leaves a whole conversation as it is', () => {
    const saved = [
      user('go'),
      toolCall('toolu_a'),
      user([result('toolu_a', 'x')]),
      { role: 'assistant', content: 'done' } as Anthropic.MessageParam,
    ];
    expect(repairConversation(saved, new Map())).toEqual({
      history: saved,
      pendingResults: undefined,
      dropped: 0,
      interrupted: 0,
    });
  });
});

describe('the lock', () => {
  it('has one holder; a lock whose process is gone is taken over', () => {
    const dir = scratch();
    const id = 'aaaaaaaa-bbbb-4ccc-8ddd-eeeeeeeeeeee';
    const first = acquireLock(dir, id);
    expect(first.ok).toBe(true);
    // Another live process holds it: the test runner's parent stands in for one.
    writeFileSync(lockFile(dir, id), `${process.ppid}\n`);
    expect(acquireLock(dir, id)).toEqual({ ok: false, pid: process.ppid });
    expect(lockHolder(dir, id)).toBe(process.ppid);
    // A pid that no process has.
    writeFileSync(lockFile(dir, id), '2147483646\n');
    expect(lockHolder(dir, id)).toBeUndefined();
    const taken = acquireLock(dir, id);
    expect(taken.ok).toBe(true);
    expect(readFileSync(lockFile(dir, id), 'utf8')).toBe(`${process.pid}\n`);
    if (taken.ok) taken.release();
    expect(existsSync(lockFile(dir, id))).toBe(false);
  });
});

describe('session ids', () => {
  it('are random version 4 UUIDs', () => {
    const ids = Array.from({ length: 1000 }, () => newSessionId());
    for (const id of ids) expect(id).toMatch(/^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/);
    expect(new Set(ids).size).toBe(1000);
  });
});

describe('the store', () => {
  it('lives under XDG_STATE_HOME when it is absolute, else ~/.local/state', () => {
    expect(sessionsDir({ XDG_STATE_HOME: '/s' })).toBe('/s/agent/sessions');
    expect(sessionsDir({ XDG_STATE_HOME: 'relative', HOME: '/home/u' })).toMatch(/\/\.local\/state\/agent\/sessions$/);
  });

  it('prunes sessions last written over 30 days ago, at most once a day, and spares live ones', async () => {
    const dir = scratch();
    const now = Date.now();
    const make = (id: string, ageDays: number) => {
      const path = sessionFile(dir, id);
      writeFileSync(path, `{"type":"session","session_id":"${id}","cwd":"/"}\n`);
      const when = new Date(now - ageDays * DAY_MS);
      utimesSync(path, when, when);
      return path;
    };
    const old = make('old', 31);
    const young = make('young', 28);
    const live = make('live', 40);
    expect(await pruneSessions(dir, (id) => id === 'live', now)).toBe(1);
    expect([existsSync(old), existsSync(young), existsSync(live)]).toEqual([false, true, true]);
    const later = make('later', 45);
    expect(await pruneSessions(dir, () => false, now + DAY_MS / 2)).toBe(0);
    expect(existsSync(later)).toBe(true);
    expect(await pruneSessions(dir, () => false, now + DAY_MS + 1)).toBe(2);
  });

  it('finds the most recently written session of a directory by its header', () => {
    const dir = scratch();
    const write = (id: string, cwd: string, ageMs: number) => {
      const path = sessionFile(dir, id);
      writeFileSync(
        path,
        `${JSON.stringify({ type: 'session', session_id: id, cwd, system_prompt: 'x'.repeat(100_000) })}\n`,
      );
      utimesSync(path, new Date(Date.now() - ageMs), new Date(Date.now() - ageMs));
      return path;
    };
    write('a1', '/a', 3000);
    const a2 = write('a2', '/a', 2000);
    write('b1', '/b', 1000);
    writeFileSync(join(dir, 'junk.jsonl'), 'not a session');
    expect(latestSessionIn(dir, '/a')).toBe(a2);
    expect(latestSessionIn(dir, '/c')).toBeUndefined();
  });
});
