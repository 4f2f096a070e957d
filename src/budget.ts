import type { RunBudget } from './config.js';
import type { CallModel, ModelStats } from './api/model.js';
import { BudgetReached, DeadlineReached } from './outcome.js';
import { nowMs } from './clock.js';

/**
 * Aborts the run with DeadlineReached when --max-duration has passed since `startedAt` (a nowMs() time):
 * the request in flight is aborted, a retry's wait ends, the running command's group is killed. Returns a disarm.
 */
export function armDeadline(controller: AbortController, budget: RunBudget, startedAt: number): () => void {
  const seconds = budget.maxDurationSec;
  if (seconds === undefined) return () => {};
  const delayMs = Math.max(0, startedAt + seconds * 1000 - nowMs());
  const timer = setTimeout(() => controller.abort(new DeadlineReached(seconds)), delayMs);
  // The run's own work keeps the process alive; the deadline alone must not.
  timer.unref();
  return () => clearTimeout(timer);
}

/** A controller of the run's own that follows the caller's signal, so the run can also stop itself. */
export function followingController(parent: AbortSignal): AbortController {
  const controller = new AbortController();
  if (parent.aborted) controller.abort(parent.reason);
  else parent.addEventListener('abort', () => controller.abort(parent.reason), { once: true });
  return controller;
}

/**
 * The model call behind --max-budget-usd: once the run's cost has reached the limit, the call does not start; the
 * run is stopped with BudgetReached instead, and the loop ends it as any stopped run.
 */
export function withCostLimit(
  callModel: CallModel,
  budget: RunBudget,
  stats: ModelStats,
  stop: AbortController,
): CallModel {
  const limit = budget.maxCostUsd;
  if (limit === undefined) return callModel;
  return async (messages, turn, signal) => {
    const spent = stats.costUsd ?? 0;
    if (spent < limit) return callModel(messages, turn, signal);
    stop.abort(new BudgetReached(limit, spent));
    return { ok: false, failure: { kind: 'aborted' } };
  };
}
