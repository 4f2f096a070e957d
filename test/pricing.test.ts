import { describe, expect, it } from 'vitest';
import { PRICES, costUsd, priceFor, requestCostUsd } from '../src/api/pricing.js';
import { addUsage, billedEquivalentInput, emptyUsage, promptTokens, type UsageTotals } from '../src/api/usage.js';

describe('usage', () => {
  it('sums usage, counting null and missing fields as 0, without changing the total', () => {
    const start = emptyUsage();
    const once = addUsage(start, {
      input_tokens: 10,
      output_tokens: 5,
      cache_creation_input_tokens: null,
      cache_read_input_tokens: 7,
    });
    const twice = addUsage(once, {
      input_tokens: 3,
      output_tokens: 2,
      cache_creation_input_tokens: 100,
      cache_read_input_tokens: null,
    });
    const same = addUsage(addUsage(twice, null), undefined);

    expect(start).toEqual(emptyUsage());
    expect(once).toEqual({
      input_tokens: 10,
      output_tokens: 5,
      cache_creation_input_tokens: 0,
      cache_read_input_tokens: 7,
    });
    expect(twice).toEqual({
      input_tokens: 13,
      output_tokens: 7,
      cache_creation_input_tokens: 100,
      cache_read_input_tokens: 7,
    });
    expect(same).toEqual(twice);
    expect(addUsage(emptyUsage(), { output_tokens: 4 })).toEqual({ ...emptyUsage(), output_tokens: 4 });
    // A stream's message_delta usage may carry a null input count.
    expect(addUsage(emptyUsage(), { input_tokens: null, output_tokens: 9 })).toEqual({
      ...emptyUsage(),
      output_tokens: 9,
    });
  });

  it('prices cache writes at 1.25× and reads at 0.1× in the billed equivalent', () => {
    const u: UsageTotals = {
      input_tokens: 1000,
      output_tokens: 999,
      cache_creation_input_tokens: 2000,
      cache_read_input_tokens: 10_000,
    };
    expect(billedEquivalentInput(u)).toBeCloseTo(1000 + 2500 + 1000, 9);
  });

  it('counts the whole prompt, cached parts included', () => {
    expect(promptTokens({ input_tokens: 12, cache_creation_input_tokens: 300, cache_read_input_tokens: 4000 })).toBe(
      4312,
    );
    expect(promptTokens({ input_tokens: 12, cache_creation_input_tokens: null, cache_read_input_tokens: null })).toBe(
      12,
    );
  });
});

describe('pricing', () => {
  const usage: UsageTotals = {
    input_tokens: 1000,
    output_tokens: 500,
    cache_creation_input_tokens: 2000,
    cache_read_input_tokens: 10_000,
  };

  it('prices claude-sonnet-4-5 with all four kinds of usage', () => {
    // 1000 × $3 + 500 × $15 + 2000 × $3.75 + 10000 × $0.30, per million tokens.
    expect(costUsd('claude-sonnet-4-5', usage)).toBeCloseTo(0.021, 12);
  });

  it('matches dated snapshots to their alias', () => {
    expect(priceFor('claude-sonnet-4-5-20250929')).toEqual(priceFor('claude-sonnet-4-5'));
    expect(priceFor('claude-haiku-4-5-20251001')).toEqual(priceFor('claude-haiku-4-5'));
    expect(priceFor('claude-opus-4-5-20251101')?.inputPerMTok).toBe(5);
    expect(priceFor('claude-opus-4-20250514')?.inputPerMTok).toBe(15);
    expect(priceFor('claude-opus-4-1-20250805')?.outputPerMTok).toBe(75);
    expect(costUsd('claude-sonnet-4-5-20250929', usage)).toBeCloseTo(0.021, 12);
  });

  it('knows nothing of models outside the table, and does not guess from prefixes', () => {
    for (const model of [
      'glm-4.6',
      'gpt-4o',
      'claude-opus-4-9',
      'claude-sonnet-9',
      'claude',
      '',
      'claude-sonnet-4-5-extra',
    ]) {
      expect(priceFor(model), model).toBeUndefined();
      expect(costUsd(model, usage), model).toBeUndefined();
    }
  });

  it('covers every Claude family the SDK lists', () => {
    const sdkModels = [
      'claude-fable-5-2',
      'claude-mythos-5-2',
      'claude-haiku-5-5',
      'claude-sonnet-5-5',
      'claude-fable-5-1',
      'claude-opus-5-5',
      'claude-mythos-5-1',
      'claude-sonnet-5',
      'claude-fable-5',
      'claude-mythos-5',
      'claude-opus-5',
      'claude-opus-4-8',
      'claude-opus-4-7',
      'claude-opus-4-6',
      'claude-sonnet-4-6',
      'claude-haiku-4-5',
      'claude-opus-4-5',
      'claude-sonnet-4-5',
    ];
    for (const model of sdkModels) expect(priceFor(model), model).toBeDefined();
    expect(priceFor('claude-opus-4-6')?.outputPerMTok).toBe(25);
    expect(priceFor('claude-sonnet-4-6')?.inputPerMTok).toBe(3);
    expect(priceFor('claude-haiku-4-5')).toEqual({
      inputPerMTok: 1,
      outputPerMTok: 5,
      cacheWritePerMTok: 1.25,
      cacheReadPerMTok: 0.1,
    });
  });

  it('charges cache writes at 1.25× input everywhere, and reads at no more than 0.1×', () => {
    for (const { match, price } of PRICES) {
      for (const rates of [price, price.longPrompt?.price]) {
        if (!rates) continue;
        expect(rates.cacheWritePerMTok, match).toBeCloseTo(rates.inputPerMTok * 1.25, 9);
        expect(rates.cacheReadPerMTok, match).toBeLessThanOrEqual(rates.inputPerMTok * 0.1 + 1e-12);
      }
    }
    expect(new Set(PRICES.map((p) => p.match)).size).toBe(PRICES.length);
  });

  it('prices a long Haiku 5.5 request at its long-prompt rates', () => {
    const short = {
      input_tokens: 50_000,
      output_tokens: 1_000,
      cache_creation_input_tokens: 0,
      cache_read_input_tokens: 0,
    };
    const long = { ...short, cache_read_input_tokens: 60_000 };
    // ≤ 100k prompt: 50k × $0.10 + 1k × $0.50.
    expect(requestCostUsd('claude-haiku-5-5', short)).toBeCloseTo(0.0055, 12);
    // > 100k prompt: 50k × $0.50 + 60k × $0.05 + 1k × $2.50.
    expect(requestCostUsd('claude-haiku-5-5', long)).toBeCloseTo(0.0305, 12);
    expect(requestCostUsd('claude-sonnet-4-5', usage)).toBeCloseTo(0.021, 12);
    expect(requestCostUsd('glm-4.6', usage)).toBeUndefined();
  });
});
