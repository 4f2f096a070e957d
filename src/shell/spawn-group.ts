import { spawn } from 'node:child_process';
import type { ChildProcess } from 'node:child_process';
import type { Readable } from 'node:stream';
import { groupHasRunningMembers, signalGroup } from './process-groups.js';

export type StreamName = 'stdout' | 'stderr';

interface GroupRunOptions {
  argv: readonly string[];
  cwd: string;
  env: Record<string, string>;
  /** Text for the leader's stdin, then EOF; without it, stdin is /dev/null. */
  stdin?: string;
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
  /**
   * Pipes still held open by background processes. They are being read and discarded (never
   * closed: a server started in the background would die of SIGPIPE on its next log line, and
   * never left unread: it would block once the pipe buffer filled) and do not keep Node alive.
   */
  lingering: Readable[];
}

type StopReason = 'timeout' | 'abort';
type LeaderExit = { code: number | null; signal: NodeJS.Signals | null } | { error: string };

const POLL_MS = 25;

const delay = (ms: number): Promise<void> => new Promise((resolve) => setTimeout(resolve, ms));

/**
 * Runs one argv as the leader of a new process group (and session, so it has no controlling
 * terminal to prompt on) and settles when the leader exits.
 *
 * This uses node:child_process rather than zx: we need a detached group leader, a stdout pipe
 * that stays readable (never closed under a background child), and completion on process exit
 * rather than on pipe close, which zx's ProcessPromise does not expose.
 */
export async function runInGroup(options: GroupRunOptions): Promise<GroupRunResult> {
  const child = spawnLeader(options);
  if (typeof child === 'string') return notStarted(child);
  const output = readOutput(child, options.onData);
  const exit = leaderExit(child);
  const pgid = child.pid;
  if (pgid !== undefined) options.onSpawn(pgid);
  const stopper = pgid === undefined ? undefined : stopOnTimeoutOrAbort(pgid, options);

  const exited = await exit;
  const stopReason = (await stopper?.afterExit()) ?? null;
  if ('error' in exited) {
    output.destroy();
    return notStarted(exited.error);
  }
  return {
    exitCode: exited.code,
    signal: exited.signal,
    timedOut: stopReason === 'timeout',
    aborted: stopReason === 'abort',
    spawnError: null,
    lingering: await output.drain(options.drainMs),
  };
}

/** The child, or why it could not be spawned. */
function spawnLeader(options: GroupRunOptions): ChildProcess | string {
  const [file, ...args] = options.argv;
  if (file === undefined) return 'empty argv';
  try {
    const stdin = options.stdin === undefined ? 'ignore' : 'pipe';
    const child = spawn(file, args, {
      cwd: options.cwd,
      env: options.env,
      detached: true,
      stdio: [stdin, 'pipe', 'pipe'],
    });
    if (child.stdin) {
      // A shell that exits before reading it all is not an error of the agent's.
      child.stdin.on('error', () => {});
      child.stdin.end(options.stdin);
    }
    return child;
  } catch (error) {
    return errorText(error);
  }
}

function notStarted(spawnError: string): GroupRunResult {
  return { exitCode: null, signal: null, timedOut: false, aborted: false, spawnError, lingering: [] };
}

function leaderExit(child: ChildProcess): Promise<LeaderExit> {
  return new Promise((resolve) => {
    child.once('exit', (code, signal) => resolve({ code, signal }));
    child.once('error', (error) => {
      // An error after a successful spawn (e.g. a failed kill) is not the end of the process.
      if (child.pid === undefined) resolve({ error: errorText(error) });
    });
  });
}

/** TERM to the whole group on timeout or abort, then KILL after the grace. */
function stopOnTimeoutOrAbort(pgid: number, options: GroupRunOptions): { afterExit: () => Promise<StopReason | null> } {
  let reason: StopReason | null = null;
  let killSent = false;
  let killTimer: NodeJS.Timeout | undefined;
  const stop = (why: StopReason): void => {
    if (reason !== null) return;
    reason = why;
    signalGroup(pgid, 'SIGTERM');
    const graceMs = why === 'abort' ? Math.min(options.abortGraceMs, options.killGraceMs) : options.killGraceMs;
    killTimer = setTimeout(() => {
      killSent = true;
      signalGroup(pgid, 'SIGKILL');
    }, graceMs);
  };
  const timeoutTimer = setTimeout(() => stop('timeout'), options.timeoutMs);
  const onAbort = (): void => stop('abort');
  options.signal?.addEventListener('abort', onAbort, { once: true });
  if (options.signal?.aborted) onAbort();
  return {
    async afterExit() {
      clearTimeout(timeoutTimer);
      options.signal?.removeEventListener('abort', onAbort);
      // The leader is gone; give the rest of the group the remainder of the grace, then SIGKILL.
      if (reason !== null) while (!killSent && groupHasRunningMembers(pgid)) await delay(POLL_MS);
      clearTimeout(killTimer);
      return reason;
    },
  };
}

/** Feeds both pipes to onData as they arrive, until they end or are handed over as lingering. */
function readOutput(child: ChildProcess, onData: GroupRunOptions['onData']) {
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
    stream.on('data', (bytes: Buffer) => onData(name, bytes));
    stream.on('error', () => {});
    const onDone = (): void => {
      // 'end' and then 'close': the second changes nothing, and resolving twice costs the engine a rejection check.
      if (ended.has(stream)) return;
      ended.add(stream);
      markEnded();
    };
    stream.once('end', onDone);
    stream.once('close', onDone);
  }
  markEnded();
  return {
    /** Waits up to `drainMs` for the pipes to end; the ones still open are read and discarded from then on. */
    async drain(drainMs: number): Promise<Readable[]> {
      if (ended.size < streams.length) await endedWithin(allEnded, drainMs);
      return streams.filter(([, stream]) => !ended.has(stream)).map(([, stream]) => discardFrom(stream));
    },
    destroy(): void {
      for (const [, stream] of streams) stream.destroy();
    },
  };
}

/** Resolves once `ended` does or `ms` pass, whichever is first; the timer goes with it, so no command leaves one. */
function endedWithin(ended: Promise<void>, ms: number): Promise<void> {
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<void>((resolve) => {
    timer = setTimeout(resolve, ms);
  });
  return Promise.race([ended, timeout]).finally(() => clearTimeout(timer));
}

function discardFrom(stream: Readable): Readable {
  stream.removeAllListeners('data');
  stream.on('data', () => {});
  (stream as Readable & { unref?: () => void }).unref?.();
  return stream;
}

function errorText(error: unknown): string {
  if (error instanceof Error) return error.message;
  return String(error);
}
