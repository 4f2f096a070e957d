// --fallback-model through the binary: after the retries on an overloaded model, or on a 404 for it, the run switches
// for good, warns once naming both, reports the model that answered, and prices each call at its own model's rates.
import { describe, expect, it } from 'vitest';
import { requestCostUsd } from '../src/api/pricing.js';
import { answer, bash, runAgent } from './support/run-agent.js';
import type { RecordedRequest, Turn } from './support/server.js';
import { useServer } from './support/use-server.js';

const serve = useServer();
const MAIN = 'claude-sonnet-5-5';
const FALLBACK = 'claude-opus-5-5';
const overloaded: Turn = { kind: 'http_error', status: 529 };
const modelOf = (request: RecordedRequest) => String(request.body.model);

/** Answers the main model with `main` and the fallback from its own script. */
function byModel(main: (request: RecordedRequest) => Turn, fallbackScript: Turn[]): Turn {
  let next = 0;
  return (request) =>
    modelOf(request) === MAIN ? main(request) : (fallbackScript[next++] ?? answer('script exhausted'));
}

const streamLines = (stdout: string) =>
  stdout
    .trim()
    .split('\n')
    .map((line) => JSON.parse(line));

describe('--fallback-model', () => {
  it('an overloaded main model: retried, then the run switches for good, warned once, priced per model', async () => {
    let mainCalls = 0;
    const turn = byModel(
      () => (++mainCalls === 1 ? bash('echo from main') : overloaded),
      [bash('echo from fallback'), answer('fallback done')],
    );
    const s = await serve([], { onExhausted: turn });
    const run = await runAgent(['--fallback-model', FALLBACK, '--output-format', 'stream-json', 'go'], s.url);
    expect(run.code).toBe(0);
    expect(run.stderr.match(/switching to the fallback model/g)).toHaveLength(1);
    expect(run.stderr).toContain(`${MAIN} is overloaded (529 overloaded_error`);
    expect(run.stderr).toContain(`switching to the fallback model ${FALLBACK} for the rest of the run`);
    // Six attempts on the main model, then every later call on the fallback.
    expect(s.requests.map(modelOf)).toEqual([MAIN, ...Array(6).fill(MAIN), FALLBACK, FALLBACK]);
    const lines = streamLines(run.stdout);
    const result = lines.at(-1);
    expect(result).toMatchObject({ subtype: 'success', model: FALLBACK, result: 'fallback done', num_turns: 3 });
    const priced = lines
      .filter((line) => line.type === 'assistant')
      .map((line) => requestCostUsd(line.message.model, line.message.usage)!);
    expect(lines.filter((line) => line.type === 'assistant').map((line) => line.message.model)).toEqual([
      MAIN,
      FALLBACK,
      FALLBACK,
    ]);
    expect(result.total_cost_usd).toBeCloseTo(
      priced.reduce((sum, cost) => sum + cost, 0),
      12,
    );
    // Priced at one model's rates alone, the figure would differ.
    expect(result.total_cost_usd).not.toBeCloseTo(requestCostUsd(FALLBACK, result.usage)!, 9);
  });

  it('overloaded in the stream (overloaded_error events) counts as overloaded too', async () => {
    const turn = byModel(() => ({ kind: 'stream_error' }), [answer('fallback done')]);
    const s = await serve([], { onExhausted: turn });
    const run = await runAgent(['--fallback-model', FALLBACK, '--output-format', 'json', 'go'], s.url);
    expect(run.code).toBe(0);
    expect(JSON.parse(run.stdout)).toMatchObject({ model: FALLBACK, result: 'fallback done' });
    expect(run.stderr).toContain(`${MAIN} is overloaded`);
  });

  it('a main model the API does not know (404): switches at once, without retrying', async () => {
    const s = await serve([answer('fallback done')], { models: [FALLBACK] });
    const run = await runAgent(['--fallback-model', FALLBACK, '--output-format', 'json', 'go'], s.url);
    expect(run.code).toBe(0);
    expect(s.requests.map(modelOf)).toEqual([MAIN, FALLBACK]);
    expect(run.stderr).toContain(`${MAIN} was not found (404 not_found_error: model: ${MAIN}`);
    expect(JSON.parse(run.stdout)).toMatchObject({ model: FALLBACK, subtype: 'success' });
  });

  it('a fallback overloaded too: exit 3, with a message that names both models', async () => {
    const s = await serve([], { onExhausted: overloaded });
    const run = await runAgent(['--fallback-model', FALLBACK, '--output-format', 'json', 'go'], s.url);
    expect(run.code).toBe(3);
    const result = JSON.parse(run.stdout);
    expect(result).toMatchObject({ subtype: 'error_api', is_error: true });
    expect(result.error).toContain(
      `${MAIN} is overloaded, and the fallback model ${FALLBACK} is overloaded too: 529 overloaded_error`,
    );
    expect(s.requests.map(modelOf)).toEqual([...Array(6).fill(MAIN), ...Array(6).fill(FALLBACK)]);
  });

  it('the fallback gets its own thinking settings: none and the default max_tokens for a model that takes a budget', async () => {
    const s = await serve([], { models: ['claude-sonnet-4-5'], onExhausted: answer('older model done') });
    const run = await runAgent(['--fallback-model', 'claude-sonnet-4-5', '--output-format', 'json', 'go'], s.url);
    expect(run.code).toBe(0);
    const [main, fallback] = s.requests.map((request) => request.body);
    expect(main).toMatchObject({ thinking: { type: 'adaptive' }, max_tokens: 128_000 });
    expect(fallback.thinking).toBeUndefined();
    expect(fallback.max_tokens).toBe(16_000);
  });

  it('without --fallback-model an overloaded model is exit 3 as before, naming only it', async () => {
    const s = await serve([], { onExhausted: overloaded });
    const run = await runAgent(['go'], s.url);
    expect(run.code).toBe(3);
    expect(run.stderr).not.toContain('fallback');
  });

  it('--max-budget-usd needs the fallback price too', async () => {
    const s = await serve([answer('never')]);
    const run = await runAgent(['--fallback-model', 'gateway-model', '--max-budget-usd', '1', 'go'], s.url);
    expect(run.code).toBe(2);
    expect(run.stderr).toContain("the price of 'gateway-model' is not known");
  });
});
