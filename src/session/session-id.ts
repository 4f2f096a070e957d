import { closeSync, openSync, readSync } from 'node:fs';

/**
 * A random (version 4) UUID. The 16 random bytes come from /dev/urandom, the kernel's CSPRNG, which costs one small
 * read; node:crypto would cost about 2.5 ms of start-up to load in the entry chunk.
 */
export function newSessionId(): string {
  const bytes = Buffer.alloc(16);
  const fd = openSync('/dev/urandom', 'r');
  try {
    readSync(fd, bytes, 0, 16, null);
  } finally {
    closeSync(fd);
  }
  bytes[6] = (bytes[6]! & 0x0f) | 0x40;
  bytes[8] = (bytes[8]! & 0x3f) | 0x80;
  const hex = bytes.toString('hex');
  return `${hex.slice(0, 8)}-${hex.slice(8, 12)}-${hex.slice(12, 16)}-${hex.slice(16, 20)}-${hex.slice(20)}`;
}
