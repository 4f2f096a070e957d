/** How a run ended: the loop returns one; the command line prints it and exits with exitCodeFor(outcome). */
export type OutcomeKind =
  | 'success'
  | 'max_turns'
  | 'max_tokens'
  | 'refusal'
  | 'context'
  | 'api_error'
  | 'usage'
  | 'interrupted'
  | 'structured_output';

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

/** The exit code of a run stopped from outside: 128 + the signal's number (EPIPE as SIGPIPE would end it). */
export const STOP_EXIT_CODES: Record<StopCause, number> = { SIGINT: 130, SIGTERM: 143, EPIPE: 141 };

export const SUBTYPES: Record<OutcomeKind, string> = {
  success: 'success',
  max_turns: 'error_max_turns',
  max_tokens: 'error_max_tokens',
  refusal: 'error_refusal',
  context: 'error_context',
  api_error: 'error_api',
  usage: 'error_usage',
  interrupted: 'error_interrupted',
  structured_output: 'error_structured_output',
};

export function exitCodeFor(outcome: Outcome): number {
  switch (outcome.kind) {
    case 'success':
      return 0;
    case 'usage':
      return 2;
    case 'api_error':
      return 3;
    case 'interrupted':
      return STOP_EXIT_CODES[outcome.signal ?? 'SIGINT'];
    default:
      return 1;
  }
}

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

/** The Outcome of a run stopped through its AbortSignal, from the reason the signal carries. */
export function stoppedOutcome(signal: AbortSignal, finalText = ''): Outcome {
  const reason = signal.reason instanceof Interrupted ? signal.reason : new Interrupted('SIGINT');
  return { kind: 'interrupted', stopReason: null, finalText, signal: reason.signalName, message: `${reason.message}.` };
}
