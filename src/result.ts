import type { Outcome } from './outcome.js';
import { exitCodeFor, SUBTYPES } from './outcome.js';
import { emptyUsage, type UsageTotals } from './api/usage.js';

/** The machine-readable summary of a run: `--output-format json`, and the last line of `stream-json`. */
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
  session_id: string;
  error?: string;
  /** The answer as a JSON value, with --json-schema. */
  structured_output?: unknown;
}

export interface RunFacts {
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
  sessionId: string;
}

export function buildResult(facts: RunFacts): ResultObject {
  const { outcome } = facts;
  const cost = facts.costUsd;
  return {
    type: 'result',
    subtype: SUBTYPES[outcome.kind],
    is_error: outcome.kind !== 'success',
    result: outcome.finalText,
    stop_reason: outcome.stopReason,
    num_turns: facts.numTurns,
    duration_ms: Math.round(facts.durationMs),
    duration_api_ms: Math.round(facts.apiMs),
    model: facts.model,
    usage: facts.usage,
    ...(cost === undefined ? {} : { total_cost_usd: Number(cost.toFixed(6)) }),
    commands: facts.commands,
    exit_code: exitCodeFor(outcome),
    session_id: facts.sessionId,
    ...(outcome.message ? { error: outcome.message } : {}),
    ...(facts.structured ? { structured_output: facts.structured.value } : {}),
  };
}

/**
 * The result object of a run that ended before its first request: a usage error, or a signal while reading the prompt.
 * A run stopped before its session was set up still has an id of its own, under which nothing is saved.
 */
export function resultBeforeRun(outcome: Outcome, model: string, startedAt: number, sessionId: string): ResultObject {
  return buildResult({
    outcome,
    model,
    numTurns: 0,
    commands: 0,
    usage: emptyUsage(),
    costUsd: undefined,
    durationMs: performance.now() - startedAt,
    apiMs: 0,
    sessionId,
  });
}
