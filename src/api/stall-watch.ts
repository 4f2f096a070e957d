/**
 * Aborts a model call whose stream goes silent. The SDK's own timeout covers only the wait for response headers,
 * so a connection that stops sending mid-stream would otherwise hang the run for good.
 */
export interface StallWatch {
  /** Pass this to the request instead of the run's signal: it aborts on the run's signal and on a stall. */
  readonly signal: AbortSignal;
  /** Call on every sign of life from the stream. */
  readonly touch: () => void;
  stalled(): boolean;
  stop(): void;
}

export function watchForStall(runSignal: AbortSignal, idleMs: number): StallWatch {
  const controller = new AbortController();
  let stalled = false;
  const onRunAbort = () => controller.abort(runSignal.reason);
  runSignal.addEventListener('abort', onRunAbort, { once: true });
  const fire = () => {
    stalled = true;
    controller.abort(new Error(`no data from the API for ${idleMs / 1000} s`));
  };
  const timer = setTimeout(fire, idleMs);
  return {
    signal: controller.signal,
    // Restarts the same timer: nothing is allocated per chunk.
    touch: () => timer.refresh(),
    stalled: () => stalled,
    stop: () => {
      clearTimeout(timer);
      runSignal.removeEventListener('abort', onRunAbort);
    },
  };
}
