import { fstatSync } from 'node:fs';

/** Why stdout could not be written: its reader went away (EPIPE), or anything else (a full disk, an I/O error). */
type StdoutFailure = { kind: 'broken_pipe' } | { kind: 'write_error'; message: string };

export interface Stdout {
  /** Writes; never throws. After a failure, writes are dropped. */
  write(text: string): void;
  /** Writes and resolves once the text is handed to the system, or has failed. */
  flush(text: string): Promise<void>;
  /** The first failure, if any. */
  failure(): StdoutFailure | undefined;
}

/**
 * stdout, watched: the first failure is reported once through `onFailure` (the caller stops the run on EPIPE), and
 * later ones are ignored. Errors never escape as exceptions.
 */
export function watchStdout(stream: NodeJS.WritableStream, onFailure: (failure: StdoutFailure) => void): Stdout {
  let failed: StdoutFailure | undefined;
  const fail = (error: unknown) => {
    if (failed) return;
    const code = (error as NodeJS.ErrnoException)?.code;
    failed = code === 'EPIPE' ? { kind: 'broken_pipe' } : { kind: 'write_error', message: describeError(error) };
    onFailure(failed);
  };
  stream.on('error', fail);

  const write = (text: string, done?: () => void) => {
    if (failed || text === '') return done?.();
    try {
      stream.write(text, (error?: Error | null) => {
        if (error) fail(error);
        done?.();
      });
    } catch (error) {
      fail(error);
      done?.();
    }
  };
  return {
    write: (text) => write(text),
    flush: (text) => new Promise((resolve) => write(text, resolve)),
    failure: () => failed,
  };
}

/** `no space left on device (ENOSPC)` from Node's `ENOSPC: no space left on device, write`. */
function describeError(error: unknown): string {
  const { code, message } = (error ?? {}) as NodeJS.ErrnoException;
  const match = typeof message === 'string' ? /^[A-Z0-9_]+: (.+?)(?:, \w+)?$/.exec(message) : null;
  const text = match?.[1] ?? (typeof message === 'string' && message !== '' ? message : String(error));
  return code && !text.includes(code) ? `${text} (${code})` : text;
}

/** stderr's own failures (its reader gone, a full disk) are not the run's: what is written after one is dropped. */
export function writeStderr(text: string): void {
  if (stderrFailed || text === '') return;
  try {
    process.stderr.write(text);
  } catch {
    stderrFailed = true;
  }
}

let stderrFailed = false;

/**
 * Drops stderr's writes after its first failure. When stderr is stdout's pipe (`2>&1 | head`), its reader gone is
 * stdout's reader gone, found out sooner: `onBrokenPipe` is called then.
 */
export function watchStderr(onBrokenPipe: () => void): void {
  process.stderr.on('error', (error: NodeJS.ErrnoException) => {
    const first = !stderrFailed;
    stderrFailed = true;
    if (first && error?.code === 'EPIPE' && stdoutIsStderr()) onBrokenPipe();
  });
}

/** stdout and stderr lead to the same terminal, file or pipe (`>log 2>&1`). */
export function stdoutIsStderr(): boolean {
  try {
    const out = fstatSync(1);
    const err = fstatSync(2);
    return out.dev === err.dev && out.ino === err.ino && out.rdev === err.rdev;
  } catch {
    return false;
  }
}
