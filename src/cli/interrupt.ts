import { Interrupted, type StopCause } from '../outcome.js';
import { exitWith } from './exit.js';

/** An interrupted run must be gone within 2 s; this is how long the orderly path may take before the process just exits. */
const INTERRUPT_DEADLINE_MS = 1_800;

/**
 * First SIGINT or SIGTERM: abort the request, kill the command, and let the run end with what it knows (the normal
 * path prints the result, before the run as during it); if that takes too long, exit anyway. A second signal exits
 * at once.
 */
export function installSignalHandlers(controller: AbortController, cleanup: () => void): void {
  let received = 0;
  for (const name of ['SIGINT', 'SIGTERM'] as const) {
    process.on(name, () => {
      received++;
      if (received > 1) {
        cleanup();
        exitWith({ kind: 'interrupted', signal: name }, { now: true });
      }
      stopRun(controller, name, cleanup);
    });
  }
}

/**
 * Stops the run from outside (a signal, or stdout's reader gone): aborts it so that it ends the orderly way, and
 * exits anyway if that takes longer than the deadline. Only the first cause counts.
 */
export function stopRun(controller: AbortController, cause: StopCause, cleanup: () => void): void {
  if (controller.signal.aborted) return;
  controller.abort(new Interrupted(cause));
  setTimeout(() => {
    cleanup();
    exitWith({ kind: 'interrupted', signal: cause }, { now: true });
  }, INTERRUPT_DEADLINE_MS).unref();
}

/** The promise's value, or undefined as soon as the signal aborts (the promise is left to settle unobserved). */
export function unlessAborted<T>(promise: Promise<T>, signal: AbortSignal): Promise<T | undefined> {
  if (signal.aborted) return Promise.resolve(undefined);
  return new Promise((resolve, reject) => {
    const onAbort = () => resolve(undefined);
    signal.addEventListener('abort', onAbort, { once: true });
    promise.then(resolve, reject).finally(() => signal.removeEventListener('abort', onAbort));
  });
}
