// Finds the processes a shell's commands started once they have left their process group (`setsid`, a daemon's
// double fork) and their parent has exited, so that nothing links them to the shell any more.
//
// Every command's bash marks itself twice, and everything it starts inherits both marks:
// - the soft RLIMIT_LOCKS set to a number drawn for this shell. Linux has not enforced that limit since 2.4.25, so
//   the number changes nothing, and it survives `env -i`, `setsid`, `nohup`, `exec` and reparenting to init; only a
//   process that sets that limit again on purpose loses it. /proc/<pid>/limits shows it.
// - an environment variable holding this shell's id, for systems where the limit cannot be set (a finite hard
//   limit); `env -i` drops it.
// A stranger's process carries neither, so it is never signalled. Without /proc (not Linux) nothing is found, and
// only the process groups are killed. All calls are synchronous so they can run from `process.on('exit')`.
// A process that started before the run cannot descend from its commands: its start time (one small /proc read) is
// enough to pass it by, and the sweep reads a process's limits and environment only when it is younger.
import { readdirSync, readFileSync } from 'node:fs';
import { randomBytesFromKernel } from '../random.js';

export interface ProcessMark {
  readonly envName: string;
  readonly envValue: string;
  readonly locksLimit: number;
}

const ENV_NAME = 'AGENT_SHELL_ID';
/** Far above any limit set on purpose; with the random part, below 2^53 so a JS number holds it exactly. */
const LOCKS_LIMIT_BASE = 2 ** 48;
const LOCKS_LIMIT_RANGE = 2 ** 47;
/** The line of /proc/<pid>/limits for RLIMIT_LOCKS; the soft limit follows it. */
const LOCKS_LINE = 'Max file locks';
/** Kill passes: a marked process may fork while a pass runs; a pass that finds no one new ends the sweep. */
const MAX_PASSES = 5;

export function newProcessMark(): ProcessMark {
  return {
    envName: ENV_NAME,
    envValue: randomBytesFromKernel(8).toString('hex'),
    // 48 random bits modulo 2^47: uniform, since 2^48 is a multiple of the range.
    locksLimit: LOCKS_LIMIT_BASE + (randomBytesFromKernel(6).readUIntBE(0, 6) % LOCKS_LIMIT_RANGE),
  };
}

/** True when `mark` has the shape newProcessMark gives: what a record of a run may name, and nothing else. */
export function isAgentMark(mark: Partial<ProcessMark> | undefined): mark is ProcessMark {
  if (mark === undefined || mark === null || typeof mark !== 'object') return false;
  const { envName, envValue, locksLimit } = mark;
  return (
    envName === ENV_NAME &&
    typeof envValue === 'string' &&
    /^[0-9a-f]{16}$/.test(envValue) &&
    Number.isSafeInteger(locksLimit) &&
    locksLimit! >= LOCKS_LIMIT_BASE &&
    locksLimit! < LOCKS_LIMIT_BASE + LOCKS_LIMIT_RANGE
  );
}

/** The bash line that marks the shell; silent where the hard limit does not allow it. */
export function markingCommand(mark: ProcessMark): string {
  return `ulimit -S -x ${mark.locksLimit} 2>/dev/null`;
}

/**
 * SIGKILL every process that carries the mark and started no earlier than `bornSince` (clock ticks since boot, as
 * processStartTicks gives them: the run's own start), and return how many were signalled.
 */
export function killMarked(mark: ProcessMark, bornSince: number): number {
  const limitValue = String(mark.locksLimit);
  const envEntry = `${mark.envName}=${mark.envValue}\0`;
  const signalled = new Set<number>();
  for (let pass = 0; pass < MAX_PASSES; pass++) {
    const before = signalled.size;
    for (const pid of processIds()) {
      if (signalled.has(pid)) continue;
      const born = processStartTicks(pid);
      if (born === undefined || born < bornSince) continue;
      if (!hasLocksLimit(pid, limitValue) && !hasEnvEntry(pid, envEntry)) continue;
      try {
        process.kill(pid, 'SIGKILL');
      } catch {
        // Exited meanwhile, or not ours to signal.
      }
      signalled.add(pid);
    }
    if (signalled.size === before) break;
  }
  return signalled.size;
}

function processIds(): number[] {
  let entries: string[];
  try {
    entries = readdirSync('/proc');
  } catch {
    return [];
  }
  const pids: number[] = [];
  for (const entry of entries) {
    const first = entry.charCodeAt(0);
    if (first < 48 || first > 57) continue;
    const pid = Number(entry);
    if (pid !== process.pid) pids.push(pid);
  }
  return pids;
}

/** Field 22 of /proc/<pid>/stat: when the process started, in clock ticks since boot; undefined when it cannot be read. */
export function processStartTicks(pid: number | 'self'): number | undefined {
  const stat = readProcFile(pid, 'stat');
  if (stat === null) return undefined;
  // The command name (field 2) is in parentheses and may hold anything, a ')' included: the fields after it count.
  const ticks = Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[19]);
  return Number.isSafeInteger(ticks) ? ticks : undefined;
}

/** True when the process's soft RLIMIT_LOCKS, as /proc/<pid>/limits shows it, is exactly `value`. */
function hasLocksLimit(pid: number, value: string): boolean {
  const limits = readProcFile(pid, 'limits');
  if (limits === null) return false;
  const at = limits.indexOf(LOCKS_LINE);
  if (at === -1) return false;
  let start = at + LOCKS_LINE.length;
  while (limits.charCodeAt(start) === 32) start++;
  return limits.startsWith(`${value} `, start);
}

/** True when the NUL-separated environment block holds `entry` (which ends in NUL) as one whole entry. */
function hasEnvEntry(pid: number, entry: string): boolean {
  const environ = readProcFile(pid, 'environ');
  if (environ === null) return false;
  for (let at = environ.indexOf(entry); at !== -1; at = environ.indexOf(entry, at + 1)) {
    if (at === 0 || environ.charCodeAt(at - 1) === 0) return true;
  }
  return false;
}

/**
 * The file as text; null when it cannot be read (the process exited, or is not ours). Read as UTF-8, the one
 * encoding Node reads a file in with a single call into its runtime (open, read to the end, close): a sweep passes
 * every process on the machine, and this is most of what it costs. The marks are ASCII, and a NUL stays a NUL.
 */
function readProcFile(pid: number | 'self', name: string): string | null {
  try {
    return readFileSync(`/proc/${pid}/${name}`, 'utf8');
  } catch {
    return null;
  }
}
