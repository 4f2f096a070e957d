import { randomBytesFromKernel } from '../random.js';

/** A random (version 4) UUID, its 16 random bytes from the kernel (see random.ts for why not node:crypto). */
export function newSessionId(): string {
  const bytes = randomBytesFromKernel(16);
  bytes[6] = (bytes[6]! & 0x0f) | 0x40;
  bytes[8] = (bytes[8]! & 0x3f) | 0x80;
  const hex = bytes.toString('hex');
  return `${hex.slice(0, 8)}-${hex.slice(8, 12)}-${hex.slice(12, 16)}-${hex.slice(16, 20)}-${hex.slice(20)}`;
}
