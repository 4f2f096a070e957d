// The session's records of a request are written once the request is out, so that the request never waits for the
// file; whatever happens next still finds them written first, in the order things happened.
import { existsSync, mkdtempSync, realpathSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type Anthropic from '@anthropic-ai/sdk';
import { testSessionLog } from './support/session-log.js';
import { afterEach, describe, expect, it } from 'vitest';
import type { ResultObject } from '../src/result.js';
import { loadSession } from '../src/session/load.js';
import { readRecords } from './support/run-agent.js';

const dirs: string[] = [];
afterEach(() => {
  for (const dir of dirs.splice(0)) rmSync(dir, { recursive: true, force: true });
});

function sessionPath(): string {
  const dir = realpathSync(mkdtempSync(join(tmpdir(), 'agent-session-request-')));
  dirs.push(dir);
  return join(dir, 's.jsonl');
}

const logInto = (path: string, conversation: Anthropic.MessageParam[]) => testSessionLog(path, conversation);

const fakeResult = { type: 'result', subtype: 'success', session_id: 'x' } as unknown as ResultObject;
const typesIn = (path: string) => readRecords(path).map((record) => record.type);

describe("a request's records", () => {
  it('are written when the request is out, not before', () => {
    const path = sessionPath();
    const conversation: Anthropic.MessageParam[] = [{ role: 'user', content: 'the task' }];
    const log = logInto(path, conversation);
    log.onEvent({ type: 'request_start', turn: 1 });
    expect(existsSync(path)).toBe(false);
    log.requestSent();
    expect(typesIn(path)).toEqual(['session', 'message', 'request']);
    expect(readRecords(path)[2]).toMatchObject({ type: 'request', turn: 1, messages: 1 });
    // Every later attempt of the same request (a retry) adds nothing.
    log.requestSent();
    expect(typesIn(path)).toEqual(['session', 'message', 'request']);
  });

  it('are written by the flush of an exit that cannot wait, though the request is not out yet', () => {
    const path = sessionPath();
    const log = logInto(path, [{ role: 'user', content: 'the task' }]);
    log.onEvent({ type: 'request_start', turn: 1 });
    log.flush();
    expect(typesIn(path)).toEqual(['session', 'message', 'request']);
  });

  it('come before whatever the run records next, and carry only the messages the request carried', () => {
    const path = sessionPath();
    const conversation: Anthropic.MessageParam[] = [{ role: 'user', content: 'the task' }];
    const log = logInto(path, conversation);
    log.onEvent({ type: 'request_start', turn: 1 });
    // The request never got out (a refused connection): the retry is told, after the request.
    log.onEvent({ type: 'retry', attempt: 2, maxAttempts: 4, delayMs: 10, reason: 'connection refused' });
    const reply: Anthropic.MessageParam = {
      role: 'assistant',
      content: [{ type: 'tool_use', id: 'toolu_1', name: 'bash', input: { command: 'true' } }],
    };
    conversation.push(reply);
    log.onEvent({ type: 'tool_start', id: 'toolu_1', command: 'true' });
    expect(typesIn(path)).toEqual(['session', 'message', 'request', 'retry', 'message']);
    expect(readRecords(path)[2]).toMatchObject({ type: 'request', messages: 1 });
  });

  it('are written all the same, soon, when the request cannot get out (a connection that hangs)', async () => {
    const path = sessionPath();
    const log = logInto(path, [{ role: 'user', content: 'the task' }]);
    log.onEvent({ type: 'request_start', turn: 1 });
    expect(existsSync(path)).toBe(false);
    await new Promise((resolve) => setTimeout(resolve, 200));
    expect(typesIn(path)).toEqual(['session', 'message', 'request']);
    log.close();
  });

  it('are written at the end of a run whose request was never sent (an interrupt, say)', () => {
    const path = sessionPath();
    const conversation: Anthropic.MessageParam[] = [{ role: 'user', content: 'the task' }];
    const log = logInto(path, conversation);
    log.onEvent({ type: 'request_start', turn: 1 });
    log.finish(fakeResult);
    expect(typesIn(path)).toEqual(['session', 'message', 'request', 'result']);
    expect(loadSession(path).messages).toEqual(conversation);
  });
});
