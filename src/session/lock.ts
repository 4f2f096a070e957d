import { linkSync, readFileSync, unlinkSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';

/**
 * A session file has one writer. The writer holds `<id>.lock` beside it, a file holding its pid, for as long as it
 * runs. A lock whose process is gone (a run killed with -9) is stale, and the next writer takes it over.
 */
export type Lock = { ok: true; release: () => void } | { ok: false; pid: number };

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
  writeFileSync(draft, `${process.pid}\n`, { mode: 0o600 });
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
  try {
    const pid = Number(readFileSync(path, 'utf8').trim());
    return Number.isSafeInteger(pid) && pid > 0 ? pid : undefined;
  } catch {
    return undefined;
  }
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
