// Thinking settings through the binary: adaptive by default for models known to take it, --effort, a budget for the
// models that take one, --no-thinking, the values checked before any request, an endpoint without thinking, and
// where thinking shows (never on stdout in text format; dimmed on stderr with -v; in stream-json's assistant lines).
import { describe, expect, it } from 'vitest';
import { answer, bash, runAgent, type AgentOptions } from './support/run-agent.js';
import type { ServerOptions, Turn } from './support/server.js';
import { useServer } from './support/use-server.js';

const serve = useServer();
const THOUGHT = 'The user wants the date; one command will do.';
const thinkingAnswer = (text: string): Turn => ({
  kind: 'message',
  content: [
    { type: 'thinking', thinking: THOUGHT },
    { type: 'text', text },
  ],
});

async function firstBody(args: string[], options: AgentOptions = {}) {
  const s = await serve([answer('ok')]);
  const run = await runAgent([...args, 'go'], s.url, options);
  expect(run.stderr).not.toContain('internal error');
  return { run, body: s.validRequests()[0]?.body };
}

describe('thinking settings', () => {
  it('the default model thinks adaptively, with room for it in max_tokens, and no effort unless asked', async () => {
    const { run, body } = await firstBody([]);
    expect(run.code).toBe(0);
    expect(body.model).toBe('claude-sonnet-5-5');
    expect(body.thinking).toEqual({ type: 'adaptive' });
    expect(body.max_tokens).toBe(128_000);
    expect(body.output_config).toBeUndefined();
  });

  it('--effort adds output_config.effort; --max-tokens is kept as given', async () => {
    const { body } = await firstBody(['--effort', 'max', '--max-tokens', '20000']);
    expect(body).toMatchObject({
      thinking: { type: 'adaptive' },
      output_config: { effort: 'max' },
      max_tokens: 20_000,
    });
  });

  it('--effort and --json-schema share output_config', async () => {
    const s = await serve([answer('{"a":1}')]);
    const schema = JSON.stringify({
      type: 'object',
      properties: { a: { type: 'integer' } },
      required: ['a'],
      additionalProperties: false,
    });
    const run = await runAgent(['--effort', 'low', '--json-schema', schema, 'go'], s.url);
    expect(run.code).toBe(0);
    expect(s.validRequests()[0]!.body.output_config).toMatchObject({ effort: 'low', format: { type: 'json_schema' } });
  });

  it('a model that takes a budget: none by default, {type: enabled} with --max-thinking-tokens or MAX_THINKING_TOKENS', async () => {
    const none = await firstBody(['-m', 'claude-sonnet-4-5']);
    expect(none.body.thinking).toBeUndefined();
    expect(none.body.max_tokens).toBe(16_000);
    const flag = await firstBody(['-m', 'claude-sonnet-4-5', '--max-thinking-tokens', '4000']);
    expect(flag.body).toMatchObject({ thinking: { type: 'enabled', budget_tokens: 4000 }, max_tokens: 64_000 });
    const env = await firstBody(['-m', 'claude-sonnet-4-5', '--max-tokens', '9000'], {
      env: { MAX_THINKING_TOKENS: '2048' },
    });
    expect(env.body).toMatchObject({ thinking: { type: 'enabled', budget_tokens: 2048 }, max_tokens: 9000 });
  });

  it('a budget for a model that thinks adaptively is not sent, with a warning', async () => {
    const { run, body } = await firstBody([], { env: { MAX_THINKING_TOKENS: '8000' } });
    expect(run.code).toBe(0);
    expect(body.thinking).toEqual({ type: 'adaptive' });
    expect(run.stderr).toMatch(
      /claude-sonnet-5-5 thinks adaptively and takes no thinking budget, so MAX_THINKING_TOKENS is not used/,
    );
  });

  it('an unknown model gets none by default, and adaptive thinking when --effort asks for it', async () => {
    expect((await firstBody(['-m', 'gateway-model'])).body.thinking).toBeUndefined();
    expect((await firstBody(['-m', 'gateway-model', '--effort', 'high'])).body).toMatchObject({
      thinking: { type: 'adaptive' },
      max_tokens: 64_000,
    });
  });

  it('--no-thinking sends none, and max_tokens stays at its default; MAX_THINKING_TOKENS is then left alone', async () => {
    const { run, body } = await firstBody(['--no-thinking'], { env: { MAX_THINKING_TOKENS: '4000' } });
    expect(run.code).toBe(0);
    expect(body.thinking).toBeUndefined();
    expect(body.max_tokens).toBe(16_000);
  });
});

describe('bad thinking values: exit 2, no request sent', () => {
  it.each([
    [['--effort', 'extreme'], "--effort must be one of low, medium, high, max; got 'extreme'."],
    [
      ['-m', 'claude-sonnet-4-5', '--max-thinking-tokens', '500'],
      '--max-thinking-tokens must be at least 1024; got 500.',
    ],
    [
      ['-m', 'claude-sonnet-4-5', '--max-thinking-tokens', 'lots'],
      "--max-thinking-tokens must be a whole number of tokens; got 'lots'.",
    ],
    [
      ['-m', 'claude-sonnet-4-5', '--max-tokens', '4000', '--max-thinking-tokens', '4000'],
      '--max-thinking-tokens (4000) must be less than --max-tokens (4000).',
    ],
    [['--no-thinking', '--effort', 'low'], '--no-thinking and --effort cannot be used together.'],
    [
      ['--no-thinking', '--max-thinking-tokens', '2000'],
      '--no-thinking and --max-thinking-tokens cannot be used together.',
    ],
    [
      ['--fallback-model', 'claude-sonnet-5-5'],
      '--fallback-model is the same model as the main one (claude-sonnet-5-5)',
    ],
  ])('%j', async (args, message) => {
    const s = await serve([answer('never')]);
    const run = await runAgent([...args, '--output-format', 'json', 'go'], s.url);
    expect(run.code).toBe(2);
    expect(run.stderr).toContain(message);
    expect(JSON.parse(run.stdout)).toMatchObject({ subtype: 'error_usage', is_error: true });
    expect(s.requests).toEqual([]);
  });

  it('MAX_THINKING_TOKENS under 1024 too', async () => {
    const s = await serve([answer('never')]);
    const run = await runAgent(['-m', 'claude-opus-4-1', 'go'], s.url, { env: { MAX_THINKING_TOKENS: '1000' } });
    expect(run.code).toBe(2);
    expect(run.stderr).toContain('MAX_THINKING_TOKENS must be at least 1024; got 1000.');
    expect(s.requests).toEqual([]);
  });
});

describe('an endpoint without thinking', () => {
  const refusing = (turns: Turn[], options: ServerOptions = { thinking: 'rejected' }) => serve(turns, options);

  it('a 400 naming thinking: the request goes again without it, once warned, and the rest of the run goes without', async () => {
    const s = await refusing([bash('echo hi'), answer('done')]);
    const run = await runAgent(['--effort', 'high', 'go'], s.url);
    expect(run.code).toBe(0);
    expect(run.stdout).toBe('done\n');
    expect(run.stderr.match(/the endpoint refused the thinking/g)).toHaveLength(1);
    expect(run.stderr.match(/the endpoint refused the effort/g)).toHaveLength(1);
    expect(s.rejections().map((r) => r.rejected!.message)).toEqual([
      'thinking: Extra inputs are not permitted',
      'output_config.effort: Extra inputs are not permitted',
    ]);
    for (const request of s.validRequests())
      expect(request.body.thinking ?? request.body.output_config).toBeUndefined();
    // The room left for thinking went with it: the plain default, as with --no-thinking.
    expect(s.validRequests().map((request) => request.body.max_tokens)).toEqual([16000, 16000]);
  });

  it('keeps a --max-tokens that was given once thinking is refused', async () => {
    const s = await refusing([answer('done')]);
    const run = await runAgent(['--max-tokens', '9000', 'go'], s.url);
    expect(run.code).toBe(0);
    expect(s.validRequests().map((request) => request.body.max_tokens)).toEqual([9000]);
  });

  it('a 400 about something else is still exit 3', async () => {
    const s = await serve([{ kind: 'http_error', status: 400, message: 'max_tokens: too large' }]);
    const run = await runAgent(['go'], s.url);
    expect(run.code).toBe(3);
    expect(s.requests).toHaveLength(1);
  });
});

describe('where thinking shows', () => {
  it('text format: never on stdout, nor on stderr without -v', async () => {
    const s = await serve([thinkingAnswer('It is Tuesday.')]);
    const run = await runAgent(['go'], s.url);
    expect(run.code).toBe(0);
    expect(run.stdout).toBe('It is Tuesday.\n');
    expect(run.stderr).not.toContain(THOUGHT);
  });

  it('-v shows it on stderr, stdout still holds only the answer', async () => {
    const s = await serve([thinkingAnswer('It is Tuesday.')]);
    const run = await runAgent(['-v', 'go'], s.url, { env: { FORCE_COLOR: '1' } });
    expect(run.stdout).toBe('It is Tuesday.\n');
    // Dimmed: the faint style's escape right before it.
    expect(run.stderr).toMatch(new RegExp(`\\u001b\\[2m[^\\n]*${THOUGHT.slice(0, 20)}`));
  });

  it('json: the result is the answer alone; stream-json: the assistant line carries the thinking, signed', async () => {
    const json = await runAgent(['--output-format', 'json', 'go'], (await serve([thinkingAnswer('Tuesday')])).url);
    expect(JSON.parse(json.stdout).result).toBe('Tuesday');
    const stream = await runAgent(
      ['--output-format', 'stream-json', 'go'],
      (await serve([thinkingAnswer('Tuesday')])).url,
    );
    const lines = stream.stdout
      .trim()
      .split('\n')
      .map((line) => JSON.parse(line));
    const assistant = lines.find((line) => line.type === 'assistant');
    expect(assistant.message.content[0]).toMatchObject({
      type: 'thinking',
      thinking: THOUGHT,
      signature: expect.any(String),
    });
    expect(lines.at(-1).result).toBe('Tuesday');
  });
});
