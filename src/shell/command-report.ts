// What a finished command comes back as: the text the model reads (output, notes, the status line) and the facts
// about how it ended.
import type { CapturedOutput } from './output-capture.js';
import type { GroupRunResult } from './spawn-group.js';

export interface ExecResult {
  /** What the model sees: cleaned, merged output, truncated head + tail, then status lines. */
  text: string;
  exitCode: number | null;
  signal: NodeJS.Signals | null;
  timedOut: boolean;
  aborted: boolean;
  /** Timed out, aborted, or could not start. A non-zero exit alone is not an error. */
  isError: boolean;
  /** Directory for the next command. */
  cwd: string;
  /** Characters the command printed, before truncation. */
  outputChars: number;
  spillPath: string | null;
  durationMs: number;
}

/** An ExecResult before the directory and the duration are known. */
export type CommandReport = Omit<ExecResult, 'cwd' | 'durationMs'>;

/** What the model reads: the output, notes about the directory, then the status when there is one. */
export function report(
  outcome: GroupRunResult,
  captured: CapturedOutput,
  notes: string[],
  timeoutSec: number,
): CommandReport {
  const status = statusLine(outcome, timeoutSec);
  return {
    text: [captured.body.replace(/\n$/, ''), ...notes, ...(status ? [status] : [])].join('\n'),
    exitCode: outcome.exitCode,
    signal: outcome.signal,
    timedOut: outcome.timedOut,
    aborted: outcome.aborted,
    isError: outcome.timedOut || outcome.aborted || outcome.spawnError !== null,
    outputChars: captured.outputChars,
    spillPath: captured.spillPath,
  };
}

export function failure(text: string): CommandReport {
  return {
    text,
    exitCode: null,
    signal: null,
    timedOut: false,
    aborted: false,
    isError: true,
    outputChars: 0,
    spillPath: null,
  };
}

function statusLine(outcome: GroupRunResult, timeoutSec: number): string | null {
  if (outcome.spawnError !== null) return `failed to start the shell: ${outcome.spawnError}`;
  if (outcome.timedOut) return `timed out after ${timeoutSec} s (the process group was killed)`;
  if (outcome.aborted) return 'aborted (the process group was killed)';
  if (outcome.signal !== null) return `killed by signal ${outcome.signal}`;
  if (outcome.exitCode !== null && outcome.exitCode !== 0) return `exit code: ${outcome.exitCode}`;
  return null;
}
