import { addUsage, emptyUsage, promptTokens, type UsageReport, type UsageTotals } from './usage.js';

/** USD per million tokens. cacheWrite is the 5-minute write, the only TTL the product asks for. */
interface ModelPrice {
  inputPerMTok: number;
  outputPerMTok: number;
  cacheWritePerMTok: number;
  cacheReadPerMTok: number;
  /** Some models bill a whole request at higher rates once its prompt passes a size. */
  longPrompt?: { aboveTokens: number; price: BasePrice };
}

type BasePrice = Omit<ModelPrice, 'longPrompt'>;

/** The usual shape: writes cost 1.25× input and reads 0.1× input. */
function standard(inputPerMTok: number, outputPerMTok: number): BasePrice {
  return { inputPerMTok, outputPerMTok, cacheWritePerMTok: inputPerMTok * 1.25, cacheReadPerMTok: inputPerMTok * 0.1 };
}

/** Writes at the usual 1.25×, reads at a published price that differs from 0.1×. */
function cheapReads(inputPerMTok: number, outputPerMTok: number, cacheReadPerMTok: number): BasePrice {
  return { ...standard(inputPerMTok, outputPerMTok), cacheReadPerMTok };
}

const OPUS_4_5_TO_5 = standard(5, 25);
const OPUS_4_AND_4_1 = standard(15, 75);
const SONNET_4_X = standard(3, 15);
const FABLE_5 = standard(10, 50);
const FABLE_5_1 = cheapReads(10, 50, 0.25);
const FABLE_5_2 = cheapReads(8, 40, 0.2);
const HAIKU_5_5: ModelPrice = {
  ...cheapReads(0.1, 0.5, 0.01),
  longPrompt: { aboveTokens: 100_000, price: cheapReads(0.5, 2.5, 0.05) },
};

/**
 * List prices of the Claude API, from platform.claude.com/docs/en/about-claude/pricing and
 * the per-model overview pages, as published in November 2026. Notes:
 * - Mythos models share the Fable model of the same version's specifications and prices.
 * - Fable 5.1 / Mythos 5.1 reads are 0.025× input; Opus 5.5 and Sonnet 5.5 reads 0.05×
 *   (Sonnet 5.5's were cut from $0.20 to $0.10 on 2026-10-07); Fable 5.2 reads are $0.20.
 * - Haiku 5.5 bills a request whose prompt (input + cache writes + cache reads) is over
 *   100,000 tokens at five times the base rates, output included.
 * - Left out: claude-mythos-preview (no published list price found), the 1-hour cache
 *   write (2× input, not used here), fast mode and regional-inference surcharges, and the
 *   long-context rates of Sonnet 4 / 4.5, which apply only with the 1M-context beta.
 * Entries match a model id exactly; dated snapshots are matched through their alias.
 */
export const PRICES: ReadonlyArray<{ match: string; price: ModelPrice }> = [
  { match: 'claude-fable-5-2', price: FABLE_5_2 },
  { match: 'claude-mythos-5-2', price: FABLE_5_2 },
  { match: 'claude-fable-5-1', price: FABLE_5_1 },
  { match: 'claude-mythos-5-1', price: FABLE_5_1 },
  { match: 'claude-fable-5', price: FABLE_5 },
  { match: 'claude-mythos-5', price: FABLE_5 },
  { match: 'claude-opus-5-5', price: cheapReads(4, 20, 0.2) },
  { match: 'claude-opus-5', price: OPUS_4_5_TO_5 },
  { match: 'claude-opus-4-8', price: OPUS_4_5_TO_5 },
  { match: 'claude-opus-4-7', price: OPUS_4_5_TO_5 },
  { match: 'claude-opus-4-6', price: OPUS_4_5_TO_5 },
  { match: 'claude-opus-4-5', price: OPUS_4_5_TO_5 },
  { match: 'claude-opus-4-1', price: OPUS_4_AND_4_1 },
  { match: 'claude-opus-4-0', price: OPUS_4_AND_4_1 },
  { match: 'claude-opus-4', price: OPUS_4_AND_4_1 },
  { match: 'claude-sonnet-5-5', price: cheapReads(2, 10, 0.1) },
  { match: 'claude-sonnet-5', price: standard(2, 10) },
  { match: 'claude-sonnet-4-6', price: SONNET_4_X },
  { match: 'claude-sonnet-4-5', price: SONNET_4_X },
  { match: 'claude-sonnet-4-0', price: SONNET_4_X },
  { match: 'claude-sonnet-4', price: SONNET_4_X },
  { match: 'claude-haiku-5-5', price: HAIKU_5_5 },
  { match: 'claude-haiku-4-5', price: standard(1, 5) },
];

const BY_ID = new Map(PRICES.map((entry) => [entry.match, entry.price]));

/** A dated snapshot id (claude-sonnet-4-5-20250929, or claude-opus-4-5@20251101) without its date. */
function withoutSnapshotDate(model: string): string {
  return model.replace(/[-@]\d{8}$/, '');
}

export function priceFor(model: string): ModelPrice | undefined {
  const id = model.trim().toLowerCase();
  return BY_ID.get(id) ?? BY_ID.get(withoutSnapshotDate(id));
}

function costAt(price: BasePrice, usage: UsageTotals): number {
  const dollars =
    usage.input_tokens * price.inputPerMTok +
    usage.output_tokens * price.outputPerMTok +
    usage.cache_creation_input_tokens * price.cacheWritePerMTok +
    usage.cache_read_input_tokens * price.cacheReadPerMTok;
  return dollars / 1_000_000;
}

/**
 * The cost of usage summed over a run. For a model with long-prompt rates a sum cannot tell
 * which requests were long, so this prices it all at the base rates: a lower bound. Summing
 * requestCostUsd over the calls gives the exact figure.
 */
export function costUsd(model: string, usage: UsageTotals): number | undefined {
  const price = priceFor(model);
  return price ? costAt(price, usage) : undefined;
}

/** The exact cost of one model call, long-prompt rates included. */
export function requestCostUsd(model: string, usage: UsageReport): number | undefined {
  const price = priceFor(model);
  if (!price) return undefined;
  const totals = addUsage(emptyUsage(), usage);
  const long = price.longPrompt;
  const rates = long && promptTokens(totals) > long.aboveTokens ? long.price : price;
  return costAt(rates, totals);
}
