// The record a run keeps in the state directory while it lives (see mark-registry.ts), and what makes one worth
// acting on. A record names processes to kill and a directory to remove, and a state directory may hold files that no
// run wrote (a checkout pointed at by XDG_STATE_HOME), so a record is trusted only when it is exactly what a run of
// this agent writes: a regular file of this user's, named after the run's pid and start time, its mark of the shape
// the agent draws, its pid a plausible other process, its directory one the agent makes, where it makes them.
import { lstatSync } from 'node:fs';
import { basename, dirname, isAbsolute, normalize } from 'node:path';
import { readOwnFile } from '../own-file.js';
import { isAgentMark, type ProcessMark } from './process-mark.js';
import { RUN_DIR_NAME } from './run-dir-name.js';

export interface RunRecord {
  pid: number;
  /** The run's start time in clock ticks after boot (/proc/<pid>/stat), so a reused pid is not taken for it. */
  started: string;
  mark: ProcessMark;
  /** The run's private directory (spill files, the shell's bookkeeping). */
  runDir: string | undefined;
}

export { RUN_DIR_PREFIX } from './run-dir-name.js';
const FILE_NAME = /^([0-9]+)-([0-9]+)\.json$/;

export function recordFileName(pid: number, started: string): string {
  return `${pid}-${started}.json`;
}

/**
 * The record in `file`, when it is one to act on: a run's private directories are all made in `runsParent`.
 * Undefined for anything else, which is left alone.
 */
export function readRunRecord(file: string, runsParent: string): RunRecord | undefined {
  const named = FILE_NAME.exec(basename(file));
  const text = named ? readOwnFile(file) : undefined;
  if (named === null || text === undefined) return undefined;
  let record: Partial<RunRecord>;
  try {
    record = JSON.parse(text) as Partial<RunRecord>;
  } catch {
    return undefined;
  }
  if (record === null || typeof record !== 'object') return undefined;
  const { pid, started, mark, runDir } = record;
  if (!isOtherPid(pid) || String(pid) !== named[1] || typeof started !== 'string' || started !== named[2])
    return undefined;
  if (!isAgentMark(mark)) return undefined;
  if (runDir !== undefined && !isRunDir(runDir, runsParent)) return undefined;
  return { pid, started, mark, runDir };
}

/** Not init (nor an invalid pid), and not this very process: a run that recorded itself was another one. */
function isOtherPid(pid: unknown): pid is number {
  return typeof pid === 'number' && Number.isSafeInteger(pid) && pid > 1 && pid !== process.pid;
}

/** A directory as run-dir.ts names it, in `runsParent`; never `/`, never elsewhere. */
function isRunDir(runDir: unknown, runsParent: string): runDir is string {
  return (
    typeof runDir === 'string' &&
    isAbsolute(runDir) &&
    normalize(runDir) === runDir &&
    dirname(runDir) === runsParent &&
    RUN_DIR_NAME.test(basename(runDir))
  );
}

/** True when `runDir` is, right now, a real directory (not a link) of this user's: the one the run made. */
export function isOwnDirectory(runDir: string): boolean {
  try {
    const stat = lstatSync(runDir);
    return stat.isDirectory() && stat.uid === (process.getuid?.() ?? stat.uid);
  } catch {
    return false;
  }
}
