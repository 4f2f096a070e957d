import { closeSync, constants, fstatSync, openSync, readFileSync, readSync } from 'node:fs';

/** Reused by every bounded read: what it held is turned into a string before the call returns. */
let scratch = Buffer.alloc(0);

/**
 * A descriptor of a file that others may have planted or swapped (the state directory, the shell's own records),
 * opened without following a link (O_NOFOLLOW) and kept only when what was opened is a regular file of this user's;
 * undefined otherwise. O_NONBLOCK keeps a planted FIFO from hanging the run.
 */
export function openOwnFile(path: string): number | undefined {
  let fd: number;
  try {
    fd = openSync(path, constants.O_RDONLY | constants.O_NOFOLLOW | constants.O_NONBLOCK);
  } catch {
    return undefined;
  }
  try {
    const stat = fstatSync(fd);
    if (stat.isFile() && stat.uid === (process.getuid?.() ?? stat.uid)) return fd;
  } catch {
    // Not a file to read.
  }
  closeSync(fd);
  return undefined;
}

/** At most `maxBytes` from the start of an open file, as text: what a planted file can cost is bounded. */
export function readStart(fd: number, maxBytes: number): string {
  if (scratch.length < maxBytes) scratch = Buffer.allocUnsafe(maxBytes);
  return scratch.toString('utf8', 0, readSync(fd, scratch, 0, maxBytes, 0));
}

/** The text of such a file (see openOwnFile), or its first `maxBytes`; undefined when it is not one to read. */
export function readOwnFile(path: string, maxBytes?: number): string | undefined {
  const fd = openOwnFile(path);
  if (fd === undefined) return undefined;
  try {
    return maxBytes === undefined ? readFileSync(fd, 'utf8') : readStart(fd, maxBytes);
  } catch {
    return undefined;
  } finally {
    closeSync(fd);
  }
}
