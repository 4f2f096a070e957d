import type { OutcomeKind, StopCause } from '../outcome.js';

/**
 * How the command ends: a run's outcome (a usage error included), or what happened around the run. This one shape
 * carries every failure to the place that tells it and exits; `message` is for people.
 */
export interface Ending {
  kind: OutcomeKind | 'help_shown' | 'result_unwritable' | 'internal_error';
  signal?: StopCause;
  message?: string;
}

/** The exit code of a run stopped from outside: 128 + the signal's number (EPIPE as SIGPIPE would end it). */
const STOP_EXIT_CODES: Record<StopCause, number> = { SIGINT: 130, SIGTERM: 143, EPIPE: 141 };

/** The exit status of every way the command can end; nothing else decides one. */
export function exitCodeFor(ending: Pick<Ending, 'kind' | 'signal'>): number {
  switch (ending.kind) {
    case 'success':
    case 'help_shown':
      return 0;
    case 'usage':
      return 2;
    case 'api_error':
      return 3;
    case 'interrupted':
      return STOP_EXIT_CODES[ending.signal ?? 'SIGINT'];
    default:
      // The run's limits, a refusal, an unfinished answer; a result that cannot be written; a bug.
      return 1;
  }
}
