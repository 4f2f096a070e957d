// When the session writer's records reach the file: the records of one step together, and all of them before the
// run waits on anything (the model, a command), so that a run killed while it waits has them on disk.
import { mkdtempSync, readFileSync, realpathSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type Anthropic from '@anthropic-ai/sdk';
import { testSessionLog } from './support/session-log.js';
import { afterEach, describe, expect, it } from 'vitest';
import { loadSession } from '../src/session/load.js';

const dirs: string[] = [];
afterEach(() => {
  for (const dir of dirs.splice(0)) rmSync(dir, { recursive: true, force: true });
});

function sessionIn(conversation: Anthropic.MessageParam[]) {
  const dir = realpathSync(mkdtempSync(join(tmpdir(), 'agent-session-writes-')));
  dirs.push(dir);
  const path = join(dir, 's.jsonl');
  const secrets = [{ name: 'API_KEY', value: 'sk-secret-value' }];
  const log = testSessionLog(path, conversation, { file: { from: 'start' }, secrets });
  const types = () =>
    readFileSync(path, 'utf8')
      .split('\n')
      .filter((line) => line !== '')
      .map((line) => JSON.parse(line).type as string);
  return { log, path, types };
}

const toolUse: Anthropic.ToolUseBlockParam = {
  type: 'tool_use',
  id: 'toolu_1',
  name: 'bash',
  input: { command: 'true' },
};
const reply = {
  id: 'msg_1',
  type: 'message',
  role: 'assistant',
  model: 'test-model',
  content: [toolUse],
  stop_reason: 'tool_use',
  stop_sequence: null,
  usage: { input_tokens: 1, output_tokens: 1 },
} as unknown as Anthropic.Message;
const commandEnd = {
  type: 'tool_end',
  id: 'toolu_1',
  command: 'true',
  content: 'printed sk-secret-value',
  isError: false,
  blocked: false,
  exitCode: 0,
  durationMs: 3,
} as const;

describe('the session writer', () => {
  it('has the reply on disk before its command runs, and the results and the request before the request goes out', () => {
    const conversation: Anthropic.MessageParam[] = [{ role: 'user', content: 'go' }];
    const { log, path, types } = sessionIn(conversation);
    log.onEvent({ type: 'request_start', turn: 1 });
    expect(types()).toEqual(['session', 'message', 'request']);
    log.onEvent({ type: 'response', turn: 1, message: reply });
    conversation.push({ role: 'assistant', content: [toolUse] });
    log.onEvent({ type: 'tool_start', id: 'toolu_1', command: 'true' });
    expect(types()).toEqual(['session', 'message', 'request', 'response', 'message']);
    log.onEvent(commandEnd);
    conversation.push({ role: 'user', content: [{ type: 'tool_result', tool_use_id: 'toolu_1', content: 'printed' }] });
    log.onEvent({ type: 'tool_results', message: conversation.at(-1)! });
    log.onEvent({ type: 'request_start', turn: 2 });
    const whole = [...['session', 'message', 'request', 'response', 'message'], 'command', 'message', 'request'];
    expect(types()).toEqual(whole);
    expect(loadSession(path).messages).toEqual(conversation);
    // Held records pass through the same masking as any other.
    expect(readFileSync(path, 'utf8')).not.toContain('sk-secret-value');
    log.close();
  });

  it('writes a held record by the next turn of the event loop, even when no other record follows', async () => {
    const { log, types } = sessionIn([{ role: 'user', content: 'go' }]);
    log.onEvent({ type: 'request_start', turn: 1 });
    log.onEvent(commandEnd);
    await new Promise((resolve) => setImmediate(resolve));
    expect(types()).toEqual(['session', 'message', 'request', 'command']);
    log.close();
  });

  it('writes what it holds when closed without a result, and when the process flushes it on its way out', () => {
    const first = sessionIn([{ role: 'user', content: 'go' }]);
    first.log.onEvent({ type: 'request_start', turn: 1 });
    first.log.onEvent(commandEnd);
    first.log.close();
    expect(first.types()).toEqual(['session', 'message', 'request', 'command']);
    const second = sessionIn([{ role: 'user', content: 'go' }]);
    second.log.onEvent({ type: 'request_start', turn: 1 });
    second.log.onEvent({ type: 'response', turn: 1, message: reply });
    second.log.flush();
    expect(second.types()).toEqual(['session', 'message', 'request', 'response']);
    second.log.close();
  });
});
