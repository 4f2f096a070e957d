import { closeSync, constants, fstatSync, openSync, readFileSync, readSync } from 'node:fs';

/** Reused by every bounded read: what it held is turned into a string before the call returns. */
let scratch = Buffer.alloc(0);

/**
 * The text of a file that others may have planted or swapped (the state directory, the shell's own records), read
 * without following a link (O_NOFOLLOW) and only when what was opened is a regular file of this user's; undefined
 * otherwise. O_NONBLOCK keeps a planted FIFO from hanging the run; `maxBytes` bounds what a planted file can cost.
 */
export function readOwnFile(path: string, maxBytes?: number): string | undefined {
  let fd: number;
  try {
    fd = openSync(path, constants.O_RDONLY | constants.O_NOFOLLOW | constants.O_NONBLOCK);
  } catch {
    return undefined;
  }
  try {
    const stat = fstatSync(fd);
    if (!stat.isFile() || stat.uid !== (process.getuid?.() ?? stat.uid)) return undefined;
    if (maxBytes === undefined) return readFileSync(fd, 'utf8');
    if (scratch.length < maxBytes) scratch = Buffer.allocUnsafe(maxBytes);
    return scratch.toString('utf8', 0, readSync(fd, scratch, 0, maxBytes, 0));
  } catch {
    return undefined;
  } finally {
    closeSync(fd);
  }
}
