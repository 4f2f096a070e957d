// The session's records of a request are on disk before the request goes out, so that a run killed while the request
// is on its way (or before it could get out) can be resumed; whatever happens next is written after them, in order.
import { mkdtempSync, realpathSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type Anthropic from '@anthropic-ai/sdk';
import { afterEach, describe, expect, it } from 'vitest';
import type { ResultObject } from '../src/result.js';
import { loadSession } from '../src/session/load.js';
import { readRecords } from './support/run-agent.js';
import { testSessionLog } from './support/session-log.js';

const dirs: string[] = [];
afterEach(() => {
  for (const dir of dirs.splice(0)) rmSync(dir, { recursive: true, force: true });
});

function sessionPath(): string {
  const dir = realpathSync(mkdtempSync(join(tmpdir(), 'agent-session-request-')));
  dirs.push(dir);
  return join(dir, 's.jsonl');
}

const fakeResult = { type: 'result', subtype: 'success', session_id: 'x' } as unknown as ResultObject;
const typesIn = (path: string) => readRecords(path).map((record) => record.type);

describe("a request's records", () => {
  it('are on disk as soon as the request starts, before it goes out', () => {
    const path = sessionPath();
    const conversation: Anthropic.MessageParam[] = [{ role: 'user', content: 'the task' }];
    const log = testSessionLog(path, conversation);
    log.onEvent({ type: 'request_start', turn: 1 });
    expect(typesIn(path)).toEqual(['session', 'message', 'request']);
    expect(readRecords(path)[2]).toMatchObject({ type: 'request', turn: 1, messages: 1 });
    expect(loadSession(path).messages).toEqual(conversation);
  });

  it('come before whatever the run records next', () => {
    const path = sessionPath();
    const conversation: Anthropic.MessageParam[] = [{ role: 'user', content: 'the task' }];
    const log = testSessionLog(path, conversation);
    log.onEvent({ type: 'request_start', turn: 1 });
    // The request never got out (a refused connection): the retry is told, after the request.
    log.onEvent({ type: 'retry', attempt: 2, maxAttempts: 4, delayMs: 10, reason: 'connection refused' });
    conversation.push({
      role: 'assistant',
      content: [{ type: 'tool_use', id: 'toolu_1', name: 'bash', input: { command: 'true' } }],
    });
    log.onEvent({ type: 'tool_start', id: 'toolu_1', command: 'true' });
    expect(typesIn(path)).toEqual(['session', 'message', 'request', 'retry', 'message']);
  });

  it('stay in the file of a run that ends before its request was answered (an interrupt, say)', () => {
    const path = sessionPath();
    const conversation: Anthropic.MessageParam[] = [{ role: 'user', content: 'the task' }];
    const log = testSessionLog(path, conversation);
    log.onEvent({ type: 'request_start', turn: 1 });
    log.finish(fakeResult);
    expect(typesIn(path)).toEqual(['session', 'message', 'request', 'result']);
    expect(loadSession(path).messages).toEqual(conversation);
  });
});
