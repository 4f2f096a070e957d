import { emptyUsage } from '../api/usage.js';
import type { Outcome, OutcomeKind } from '../outcome.js';
import type { ResultObject, RunReport } from '../result.js';
import { exitCodeFor } from './exit-code.js';
import { nowMs } from '../clock.js';

const SUBTYPES: Record<OutcomeKind, string> = {
  success: 'success',
  max_turns: 'error_max_turns',
  max_tokens: 'error_max_tokens',
  refusal: 'error_refusal',
  context: 'error_context',
  api_error: 'error_api',
  usage: 'error_usage',
  interrupted: 'error_interrupted',
  structured_output: 'error_structured_output',
  max_budget_usd: 'error_max_budget_usd',
  max_duration: 'error_max_duration',
};

/** The result object of a run; `sessionId` is undefined when the run never started and so has no session. */
export function resultObject(report: RunReport, sessionId: string | undefined): ResultObject {
  const { outcome } = report;
  const cost = report.costUsd;
  return {
    type: 'result',
    subtype: SUBTYPES[outcome.kind],
    is_error: outcome.kind !== 'success',
    result: outcome.finalText,
    stop_reason: outcome.stopReason,
    num_turns: report.numTurns,
    duration_ms: Math.round(report.durationMs),
    duration_api_ms: Math.round(report.apiMs),
    model: report.model,
    usage: report.usage,
    ...(cost === undefined ? {} : { total_cost_usd: Number(cost.toFixed(6)) }),
    commands: report.commands,
    exit_code: exitCodeFor(outcome),
    ...(sessionId === undefined ? {} : { session_id: sessionId }),
    ...(outcome.message ? { error: outcome.message } : {}),
    ...(report.structured ? { structured_output: report.structured.value } : {}),
  };
}

/** The report of a run that ended before its first request: a usage error, or a signal while reading the prompt. */
export function reportBeforeRun(outcome: Outcome, model: string, startedAt: number): RunReport {
  return {
    outcome,
    model,
    numTurns: 0,
    commands: 0,
    usage: emptyUsage(),
    costUsd: undefined,
    durationMs: nowMs() - startedAt,
    apiMs: 0,
  };
}
