/** How a run ended: the loop returns one; the command line prints it and decides the exit status (cli/exit-code.ts). */
export type OutcomeKind =
  | 'success'
  | 'max_turns'
  | 'max_tokens'
  | 'refusal'
  | 'context'
  | 'api_error'
  | 'usage'
  | 'interrupted'
  | 'structured_output'
  | 'max_budget_usd'
  | 'max_duration';

export interface Outcome {
  kind: OutcomeKind;
  /** The final answer (success), or whatever text the model produced last. */
  finalText: string;
  stopReason: string | null;
  /** A plain sentence for people: why the run did not finish. */
  message?: string;
  signal?: StopCause;
}

/** What stops a run from outside: a signal, or stdout's reader going away (EPIPE), which stops it like a signal. */
export type StopCause = 'SIGINT' | 'SIGTERM' | 'EPIPE';

/** A bad flag, value, prompt or environment: exit 2 before any request is sent. */
export class UsageError extends Error {
  override name = 'UsageError';
}

/** The reason an AbortSignal carries when the run is stopped by SIGINT, SIGTERM or a broken stdout pipe. */
export class Interrupted extends Error {
  override name = 'Interrupted';
  constructor(readonly signalName: StopCause) {
    super(signalName === 'EPIPE' ? "Stopped: stdout's reader went away (EPIPE)" : `Interrupted by ${signalName}`);
  }
}

/** The reason an AbortSignal carries when the run reaches --max-duration. */
export class DeadlineReached extends Error {
  override name = 'DeadlineReached';
  constructor(readonly seconds: number) {
    super(`Stopped at the --max-duration limit of ${seconds} s.`);
  }
}

/** The reason an AbortSignal carries when the run's cost reaches --max-budget-usd before a model call. */
export class BudgetReached extends Error {
  override name = 'BudgetReached';
  constructor(limitUsd: number, spentUsd: number) {
    super(
      `Stopped: the run has cost $${spentUsd.toFixed(4)}, which reaches --max-budget-usd ${limitUsd}; no further model call was made.`,
    );
  }
}

/** The Outcome of a run stopped through its AbortSignal, from the reason the signal carries. */
export function stoppedOutcome(signal: AbortSignal, finalText = ''): Outcome {
  const reason: unknown = signal.reason;
  if (reason instanceof DeadlineReached)
    return { kind: 'max_duration', stopReason: null, finalText, message: reason.message };
  if (reason instanceof BudgetReached)
    return { kind: 'max_budget_usd', stopReason: null, finalText, message: reason.message };
  const interrupted = reason instanceof Interrupted ? reason : new Interrupted('SIGINT');
  return {
    kind: 'interrupted',
    stopReason: null,
    finalText,
    signal: interrupted.signalName,
    message: `${interrupted.message}.`,
  };
}
