// A session file's descriptor: closed quietly, and cut back to whole lines before a run appends to it.
import { closeSync, fstatSync, ftruncateSync, readSync } from 'node:fs';

export function closeQuietly(fd: number): void {
  try {
    closeSync(fd);
  } catch {
    // Already closed.
  }
}

/**
 * A run killed while writing leaves a last line without its newline. The loader leaves it out; it is cut off here
 * too, so that what this run appends starts a line of its own instead of joining it into one that never parses.
 */
export function dropPartialLastLine(fd: number): void {
  const size = fstatSync(fd).size;
  const chunk = Buffer.alloc(Math.min(size, 65_536));
  for (let end = size; end > 0; ) {
    const start = Math.max(0, end - chunk.length);
    const length = end - start;
    readSync(fd, chunk, 0, length, start);
    const newline = chunk.lastIndexOf(0x0a, length - 1);
    if (end === size && newline === length - 1) return;
    if (newline !== -1) return ftruncateSync(fd, start + newline + 1);
    end = start;
  }
}
