import type Anthropic from '@anthropic-ai/sdk';

/** Token usage summed over every model call of a run, as the API reported it. */
export interface UsageTotals {
  input_tokens: number;
  output_tokens: number;
  cache_creation_input_tokens: number;
  cache_read_input_tokens: number;
}

/** The usage fields that make up a request's prompt; cache fields may be absent or null. */
export interface PromptUsage {
  input_tokens: number;
  cache_creation_input_tokens?: number | null;
  cache_read_input_tokens?: number | null;
}

/** One call's usage as the API reports it (Usage, or a stream's MessageDeltaUsage); any field may be null. */
export interface UsageReport {
  input_tokens?: number | null;
  output_tokens?: number | null;
  cache_creation_input_tokens?: number | null;
  cache_read_input_tokens?: number | null;
}

export function emptyUsage(): UsageTotals {
  return { input_tokens: 0, output_tokens: 0, cache_creation_input_tokens: 0, cache_read_input_tokens: 0 };
}

/** A reported count as a usable number: null, missing, negative or non-finite values count as 0. */
function count(value: number | null | undefined): number {
  return typeof value === 'number' && Number.isFinite(value) && value > 0 ? value : 0;
}

/** Returns a new total; neither argument is changed. */
export function addUsage(
  total: UsageTotals,
  u: UsageReport | Partial<Anthropic.Usage> | null | undefined,
): UsageTotals {
  if (!u) return { ...total };
  return {
    input_tokens: total.input_tokens + count(u.input_tokens),
    output_tokens: total.output_tokens + count(u.output_tokens),
    cache_creation_input_tokens: total.cache_creation_input_tokens + count(u.cache_creation_input_tokens),
    cache_read_input_tokens: total.cache_read_input_tokens + count(u.cache_read_input_tokens),
  };
}

/**
 * The prompt tokens expressed as what they would cost at the plain input price:
 * a 5-minute cache write costs 1.25× input, a cache read 0.1×. Comparing this with
 * promptTokens shows how much caching saved.
 */
export function billedEquivalentInput(u: UsageTotals): number {
  return count(u.input_tokens) + 1.25 * count(u.cache_creation_input_tokens) + 0.1 * count(u.cache_read_input_tokens);
}

/** The full size of a request's prompt: input_tokens counts only the uncached part. */
export function promptTokens(u: PromptUsage): number {
  return count(u.input_tokens) + count(u.cache_creation_input_tokens) + count(u.cache_read_input_tokens);
}
