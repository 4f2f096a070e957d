// The state directory (`$XDG_STATE_HOME/agent`) and its two rooms: `sessions/` and `running/` (the records of live
// runs). What is in it steers the agent (a record names processes to kill and a directory to remove), so it is used
// only when it is the user's own: a real directory, not a link, owned by this user, that no one else can write to.
// Each room is checked the same way. Missing directories are made one level at a time, mode 0700, so that a failure
// names its real cause (a recursive mkdir on a read-only file system reports ENOENT).
import { accessSync, constants, existsSync, lstatSync, mkdirSync } from 'node:fs';
import { dirname, join } from 'node:path';

interface StateDir {
  /** Where sessions are saved; undefined when they cannot be (or need not be). */
  sessions: string | undefined;
  /** Where the records of running runs go; undefined when that room cannot be trusted. */
  running: string | undefined;
  /** Why sessions are not saved, for a warning; undefined when all is well. */
  problem: string | undefined;
  /** Set when the sessions in it are not the user's own to read either: which directory, and why. */
  untrusted: string | undefined;
}

interface RoomProblem {
  message: string;
  /** Only for a directory that is not the user's own (as opposed to one the file system will not let us write). */
  untrusted?: string;
}

/** Checks (and makes) the state directory whose sessions room is `sessionsDir`. `persist`: sessions are wanted. */
export function openStateDir(sessionsDir: string, persist: boolean): StateDir {
  const root = dirname(sessionsDir);
  const rootProblem = roomProblem(root, sessionsDir, true);
  if (rootProblem) {
    const { message, untrusted } = rootProblem;
    return { sessions: undefined, running: undefined, problem: persist ? message : undefined, untrusted };
  }
  const running = join(root, 'running');
  const runningUsable = roomProblem(running, sessionsDir, false) === undefined;
  // Without persistence the sessions room is not made, only judged if it is there (a --resume may read it).
  const sessionsProblem = persist ? roomProblem(sessionsDir, sessionsDir, false) : distrustIfThere(sessionsDir);
  return {
    sessions: persist && !sessionsProblem ? sessionsDir : undefined,
    running: runningUsable ? running : undefined,
    problem: persist ? sessionsProblem?.message : undefined,
    untrusted: sessionsProblem?.untrusted,
  };
}

/**
 * Why `dir` cannot be used (made if missing, parents too when `withParents`); undefined when it can. An error of the
 * file system is told as one that keeps `sessionsDir` from being written, a distrusted directory by its own name.
 */
function roomProblem(dir: string, sessionsDir: string, withParents: boolean): RoomProblem | undefined {
  try {
    if (withParents) makeParents(dirname(dir));
    makeDir(dir);
  } catch (error) {
    return { message: cannotSave(sessionsDir, error) };
  }
  const distrust = distrustIfThere(dir);
  if (distrust) return distrust;
  try {
    accessSync(dir, constants.W_OK);
  } catch (error) {
    return { message: cannotSave(sessionsDir, error) };
  }
  return undefined;
}

function distrustIfThere(dir: string): RoomProblem | undefined {
  const distrust = existsOrLink(dir) ? distrustOf(dir) : undefined;
  if (!distrust) return undefined;
  const untrusted = `the state directory ${dir} is not used: ${distrust}`;
  return { message: `${untrusted}; the run goes on without saving the session.`, untrusted };
}

function existsOrLink(path: string): boolean {
  try {
    lstatSync(path);
    return true;
  } catch {
    return false;
  }
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
