/**
 * A run killed with SIGKILL cannot kill its commands nor remove its private directory: nothing of it runs any more.
 * So a run leaves its process mark and that directory's path in a small file for as long as it lives, and every run
 * sweeps at start-up: a file whose run is gone has its marked processes killed and its directory removed, then goes.
 * Files of live runs (many runs go at once) are left alone.
 * Everything is best effort and synchronous: a registry that cannot be written only loses this safety net.
 */
import { mkdirSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { basename, isAbsolute, join } from 'node:path';
import { killMarked, type ProcessMark } from './process-mark.js';
import { removeQuietly } from './remove-quietly.js';

interface Entry {
  pid: number;
  /** The run's start time in clock ticks after boot (/proc/<pid>/stat), so a reused pid is not taken for it. */
  started: string;
  mark: ProcessMark;
  /** The run's private directory (spill files, the shell's bookkeeping). */
  runDir: string | undefined;
}

/** Only a directory of this name is ever removed by a sweep, whatever a registry file says. */
export const RUN_DIR_PREFIX = 'agent-run-';

/** Records this process's mark under `dir`; returns the function that removes the record again. */
export function registerMark(dir: string, mark: ProcessMark, runDir: string | undefined): () => void {
  const started = startTime(process.pid);
  if (started === undefined) return () => {};
  const file = join(dir, `${process.pid}-${started}.json`);
  try {
    mkdirSync(dir, { recursive: true, mode: 0o700 });
    writeFileSync(file, JSON.stringify({ pid: process.pid, started, mark, runDir } satisfies Entry), { mode: 0o600 });
  } catch {
    return () => {};
  }
  return () => removeQuietly(file);
}

/** Kills what runs that are gone left running, and forgets them. Returns how many processes were signalled. */
export function sweepDeadRuns(dir: string): number {
  let names: string[];
  try {
    names = readdirSync(dir);
  } catch {
    return 0;
  }
  let killed = 0;
  for (const name of names) {
    const entry = readEntry(join(dir, name));
    if (entry === undefined || startTime(entry.pid) === entry.started) continue;
    killed += killMarked(entry.mark);
    const runDir = entry.runDir;
    if (runDir && isAbsolute(runDir) && basename(runDir).startsWith(RUN_DIR_PREFIX)) rmSync(runDir, { recursive: true, force: true });
    removeQuietly(join(dir, name));
  }
  return killed;
}

function readEntry(file: string): Entry | undefined {
  try {
    const entry = JSON.parse(readFileSync(file, 'utf8')) as Partial<Entry>;
    const mark = entry.mark as Partial<ProcessMark> | undefined;
    const valid =
      typeof entry.pid === 'number' && typeof entry.started === 'string' && typeof mark?.envName === 'string' &&
      typeof mark.envValue === 'string' && typeof mark.locksLimit === 'number';
    return valid ? (entry as Entry) : undefined;
  } catch {
    return undefined;
  }
}

/** Field 22 of /proc/<pid>/stat; undefined when there is no such process (or no /proc). */
function startTime(pid: number): string | undefined {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'latin1');
    return stat.slice(stat.lastIndexOf(')') + 2).split(' ')[19];
  } catch {
    return undefined;
  }
}
