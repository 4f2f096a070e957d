// What the product knows of each model beyond its price: how it takes thinking, and how many tokens it may write.
// Ids match exactly or through their alias (a dated snapshot), as the price table does.

/** `adaptive`: `thinking: {type: "adaptive"}`, with output_config.effort; `budget`: `{type: "enabled", budget_tokens}`. */
type ThinkingStyle = 'adaptive' | 'budget';

interface ModelFacts {
  thinking: ThinkingStyle;
  /** The most output tokens one call may ask for. */
  maxOutputTokens: number;
}

const ADAPTIVE_128K: ModelFacts = { thinking: 'adaptive', maxOutputTokens: 128_000 };
const ADAPTIVE_64K: ModelFacts = { thinking: 'adaptive', maxOutputTokens: 64_000 };
const BUDGET_64K: ModelFacts = { thinking: 'budget', maxOutputTokens: 64_000 };
const BUDGET_32K: ModelFacts = { thinking: 'budget', maxOutputTokens: 32_000 };

/** From the per-model overview pages of platform.claude.com, November 2026. */
const FACTS: ReadonlyArray<[id: string, facts: ModelFacts]> = [
  ['claude-fable-5-2', ADAPTIVE_128K],
  ['claude-mythos-5-2', ADAPTIVE_128K],
  ['claude-fable-5-1', ADAPTIVE_128K],
  ['claude-mythos-5-1', ADAPTIVE_128K],
  ['claude-fable-5', ADAPTIVE_128K],
  ['claude-mythos-5', ADAPTIVE_128K],
  ['claude-mythos-preview', ADAPTIVE_128K],
  ['claude-opus-5-5', ADAPTIVE_128K],
  ['claude-opus-5', ADAPTIVE_128K],
  ['claude-opus-4-8', ADAPTIVE_128K],
  ['claude-opus-4-7', ADAPTIVE_128K],
  ['claude-opus-4-6', ADAPTIVE_128K],
  ['claude-sonnet-5-5', ADAPTIVE_128K],
  ['claude-sonnet-5', ADAPTIVE_128K],
  ['claude-sonnet-4-6', ADAPTIVE_64K],
  ['claude-haiku-5-5', ADAPTIVE_128K],
  ['claude-opus-4-5', BUDGET_64K],
  ['claude-opus-4-1', BUDGET_32K],
  ['claude-opus-4-0', BUDGET_32K],
  ['claude-opus-4', BUDGET_32K],
  ['claude-sonnet-4-5', BUDGET_64K],
  ['claude-sonnet-4-0', BUDGET_64K],
  ['claude-sonnet-4', BUDGET_64K],
  ['claude-haiku-4-5', BUDGET_64K],
];

const BY_ID = new Map(FACTS);

function factsFor(model: string): ModelFacts | undefined {
  const id = model.trim().toLowerCase();
  return BY_ID.get(id) ?? BY_ID.get(id.replace(/[-@]\d{8}$/, '').replace(/-latest$/, ''));
}

export function thinkingStyleOf(model: string): ThinkingStyle | undefined {
  return factsFor(model)?.thinking;
}

export function maxOutputTokensOf(model: string): number | undefined {
  return factsFor(model)?.maxOutputTokens;
}
