import { closeSync, openSync, readSync } from 'node:fs';

/**
 * Random bytes from /dev/urandom, the kernel's CSPRNG (the source node:crypto draws on as well), for one small read.
 * Loading node:crypto costs about 5 ms of start-up, before the first request, for the few random bytes a run needs.
 */
export function randomBytesFromKernel(count: number): Buffer {
  const bytes = Buffer.alloc(count);
  const fd = openSync('/dev/urandom', 'r');
  try {
    let filled = 0;
    while (filled < count) filled += readSync(fd, bytes, filled, count - filled, null);
  } finally {
    closeSync(fd);
  }
  return bytes;
}
