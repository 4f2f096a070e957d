import { fstatSync, statSync } from 'node:fs';
import { Readable } from 'node:stream';

/**
 * The command's stdin, to read the prompt or piped context from. /dev/null gives nothing, ever: it is answered by an
 * empty stream, without the file stream Node makes for it, which loads a dozen modules and reads through the thread
 * pool before the first request could go out.
 */
export function stdinStream(): Readable & { isTTY?: boolean } {
  return isNullDevice(0) ? Readable.from([]) : process.stdin;
}

function isNullDevice(fd: number): boolean {
  try {
    const stat = fstatSync(fd);
    return stat.isCharacterDevice() && stat.rdev === statSync('/dev/null').rdev;
  } catch {
    return false;
  }
}
