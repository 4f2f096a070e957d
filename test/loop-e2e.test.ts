import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { answer, bash, messageText, runAgent, tempDir, toolResults } from './support/run-agent.js';
import { type TestServer, type Turn } from './support/server.js';
import { useServer } from './support/use-server.js';

const serve = useServer();
const json = (stdout: string) => JSON.parse(stdout);
const jsonRun = (s: TestServer, args: string[] = [], options = {}) =>
  runAgent(['--output-format', 'json', ...args, 'do it'], s.url, options);

describe('stop reasons', () => {
  it('end_turn and stop_sequence finish with exit 0', async () => {
    const s = await serve([
      answer('one'),
      { kind: 'message', content: [{ type: 'text', text: 'two' }], stop_reason: 'stop_sequence' },
    ]);
    expect(json((await jsonRun(s)).stdout)).toMatchObject({
      subtype: 'success',
      stop_reason: 'end_turn',
      result: 'one',
    });
    const second = await jsonRun(s);
    expect(second.code).toBe(0);
    expect(json(second.stdout)).toMatchObject({ subtype: 'success', stop_reason: 'stop_sequence', result: 'two' });
  });

  it('max_tokens: never runs the cut-off tool_use, asks to continue, and joins the answer', async () => {
    const dir = tempDir();
    const s = await serve([
      {
        kind: 'message',
        content: [
          { type: 'text', text: 'Part one, ' },
          { type: 'tool_use', name: 'bash', input: { command: 'touch marker' } },
        ],
        stop_reason: 'max_tokens',
      },
      answer('part two.'),
    ]);
    const run = await jsonRun(s, [], { cwd: dir });
    expect(run.code).toBe(0);
    expect(json(run.stdout).result).toBe('Part one, part two.');
    expect(existsSync(join(dir, 'marker'))).toBe(false);
    const messages = s.validRequests()[1]!.body.messages as Array<{ role: string; content: unknown }>;
    expect(messages.at(-1)!.role).toBe('user');
    expect(messageText(messages.at(-1)!.content)).toMatch(/cut off/);
    expect(s.rejections()).toEqual([]);
  });

  it('max_tokens four times in a row is exit 1, error_max_tokens', async () => {
    const cut: Turn = { kind: 'message', content: [{ type: 'text', text: 'more' }], stop_reason: 'max_tokens' };
    const s = await serve([cut, cut, cut, cut]);
    const run = await jsonRun(s);
    expect(run.code).toBe(1);
    expect(json(run.stdout)).toMatchObject({ subtype: 'error_max_tokens', is_error: true, num_turns: 4, exit_code: 1 });
    expect(run.stderr).toMatch(/--max-tokens/);
  });

  it('pause_turn sends the conversation again as it is', async () => {
    const s = await serve([
      { kind: 'message', content: [{ type: 'text', text: 'Still working' }], stop_reason: 'pause_turn' },
      answer('finished'),
    ]);
    const run = await jsonRun(s);
    expect(run.code).toBe(0);
    expect(json(run.stdout)).toMatchObject({ result: 'finished', num_turns: 2 });
    const messages = s.validRequests()[1]!.body.messages as Array<{ role: string }>;
    expect(messages.at(-1)!.role).toBe('assistant');
  });

  it.each([
    ['refusal', 'error_refusal', /declined/],
    ['model_context_window_exceeded', 'error_context', /context window/],
  ] as const)('%s is exit 1 with a clear message', async (stopReason, subtype, message) => {
    const s = await serve([{ kind: 'message', content: [{ type: 'text', text: 'no' }], stop_reason: stopReason }]);
    const run = await jsonRun(s);
    expect(run.code).toBe(1);
    expect(json(run.stdout)).toMatchObject({ subtype, is_error: true });
    expect(run.stderr).toMatch(message);
  });
});

describe('tools', () => {
  it('runs several tool_use blocks of one response in order and answers them in one message', async () => {
    const s = await serve([
      {
        kind: 'message',
        content: [
          { type: 'text', text: 'Three at once.' },
          { type: 'tool_use', id: 'toolu_a', name: 'bash', input: { command: 'echo first > log' } },
          { type: 'tool_use', id: 'toolu_b', name: 'bash', input: { command: 'echo second >> log' } },
          { type: 'tool_use', id: 'toolu_c', name: 'bash', input: { command: 'cat log' } },
        ],
      },
      answer('ok'),
    ]);
    const run = await jsonRun(s);
    expect(run.code).toBe(0);
    const results = toolResults(s.validRequests()[1]!);
    expect(results.map((result) => result.tool_use_id)).toEqual(['toolu_a', 'toolu_b', 'toolu_c']);
    expect(results[2]!.content).toBe('first\nsecond');
    expect(json(run.stdout).commands).toBe(3);
  });

  it('answers an unknown tool, a missing command and a non-string command with is_error, and goes on', async () => {
    const s = await serve([
      {
        kind: 'message',
        content: [
          { type: 'tool_use', id: 'toolu_x', name: 'python', input: { code: '1' } },
          { type: 'tool_use', id: 'toolu_y', name: 'bash', input: {} },
          { type: 'tool_use', id: 'toolu_z', name: 'bash', input: { command: ['ls'] } },
          { type: 'tool_use', id: 'toolu_t', name: 'bash', input: { command: 'true', timeout: 'soon' } },
        ],
      },
      answer('recovered'),
    ]);
    const run = await jsonRun(s);
    expect(run.code).toBe(0);
    const results = toolResults(s.validRequests()[1]!);
    expect(results.every((result) => result.is_error)).toBe(true);
    expect(results[0]!.content).toMatch(/Unknown tool 'python'.*bash/);
    expect(results[1]!.content).toMatch(/non-empty string 'command'/);
    expect(results[2]!.content).toMatch(/non-empty string 'command'/);
    expect(results[3]!.content).toMatch(/'timeout' must be a positive number/);
  });

  it('answers a command that printed only blank lines or carriage returns with (no output)', async () => {
    const s = await serve([bash("printf '\\r\\r\\r\\n\\n'"), answer('ok')]);
    const run = await jsonRun(s);
    expect(run.code).toBe(0);
    expect(toolResults(s.validRequests()[1]!)[0]!.content).toBe('(no output)');
  });

  it('reports a failing command with its exit code, not as a tool error', async () => {
    const s = await serve([bash('echo oops >&2; exit 3'), answer('saw it')]);
    await jsonRun(s);
    const [result] = toolResults(s.validRequests()[1]!);
    expect(result!.content).toMatch(/^oops\n.*exit code: 3/s);
    expect(result!.is_error).toBeUndefined();
  });

  it('--max-turns n makes at most n model calls, then exit 1', async () => {
    const s = await serve([bash('true'), bash('true'), bash('true'), answer('too late')]);
    const run = await jsonRun(s, ['--max-turns', '2']);
    expect(run.code).toBe(1);
    expect(json(run.stdout)).toMatchObject({ subtype: 'error_max_turns', num_turns: 2, commands: 1 });
    expect(s.validRequests()).toHaveLength(2);
    expect(run.stderr).toMatch(/--max-turns/);
  });
});

describe('retries', () => {
  it.each([
    ['429 with retry-after', { kind: 'http_error', status: 429, headers: { 'retry-after': '1' } }],
    ['529 overloaded', { kind: 'http_error', status: 529 }],
    ['500', { kind: 'http_error', status: 500 }],
    ['408', { kind: 'http_error', status: 408 }],
    ['409', { kind: 'http_error', status: 409 }],
    ['an error event mid-stream', { kind: 'stream_error' }],
    ['a connection dropped mid-stream', { kind: 'drop' }],
    ['a stream that ends without message_stop', { kind: 'truncated' }],
  ] as Array<[string, Turn]>)('retries %s and announces it', async (_name, failure) => {
    const s = await serve([failure, answer('made it')]);
    const run = await jsonRun(s);
    expect(run.code).toBe(0);
    expect(json(run.stdout).result).toBe('made it');
    expect(run.stderr).toMatch(/retrying in .* \(attempt 2 of 6\)/);
    expect(s.requests.filter((request) => request.path.startsWith('/v1/messages'))).toHaveLength(2);
  });

  it.each([
    ['before the response starts', { kind: 'hang' }],
    ['mid-stream', { kind: 'message', content: [{ type: 'text', text: 'slow' }], chunkDelayMs: 5_000 }],
  ] as Array<[string, Turn]>)('retries a stream that stalls %s', async (_name, stall) => {
    const s = await serve([stall, answer('unstuck')]);
    const run = await jsonRun(s, [], { env: { AGENT_STREAM_IDLE_MS: '400' } });
    expect(run.code).toBe(0);
    expect(json(run.stdout).result).toBe('unstuck');
    expect(run.stderr).toMatch(/retrying in .*stream stalled: no data for 0\.4 s/);
    expect(run.durationMs).toBeLessThan(4_000);
  });

  it('honours retry-after', async () => {
    const s = await serve([{ kind: 'http_error', status: 429, headers: { 'retry-after': '2' } }, answer('ok')]);
    const run = await jsonRun(s);
    expect(run.code).toBe(0);
    expect(run.stderr).toMatch(/retrying in 2\.0 s/);
    expect(run.durationMs).toBeGreaterThan(1_900);
  });

  it('honours retry-after-ms, which wins over retry-after', async () => {
    const s = await serve([
      { kind: 'http_error', status: 429, headers: { 'retry-after-ms': '1500', 'retry-after': '30' } },
      answer('ok'),
    ]);
    const run = await jsonRun(s);
    expect(run.code).toBe(0);
    expect(run.stderr).toMatch(/retrying in 1\.5 s/);
    expect(run.durationMs).toBeGreaterThan(1_400);
    expect(run.durationMs).toBeLessThan(15_000);
  });

  it('x-should-retry: true retries a status that is not retried otherwise', async () => {
    const s = await serve([
      { kind: 'http_error', status: 400, message: 'try me again', headers: { 'x-should-retry': 'true' } },
      answer('made it'),
    ]);
    const run = await jsonRun(s);
    expect(run.code).toBe(0);
    expect(json(run.stdout).result).toBe('made it');
    expect(run.stderr).toMatch(/retrying in .* \(attempt 2 of 6\): 400 invalid_request_error: try me again/);
    expect(s.requests).toHaveLength(2);
  });

  it('x-should-retry: false gives up at once on a status that is retried otherwise', async () => {
    const s = await serve([
      { kind: 'http_error', status: 529, message: 'Overloaded', headers: { 'x-should-retry': 'false' } },
      answer('never'),
    ]);
    const run = await jsonRun(s);
    expect(run.code).toBe(3);
    expect(json(run.stdout)).toMatchObject({ subtype: 'error_api', is_error: true, exit_code: 3 });
    expect(run.stderr).toMatch(/529 overloaded_error: Overloaded/);
    expect(run.stderr).not.toMatch(/retrying/);
    expect(s.requests).toHaveLength(1);
  });

  it('gives up with exit 3 after 6 attempts', async () => {
    const overloaded: Turn = { kind: 'http_error', status: 529, message: 'Overloaded' };
    const s = await serve(Array.from({ length: 6 }, () => overloaded));
    const run = await jsonRun(s);
    expect(run.code).toBe(3);
    expect(json(run.stdout)).toMatchObject({ subtype: 'error_api', is_error: true, exit_code: 3 });
    expect(run.stderr).toMatch(/529 overloaded_error: Overloaded.*gave up after 6 attempts/);
    expect(s.requests).toHaveLength(6);
  });

  it.each([
    [400, 'invalid_request_error', /400 invalid_request_error: nope/],
    [401, 'authentication_error', /401 authentication_error: nope[^\n]*\nCheck ANTHROPIC_API_KEY/],
    [403, 'permission_error', /403 permission_error: nope/],
    [404, 'not_found_error', /404 not_found_error: nope[^\n]*\nCheck --model/],
    [413, 'request_too_large', /413 request_too_large: nope/],
  ])('does not retry %i: exit 3 with the API message', async (status, type, message) => {
    const s = await serve([{ kind: 'http_error', status, type, message: 'nope' }, answer('never')]);
    const run = await jsonRun(s);
    expect(run.code).toBe(3);
    expect(run.stderr).toMatch(message);
    expect(run.stderr).not.toMatch(/retrying/);
    expect(run.stderr).not.toMatch(/\n\s+at /);
    expect(s.requests).toHaveLength(1);
  });

  it('retries a refused connection, then exits 3', async () => {
    const s = await serve([]);
    const url = s.url;
    await s.close();
    const run = await runAgent(['hi'], url);
    expect(run.code).toBe(3);
    expect(run.stderr).toMatch(/attempt 6 of 6/);
    expect(run.stderr).toMatch(/connection/i);
  });
});
