import { linkSync, unlinkSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { UsageError } from '../outcome.js';
import { readOwnFile } from '../own-file.js';

/**
 * A session file has one writer. A run that starts a session names its pid in the header, and is its writer until it
 * writes its result: nothing more to create at start-up. A run that continues a session holds `<id>.lock` beside the
 * file, holding its pid, for as long as it runs, so that two continuations cannot both start. A writer whose process
 * is gone (a run killed with -9) no longer counts, and a lock it left is taken over.
 */
type Lock = { ok: true; release: () => void } | { ok: false; pid: number };

export function lockFile(dir: string, id: string): string {
  return join(dir, `${id}.lock`);
}

/** The pid of another live process that holds the session, if any. */
export function lockHolder(dir: string, id: string): number | undefined {
  const pid = readPid(lockFile(dir, id));
  return pid !== undefined && pid !== process.pid && isAlive(pid) ? pid : undefined;
}

export function acquireLock(dir: string, id: string): Lock {
  const path = lockFile(dir, id);
  // Written aside and linked into place, so a lock file is never seen half written.
  const draft = `${path}.${process.pid}`;
  // Made afresh (O_EXCL), so a link planted under the draft's name is never written through.
  removeQuietly(draft);
  writeFileSync(draft, `${process.pid}\n`, { mode: 0o600, flag: 'wx' });
  try {
    for (let attempt = 0; attempt < 2; attempt++) {
      try {
        linkSync(draft, path);
        return { ok: true, release: () => release(path) };
      } catch (error) {
        if ((error as NodeJS.ErrnoException).code !== 'EEXIST') throw error;
      }
      const holder = readPid(path);
      if (holder !== undefined && holder !== process.pid && isAlive(holder)) return { ok: false, pid: holder };
      removeQuietly(path);
    }
    return { ok: false, pid: readPid(path) ?? 0 };
  } finally {
    removeQuietly(draft);
  }
}

/** Removes the lock if it is still this process's. Idempotent. */
function release(path: string): void {
  if (readPid(path) === process.pid) removeQuietly(path);
}

function readPid(path: string): number | undefined {
  const pid = Number(readOwnFile(path)?.trim());
  return Number.isSafeInteger(pid) && pid > 0 ? pid : undefined;
}

function isAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === 'EPERM';
  }
}

function removeQuietly(path: string): void {
  try {
    unlinkSync(path);
  } catch {
    // Already gone.
  }
}

/** The lock of one session as a continuation uses it. */
interface SessionLock {
  /**
   * Refuses (a UsageError) while another live run writes the session: one holding its lock, or `writerPid`, the run
   * that last started writing the file and has not written its result. Holds the lock from here on when `take`.
   */
  claim(take: boolean, writerPid: number | undefined): void;
  release(): void;
}

export function sessionLock(dir: string, id: string): SessionLock {
  let held: (() => void) | undefined;
  const inUse = (pid: number) =>
    new UsageError(
      `Session ${id} is in use by a running agent (pid ${pid}).\nWait for that run to end, or branch off the session with --fork-session.`,
    );
  return {
    claim(take, writerPid) {
      if (writerPid !== undefined && writerPid !== process.pid && isAlive(writerPid)) throw inUse(writerPid);
      const holder = lockHolder(dir, id);
      if (holder !== undefined) throw inUse(holder);
      if (!take) return;
      const lock = acquireLock(dir, id);
      if (!lock.ok) throw inUse(lock.pid);
      held = lock.release;
    },
    release() {
      held?.();
      held = undefined;
    },
  };
}
