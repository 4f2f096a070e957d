import { closeSync, constants, fstatSync, openSync, readlinkSync, readSync, realpathSync, statSync } from 'node:fs';
import type { Stats } from 'node:fs';
import { isInside, ownedByUser } from './root.js';

type ReadOutcome =
  | { kind: 'read'; text: string; cut: boolean; leftOutBytes: number }
  | { kind: 'empty' }
  | { kind: 'refused'; reason: string };

// O_NONBLOCK: a FIFO named AGENTS.md must not hang the start of the run; it is refused once open.
const OPEN_FLAGS = constants.O_RDONLY | constants.O_NOFOLLOW | constants.O_NONBLOCK;

/**
 * Reads at most `maxBytes` of one instructions file, and only if the file it opens lies inside `root`. A link is
 * followed only when it leads inside; the check is made again on the opened file itself, so a directory swapped for
 * a link between the look and the open is caught too.
 */
export function readInstructionsFile(path: string, root: string, maxBytes: number): ReadOutcome {
  const target = linkTarget(path, root);
  if (typeof target !== 'string') return target;
  let fd: number;
  try {
    fd = openSync(target, OPEN_FLAGS);
  } catch (error) {
    return refused(openProblem(error));
  }
  try {
    const stats = fstatSync(fd);
    if (stats.isDirectory()) return refused('it is a directory');
    if (!stats.isFile()) return refused('it is not a regular file');
    // The repository's words are the user's (or root's, for system-wide checkouts); not a file another user left.
    if (!ownedByUser(stats) && stats.uid !== 0) return refused('it belongs to another user');
    const opened = openedPath(fd, target, stats);
    if (opened === undefined) return refused('it changed while it was being read');
    if (!isInside(opened, root)) return refused(`it leads outside the repository (to ${opened})`);
    return decode(readUpTo(fd, maxBytes + 1), maxBytes, stats.size);
  } finally {
    closeSync(fd);
  }
}

function refused(reason: string): ReadOutcome {
  return { kind: 'refused', reason };
}

/** The path to open: the file itself, or where its link leads when that is inside `root`. */
function linkTarget(path: string, root: string): string | ReadOutcome {
  let real: string;
  try {
    real = realpathSync.native(path);
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    return refused(code === 'ENOENT' ? 'it is a link that leads nowhere' : openProblem(error));
  }
  return isInside(real, root) ? real : refused(`it leads outside the repository (to ${real})`);
}

function openProblem(error: unknown): string {
  const code = (error as NodeJS.ErrnoException).code;
  if (code === 'EACCES' || code === 'EPERM') return 'it is not readable (permission denied)';
  if (code === 'ELOOP') return 'it changed while it was being read';
  if (code === 'ENOENT' || code === 'ENOTDIR') return 'it changed while it was being read';
  return `it cannot be read (${code ?? (error as Error).message})`;
}

/** Where the open file really is: from /proc on Linux; elsewhere its path, checked to still be the same file. */
function openedPath(fd: number, path: string, stats: Stats): string | undefined {
  try {
    return readlinkSync(`/proc/self/fd/${fd}`);
  } catch {
    try {
      const real = realpathSync.native(path);
      const now = statSync(real);
      return now.ino === stats.ino && now.dev === stats.dev ? real : undefined;
    } catch {
      return undefined;
    }
  }
}

function readUpTo(fd: number, limit: number): Buffer {
  const buffer = Buffer.alloc(limit);
  let filled = 0;
  while (filled < limit) {
    const count = readSync(fd, buffer, filled, limit - filled, null);
    if (count === 0) break;
    filled += count;
  }
  return buffer.subarray(0, filled);
}

const UTF8 = new TextDecoder('utf-8', { fatal: true });

function decode(bytes: Buffer, maxBytes: number, size: number): ReadOutcome {
  const cut = bytes.length > maxBytes;
  const kept = cut ? bytes.subarray(0, characterBoundary(bytes, maxBytes)) : bytes;
  let text: string;
  try {
    text = UTF8.decode(kept);
  } catch {
    return refused('it is not UTF-8 text');
  }
  if (text.includes('\0')) return refused('it is not text (it holds NUL bytes)');
  if (!cut) return text.trim() === '' ? { kind: 'empty' } : { kind: 'read', text, cut: false, leftOutBytes: 0 };
  const lineEnd = text.lastIndexOf('\n');
  const tidy = lineEnd >= text.length / 2 ? text.slice(0, lineEnd + 1) : text;
  return { kind: 'read', text: tidy, cut: true, leftOutBytes: Math.max(size, bytes.length) - Buffer.byteLength(tidy) };
}

/** The largest length ≤ `limit` that does not split a UTF-8 sequence. */
function characterBoundary(bytes: Buffer, limit: number): number {
  let end = limit;
  // Continuation bytes are 10xxxxxx; back up to the lead byte of the sequence that `limit` would split.
  while (end > 0 && end > limit - 4 && (bytes[end]! & 0xc0) === 0x80) end--;
  return end;
}
