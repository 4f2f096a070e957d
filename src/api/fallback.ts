import type { ModelFailure } from './failure.js';
import type { FailureClass } from './retry.js';
import type { ModelPlan } from '../config.js';

type ApiFailure = Extract<ModelFailure, { kind: 'api' }>;
export type SwitchReason = 'overloaded' | 'not_found';

const REASON_TEXT: Record<SwitchReason, string> = { overloaded: 'is overloaded', not_found: 'was not found' };

/** Retries ended on an overloaded model: a 529, or `overloaded_error` in the stream. */
export function overloaded(failure: Extract<FailureClass, { kind: 'retryable' }>): boolean {
  return failure.status === 529 || /overloaded/i.test(failure.reason);
}

/** The API says the model does not exist: a 404 `not_found_error` that names the model. */
export function modelNotFound(failure: ApiFailure): boolean {
  return failure.status === 404 && /model/i.test(failure.message);
}

/**
 * The model a run asks, and --fallback-model: on the first failure that names the main model (overloaded after the
 * retries, or not found) the run switches to the fallback for good, with one warning that names both.
 */
export class ModelSwitch {
  plan: ModelPlan;
  private switchedFor: SwitchReason | undefined;

  constructor(
    private readonly plans: { main: ModelPlan; fallback: ModelPlan | undefined },
    private readonly warn: (message: string) => void,
  ) {
    this.plan = plans.main;
  }

  /** True when the run has just switched, and the call is to be made again with the fallback. */
  switchFor(reason: SwitchReason, failure: ApiFailure): boolean {
    const { main, fallback } = this.plans;
    if (!fallback || this.switchedFor !== undefined) return false;
    this.switchedFor = reason;
    this.plan = fallback;
    const why = failure.message.replace(/\.$/, '');
    this.warn(
      `${main.model} ${REASON_TEXT[reason]} (${why}); switching to the fallback model ${fallback.model} for the rest of the run.`,
    );
    return true;
  }

  /** A failure as the run reports it: once switched, it names both models. */
  describe(failure: ApiFailure, reason: SwitchReason | undefined): ApiFailure {
    if (this.switchedFor === undefined) return failure;
    const { main, fallback } = this.plans;
    const first = `${main.model} ${REASON_TEXT[this.switchedFor]}`;
    const then = `the fallback model ${fallback!.model} ${reason === undefined ? 'failed' : REASON_TEXT[reason]}`;
    const message =
      reason === this.switchedFor
        ? `${first}, and ${then} too: ${failure.message}`
        : `${first}; ${then}: ${failure.message}`;
    return { ...failure, message };
  }
}
