import { closeSync, constants, fstatSync, openSync, readFileSync } from 'node:fs';

/**
 * The text of a file of the state directory, read without following a link (O_NOFOLLOW) and only when what was
 * opened is a regular file of this user's; undefined otherwise. O_NONBLOCK keeps a planted FIFO from hanging the run.
 */
export function readOwnFile(path: string): string | undefined {
  let fd: number;
  try {
    fd = openSync(path, constants.O_RDONLY | constants.O_NOFOLLOW | constants.O_NONBLOCK);
  } catch {
    return undefined;
  }
  try {
    const stat = fstatSync(fd);
    if (!stat.isFile() || stat.uid !== (process.getuid?.() ?? stat.uid)) return undefined;
    return readFileSync(fd, 'utf8');
  } catch {
    return undefined;
  } finally {
    closeSync(fd);
  }
}
