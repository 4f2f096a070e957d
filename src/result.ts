import type { Outcome } from './outcome.js';
import type { UsageTotals } from './api/usage.js';

/**
 * The machine-readable summary of a run: `--output-format json`, and the last line of `stream-json`. The command
 * line builds it from the run's report (src/cli/result-object.ts).
 */
export interface ResultObject {
  type: 'result';
  subtype: string;
  is_error: boolean;
  result: string;
  stop_reason: string | null;
  num_turns: number;
  duration_ms: number;
  duration_api_ms: number;
  model: string;
  usage: UsageTotals;
  total_cost_usd?: number;
  commands: number;
  exit_code: number;
  /** Absent when the run never started (a usage error): there is no session to resume. */
  session_id?: string;
  error?: string;
  /** The answer as a JSON value, with --json-schema. */
  structured_output?: unknown;
}

/** What a run reports as it ends: how it ended, and what it did on the way. */
export interface RunReport {
  outcome: Outcome;
  model: string;
  numTurns: number;
  commands: number;
  usage: UsageTotals;
  costUsd: number | undefined;
  durationMs: number;
  apiMs: number;
  /** The answer accepted against --json-schema; `value` may be any JSON value, null included. */
  structured?: { value: unknown };
}
