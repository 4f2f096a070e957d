// A SessionLog as the writer's tests use it: one new file, a fixed identity, the system prompt already described.
import type Anthropic from '@anthropic-ai/sdk';
import { SessionLog, type SessionFileSpec } from '../../src/session/writer.js';
import { createRedactor } from '../../src/sinks/redactor.js';

type Secrets = Parameters<typeof createRedactor>[0];

export function testSessionLog(
  path: string,
  conversation: Anthropic.MessageParam[],
  { file = {}, secrets = [] }: { file?: Partial<SessionFileSpec>; secrets?: Secrets } = {},
): SessionLog {
  const log = new SessionLog({
    sessionId: '11111111-2222-4333-8444-555555555555',
    forkedFrom: undefined,
    model: 'test-model',
    cwd: '/work',
    agentVersion: '0.0.0',
    conversation,
    historyLength: 0,
    files: [{ path, kind: 'new', from: 'conversation', ...file }],
    redactor: createRedactor(secrets),
  });
  log.describe({ system: 'the system prompt', tools: [] });
  return log;
}
