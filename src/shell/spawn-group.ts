import { spawn } from 'node:child_process';
import type { ChildProcess } from 'node:child_process';
import type { Readable } from 'node:stream';
import { groupHasRunningMembers, signalGroup } from './process-groups.js';

/**
 * Runs one argv as the leader of a new process group (and session, so it has no controlling
 * terminal to prompt on) and settles when the leader exits.
 *
 * This uses node:child_process rather than zx: we need a detached group leader, a stdout pipe
 * that stays readable (never closed under a background child), and completion on process exit
 * rather than on pipe close, which zx's ProcessPromise does not expose.
 */
export type StreamName = 'stdout' | 'stderr';

export interface GroupRunOptions {
  argv: readonly string[];
  cwd: string;
  env: Record<string, string>;
  timeoutMs: number;
  signal?: AbortSignal;
  /** Between SIGTERM and SIGKILL of the group on timeout or abort. */
  killGraceMs: number;
  /** The grace after an abort (an interrupted run), usually shorter. */
  abortGraceMs: number;
  /** How long to keep reading after the leader exits, for output still in flight. */
  drainMs: number;
  onData: (stream: StreamName, bytes: Buffer) => void;
  onSpawn: (pgid: number) => void;
}

export interface GroupRunResult {
  exitCode: number | null;
  signal: NodeJS.Signals | null;
  timedOut: boolean;
  aborted: boolean;
  spawnError: string | null;
  pgid: number | null;
  /**
   * Pipes still held open by background processes. They are being read and discarded (never
   * closed: a server started in the background would die of SIGPIPE on its next log line, and
   * never left unread: it would block once the pipe buffer filled) and do not keep Node alive.
   */
  lingering: Readable[];
}

const POLL_MS = 25;

const delay = (ms: number): Promise<void> => new Promise((resolve) => setTimeout(resolve, ms));

export async function runInGroup(options: GroupRunOptions): Promise<GroupRunResult> {
  const [file, ...args] = options.argv;
  const base = { timedOut: false, aborted: false, pgid: null, lingering: [] };
  if (file === undefined) {
    return { ...base, exitCode: null, signal: null, spawnError: 'empty argv' };
  }
  let child: ChildProcess;
  try {
    child = spawn(file, args, {
      cwd: options.cwd,
      env: options.env,
      detached: true,
      stdio: ['ignore', 'pipe', 'pipe'],
    });
  } catch (error) {
    return { ...base, exitCode: null, signal: null, spawnError: errorText(error) };
  }

  const streams: Array<[StreamName, Readable]> = [];
  if (child.stdout) streams.push(['stdout', child.stdout]);
  if (child.stderr) streams.push(['stderr', child.stderr]);
  const ended = new Set<Readable>();
  let markEnded: () => void = () => {};
  const allEnded = new Promise<void>((resolve) => {
    markEnded = () => {
      if (ended.size === streams.length) resolve();
    };
  });
  for (const [name, stream] of streams) {
    stream.on('data', (bytes: Buffer) => options.onData(name, bytes));
    stream.on('error', () => {});
    const onDone = (): void => {
      ended.add(stream);
      markEnded();
    };
    stream.once('end', onDone);
    stream.once('close', onDone);
  }
  markEnded();

  const exit = new Promise<{ code: number | null; signal: NodeJS.Signals | null } | { error: string }>((resolve) => {
    child.once('exit', (code, signal) => resolve({ code, signal }));
    child.once('error', (error) => {
      // An error after a successful spawn (e.g. a failed kill) is not the end of the process.
      if (child.pid === undefined) resolve({ error: errorText(error) });
    });
  });

  const pgid = child.pid ?? null;
  if (pgid !== null) options.onSpawn(pgid);

  let stopReason: 'timeout' | 'abort' | null = null;
  let killSent = false;
  let killTimer: NodeJS.Timeout | undefined;
  const stop = (reason: 'timeout' | 'abort'): void => {
    if (stopReason !== null || pgid === null) return;
    stopReason = reason;
    signalGroup(pgid, 'SIGTERM');
    killTimer = setTimeout(
      () => {
        killSent = true;
        signalGroup(pgid, 'SIGKILL');
      },
      reason === 'abort' ? Math.min(options.abortGraceMs, options.killGraceMs) : options.killGraceMs,
    );
  };
  const timeoutTimer = setTimeout(() => stop('timeout'), options.timeoutMs);
  const onAbort = (): void => stop('abort');
  options.signal?.addEventListener('abort', onAbort, { once: true });
  if (options.signal?.aborted) onAbort();

  const exited = await exit;
  clearTimeout(timeoutTimer);
  options.signal?.removeEventListener('abort', onAbort);

  if ('error' in exited) {
    clearTimeout(killTimer);
    for (const [, stream] of streams) stream.destroy();
    return { ...base, exitCode: null, signal: null, spawnError: exited.error };
  }

  if (stopReason !== null && pgid !== null) {
    // The leader is gone; give the rest of the group the remainder of the grace, then SIGKILL.
    while (!killSent && groupHasRunningMembers(pgid)) await delay(POLL_MS);
    clearTimeout(killTimer);
  }

  await Promise.race([allEnded, delay(options.drainMs)]);

  const lingering: Readable[] = [];
  for (const [, stream] of streams) {
    if (ended.has(stream)) continue;
    stream.removeAllListeners('data');
    stream.on('data', () => {});
    (stream as Readable & { unref?: () => void }).unref?.();
    lingering.push(stream);
  }
  return {
    exitCode: exited.code,
    signal: exited.signal,
    timedOut: stopReason === 'timeout',
    aborted: stopReason === 'abort',
    spawnError: null,
    pgid,
    lingering,
  };
}

function errorText(error: unknown): string {
  if (error instanceof Error) return error.message;
  return String(error);
}
