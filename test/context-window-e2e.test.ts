import { describe, expect, it } from 'vitest';
import { numberedLinesCommand, numberedLinesResult, promptOf, withUsageSnapshots } from './support/bench-workloads.js';
import { answer, bash, messageText, runAgent, toolResults } from './support/run-agent.js';
import type { RecordedRequest, TestServer, Turn } from './support/server.js';
import { cacheControlCount, MIN_CACHEABLE_TOKENS } from './support/server-tokens.js';
import { useServer } from './support/use-server.js';

const serve = useServer();

const EPHEMERAL = { type: 'ephemeral' };
/** Three commands printing about 3.9 KB each, then an answer: enough prompt to be cached. */
const SMALL_RUN: Turn[] = [bash('seq 1 1000'), bash('seq 2001 3000'), bash('seq 5001 6000'), answer('done')];

type Body = { tools: unknown[]; system: unknown; messages: Array<{ role: string; content: unknown }> };
const bodyOf = (request: RecordedRequest) => request.body as Body;
const blocksOf = (content: unknown): unknown[] => (Array.isArray(content) ? content : []);

/** Blocks carrying cache_control, counted as the API counts them. */
function breakpoints(body: Body): number {
  const all = [
    ...body.tools,
    ...blocksOf(body.system),
    ...body.messages.flatMap((message) => blocksOf(message.content)),
  ];
  return all.reduce<number>((sum, block) => sum + cacheControlCount(block), 0);
}

describe('prompt caching through the binary', () => {
  it('marks the tools, the system prompt and the last block of every request, never more than 4, and each request reads the previous one from the cache', async () => {
    let s: TestServer | undefined;
    const usage = withUsageSnapshots(SMALL_RUN, () => s!);
    s = await serve(usage.script);
    const run = await runAgent(['--output-format', 'json', 'count things'], s.url);
    expect(run.code).toBe(0);
    expect(s.rejections()).toEqual([]);
    const requests = s.validRequests();
    expect(requests).toHaveLength(4);
    for (const request of requests) {
      const body = bodyOf(request);
      expect(breakpoints(body)).toBeGreaterThanOrEqual(3);
      expect(breakpoints(body)).toBeLessThanOrEqual(4);
      expect(body.tools.at(-1)).toMatchObject({ cache_control: EPHEMERAL });
      expect(blocksOf(body.system).at(-1)).toMatchObject({ cache_control: EPHEMERAL });
      expect(blocksOf(body.messages.at(-1)!.content).at(-1)).toMatchObject({ cache_control: EPHEMERAL });
    }

    const perRequest = usage.perRequest();
    const checked = perRequest.slice(1).filter((_, i) => promptOf(perRequest[i]!) >= MIN_CACHEABLE_TOKENS);
    expect(checked.length).toBeGreaterThanOrEqual(2);
    perRequest.forEach((now, i) => {
      const before = i > 0 ? perRequest[i - 1]! : undefined;
      if (before && promptOf(before) >= MIN_CACHEABLE_TOKENS)
        expect(now.cache_read_input_tokens).toBe(promptOf(before));
    });
    expect(JSON.parse(run.stdout).usage).toEqual(s.totals());
  });

  it('sends no cache_control at all with --no-cache', async () => {
    const s = await serve(SMALL_RUN);
    const run = await runAgent(['--no-cache', 'count things'], s.url);
    expect(run.code).toBe(0);
    expect(s.validRequests()).toHaveLength(4);
    for (const request of s.validRequests()) expect(JSON.stringify(request.body)).not.toContain('cache_control');
    expect(s.totals()).toMatchObject({ cache_creation_input_tokens: 0, cache_read_input_tokens: 0 });
  });
});

describe('the context window through the binary', () => {
  // The server counts tokens its own way, denser than the product's estimate of characters / 4. At 2.2 characters
  // a token the uncalibrated estimate lets a request over the window; only the calibration from the usage the
  // server reports keeps every request inside it.
  it.each([3, 2.2])(
    '45 turns of 28,000-character outputs fit a 200k window counted at %s characters a token: the latest result whole, old ones elided, nothing rejected',
    async (charsPerToken) => {
      const turns = 45;
      const script: Turn[] = Array.from({ length: turns }, (_, turn) => bash(numberedLinesCommand(turn)));
      const s = await serve([...script, answer('read them all')], { contextWindow: 200_000, charsPerToken });
      const run = await runAgent(['--output-format', 'json', 'read all the outputs'], s.url, { timeoutMs: 60_000 });

      expect(s.rejections().map((request) => request.rejected)).toEqual([]);
      expect(run.code).toBe(0);
      expect(JSON.parse(run.stdout)).toMatchObject({ subtype: 'success', num_turns: turns + 1, commands: turns });
      const requests = s.validRequests();
      expect(requests).toHaveLength(turns + 1);
      requests.slice(1).forEach((request, turn) => {
        const latest = toolResults(request);
        expect(latest).toHaveLength(1);
        // A mismatch here would print 28,000 characters; compare a verdict instead.
        expect(
          latest[0]!.content === numberedLinesResult(turn),
          `request ${turn + 1} carries command ${turn}'s output whole`,
        ).toBe(true);
      });

      const lastMessages = bodyOf(requests.at(-1)!).messages;
      const results = lastMessages.flatMap((message) => blocksOf(message.content)) as Array<{
        type: string;
        content?: unknown;
      }>;
      const contents = results
        .filter((block) => block.type === 'tool_result')
        .map((block) => messageText(block.content));
      expect(contents).toHaveLength(turns);
      expect(contents[0]).toMatch(/^\[output elided to save context: 27999 characters/);
      expect(contents.filter((text) => text.startsWith('[output elided')).length).toBeGreaterThan(turns / 2);
    },
    60_000,
  );

  it('a prompt too large for --context-window exits 1 with error_context and sends nothing', async () => {
    const s = await serve([answer('never')], { contextWindow: 2_000 });
    const prompt = `Summarise: ${'lorem ipsum dolor sit amet '.repeat(800)}`;
    const run = await runAgent(['--output-format', 'json', '--context-window', '2000', prompt], s.url);
    expect(run.code).toBe(1);
    expect(JSON.parse(run.stdout)).toMatchObject({ subtype: 'error_context', is_error: true, exit_code: 1 });
    expect(run.stderr).toMatch(/context window/);
    expect(s.requests).toEqual([]);
  });

  it('a command output too large for the window ends the run with error_context before any request goes over', async () => {
    const s = await serve([bash(numberedLinesCommand(1)), answer('never')], { contextWindow: 8_000 });
    const run = await runAgent(['--output-format', 'json', '--context-window', '8000', 'look'], s.url);
    expect(run.code).toBe(1);
    expect(JSON.parse(run.stdout)).toMatchObject({ subtype: 'error_context', is_error: true, commands: 1 });
    expect(s.rejections()).toEqual([]);
    expect(s.requests).toHaveLength(1);
  });
});

describe('usage and cost in the result object', () => {
  it('sums usage as the API reported it and prices it by hand for a known model', async () => {
    const s = await serve(SMALL_RUN);
    const run = await runAgent(['--output-format', 'json', '-m', 'claude-sonnet-4-5', 'count things'], s.url);
    expect(run.code).toBe(0);
    const result = JSON.parse(run.stdout);
    const totals = s.totals();
    expect(result.usage).toEqual(totals);
    // The run must exercise every rate, or a wrong multiplier could hide.
    expect(Object.values(totals).every((tokens) => tokens > 0)).toBe(true);
    const dollarsPerMTok = { input: 3, output: 15, cacheWrite: 3 * 1.25, cacheRead: 3 * 0.1 };
    const expected =
      (totals.input_tokens * dollarsPerMTok.input +
        totals.output_tokens * dollarsPerMTok.output +
        totals.cache_creation_input_tokens * dollarsPerMTok.cacheWrite +
        totals.cache_read_input_tokens * dollarsPerMTok.cacheRead) /
      1_000_000;
    // The result rounds to 6 decimals; a wrong rate would be off by far more than that.
    expect(Math.abs(result.total_cost_usd - expected)).toBeLessThanOrEqual(1e-6);
    expect(result.total_cost_usd).toBeGreaterThan(0);
    expect(result.duration_api_ms).toBeGreaterThan(0);
    expect(result.duration_api_ms).toBeLessThanOrEqual(result.duration_ms);
  });

  it('leaves total_cost_usd out for a model whose price is unknown', async () => {
    const s = await serve([bash('seq 1 10'), answer('done')]);
    const run = await runAgent(['--output-format', 'json', '-m', 'some-other-model', 'count'], s.url);
    expect(run.code).toBe(0);
    const result = JSON.parse(run.stdout);
    expect(result.model).toBe('some-other-model');
    expect(result.usage).toEqual(s.totals());
    expect(result).not.toHaveProperty('total_cost_usd');
    expect(result.duration_api_ms).toBeGreaterThan(0);
    expect(result.duration_api_ms).toBeLessThanOrEqual(result.duration_ms);
  });
});
