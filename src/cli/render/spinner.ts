import type { Style } from './style.js';
import { clip, formatElapsed } from './format.js';
import { nowMs } from '../../clock.js';

/** The one transient line at the bottom of a terminal: a spinner, a label, and the seconds since `since`. */
export interface Spinner {
  /** Shows the line, or replaces the one shown. Call it only with the cursor at the start of a line. */
  start(label: string, since: number): void;
  /** Removes the line and leaves the cursor at its start. Writes nothing when no line is shown. */
  stop(): void;
}

/** Room kept on the line for the frame, the elapsed time and a spare column, so that the line never wraps. */
const RESERVED_COLUMNS = 14;
const TICK_MS = 250;

/**
 * An ora spinner on a terminal. ora writes cursor movements even when asked to stop a spinner that is not spinning,
 * so this wrapper only ever stops one that spins.
 */
export async function createSpinner(
  stream: NodeJS.WriteStream,
  style: Style,
  columns: number,
  term: string | undefined,
): Promise<Spinner> {
  const { default: ora, spinners } = await import('ora');
  const frames = (term === 'linux' ? spinners.line : spinners.dots).frames.map((frame) => style.cyan(frame));
  const spinner = ora({
    stream,
    discardStdin: false,
    isEnabled: true,
    color: false,
    spinner: { interval: 80, frames },
  });
  let timer: NodeJS.Timeout | undefined;

  const text = (label: string, since: number) => {
    const seconds = Math.floor((nowMs() - since) / 1000);
    const elapsed = seconds >= 1 ? style.dim(`  ${formatElapsed(seconds)}`) : '';
    return `${clip(label, Math.max(10, columns - RESERVED_COLUMNS))}${elapsed}`;
  };
  return {
    start(label, since) {
      clearInterval(timer);
      spinner.text = text(label, since);
      if (!spinner.isSpinning) spinner.start();
      timer = setInterval(() => (spinner.text = text(label, since)), TICK_MS).unref();
    },
    stop() {
      clearInterval(timer);
      timer = undefined;
      if (spinner.isSpinning) spinner.stop();
    },
  };
}
