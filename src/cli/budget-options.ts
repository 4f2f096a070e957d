import { priceFor } from '../api/pricing.js';
import type { RunBudget } from '../config.js';
import { UsageError } from '../outcome.js';

/** A timer cannot wait longer than about 24.8 days. */
const MAX_DURATION_SEC = 24 * 24 * 3600;

export interface RawBudgetOptions {
  maxBudgetUsd?: string;
  maxDuration?: string;
}

/**
 * --max-budget-usd and --max-duration, checked: positive numbers, and a known price for the model, without which a
 * budget would be a silent no-op. (The price table is in the chunk the run loads anyway.)
 */
export function resolveBudget(raw: RawBudgetOptions, models: string[]): RunBudget {
  const maxCostUsd = positiveNumber('--max-budget-usd', raw.maxBudgetUsd);
  const model = models.find((id) => !priceFor(id));
  if (maxCostUsd !== undefined && model !== undefined) {
    throw new UsageError(
      `--max-budget-usd needs the model's price, and the price of '${model}' is not known.\n` +
        'Choose a model from the price table (see docs/context-and-cost.md), or bound the run with --max-turns and --max-duration.',
    );
  }
  const maxDurationSec = positiveNumber('--max-duration', raw.maxDuration);
  if (maxDurationSec !== undefined && maxDurationSec > MAX_DURATION_SEC) {
    throw new UsageError(
      `--max-duration must be at most ${MAX_DURATION_SEC} seconds (24 days); got '${raw.maxDuration}'.`,
    );
  }
  return { maxCostUsd, maxDurationSec };
}

function positiveNumber(flag: string, value: string | undefined): number | undefined {
  if (value === undefined) return undefined;
  const number = /^\s*(\d+(\.\d*)?|\.\d+)\s*$/.test(value) ? Number(value) : Number.NaN;
  if (!(number > 0 && Number.isFinite(number)))
    throw new UsageError(`${flag} must be a number greater than 0; got '${value}'.`);
  return number;
}
