// What the product knows of each model: every model it knows the thinking of also has a price, the default among them.
import { describe, expect, it } from 'vitest';
import { maxOutputTokensOf, thinkingStyleOf } from '../src/api/model-facts.js';
import { priceFor } from '../src/api/pricing.js';
import { DEFAULTS } from '../src/cli/defaults.js';

describe('model facts', () => {
  it('the default model thinks adaptively, writes up to 128k tokens, and has a price', () => {
    expect(thinkingStyleOf(DEFAULTS.model)).toBe('adaptive');
    expect(maxOutputTokensOf(DEFAULTS.model)).toBe(128_000);
    expect(priceFor(DEFAULTS.model)).toBeDefined();
  });

  it('dated snapshots match their alias; unknown models are unknown', () => {
    expect(thinkingStyleOf('claude-sonnet-4-5-20250929')).toBe('budget');
    expect(thinkingStyleOf('claude-opus-4-5@20251101')).toBe('budget');
    expect(thinkingStyleOf('gateway-model')).toBeUndefined();
  });

  it.each([
    'claude-sonnet-5-5',
    'claude-opus-5-5',
    'claude-haiku-5-5',
    'claude-fable-5-2',
    'claude-sonnet-4-6',
    'claude-opus-4-8',
  ])('%s is adaptive and priced', (model) => {
    expect(thinkingStyleOf(model)).toBe('adaptive');
    expect(priceFor(model)).toBeDefined();
  });

  it.each(['claude-sonnet-4-5', 'claude-opus-4-5', 'claude-haiku-4-5', 'claude-opus-4-1'])(
    '%s takes a budget and is priced',
    (model) => {
      expect(thinkingStyleOf(model)).toBe('budget');
      expect(priceFor(model)).toBeDefined();
    },
  );
});
