/**
 * The state directory (`$XDG_STATE_HOME/agent`) and its two rooms: `sessions/` and `running/` (the records of live
 * runs). What is in it steers the agent (a record names processes to kill and a directory to remove), so it is used
 * only when it is the user's own: a real directory, not a link, owned by this user, that no one else can write to.
 * Each room is checked the same way. Missing directories are made one level at a time, mode 0700, so that a failure
 * names its real cause (a recursive mkdir on a read-only file system reports ENOENT).
 */
import { accessSync, constants, existsSync, lstatSync, mkdirSync } from 'node:fs';
import { dirname, join } from 'node:path';

export interface StateDir {
  /** Where sessions are saved; undefined when they cannot be (or need not be). */
  sessions: string | undefined;
  /** Where the records of running runs go; undefined when that room cannot be trusted. */
  running: string | undefined;
  /** Why sessions are not saved, for a warning; undefined when all is well. */
  problem: string | undefined;
}

/** Checks (and makes) the state directory whose sessions room is `sessionsDir`. `persist`: sessions are wanted. */
export function openStateDir(sessionsDir: string, persist: boolean): StateDir {
  const root = dirname(sessionsDir);
  const rootProblem = roomProblem(root, sessionsDir, true);
  if (rootProblem) return { sessions: undefined, running: undefined, problem: persist ? rootProblem : undefined };
  const running = join(root, 'running');
  const runningUsable = roomProblem(running, sessionsDir, false) === undefined;
  const sessionsProblem = persist ? roomProblem(sessionsDir, sessionsDir, false) : undefined;
  return {
    sessions: persist && !sessionsProblem ? sessionsDir : undefined,
    running: runningUsable ? running : undefined,
    problem: sessionsProblem,
  };
}

/**
 * Why `dir` cannot be used (made if missing, parents too when `withParents`); undefined when it can. An error of the
 * file system is told as one that keeps `sessionsDir` from being written, a distrusted directory by its own name.
 */
function roomProblem(dir: string, sessionsDir: string, withParents: boolean): string | undefined {
  try {
    if (withParents) makeParents(dirname(dir));
    makeDir(dir);
  } catch (error) {
    return cannotSave(sessionsDir, error);
  }
  const distrust = distrustOf(dir);
  if (distrust)
    return `the state directory ${dir} is not used: ${distrust}; the run goes on without saving the session.`;
  try {
    accessSync(dir, constants.W_OK);
  } catch (error) {
    return cannotSave(sessionsDir, error);
  }
  return undefined;
}

function cannotSave(dir: string, error: unknown): string {
  const { code, message } = error as NodeJS.ErrnoException;
  return `cannot save the session in ${dir} (${code ?? message}); the run goes on without saving it.`;
}

/** What makes a directory someone else's to steer, or undefined when it is the user's own. */
function distrustOf(dir: string): string | undefined {
  const stat = lstatSync(dir);
  if (stat.isSymbolicLink()) return 'it is a symbolic link';
  if (!stat.isDirectory()) return 'it is not a directory';
  const uid = process.getuid?.();
  if (uid !== undefined && stat.uid !== uid) return `it belongs to uid ${stat.uid}, not to this user (uid ${uid})`;
  if ((stat.mode & 0o022) !== 0) return `others can write to it (mode ${(stat.mode & 0o777).toString(8)})`;
  return undefined;
}

/** Makes a directory that may exist already; an existing link or file is left for the trust check to judge. */
function makeDir(dir: string): void {
  try {
    mkdirSync(dir, { mode: 0o700 });
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== 'EEXIST') throw error;
  }
}

/** The parents above the state directory are the user's choice (links allowed); only the missing ones are made. */
function makeParents(dir: string): void {
  const missing: string[] = [];
  for (let at = dir; !existsSync(at) && dirname(at) !== at; at = dirname(at)) missing.push(at);
  for (const path of missing.reverse()) makeDir(path);
}
