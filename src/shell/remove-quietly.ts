import { unlinkSync } from 'node:fs';

/** Removes a file that may already be gone; bookkeeping that fails to go away is not worth an error. */
export function removeQuietly(file: string): void {
  try {
    unlinkSync(file);
  } catch {
    // Already gone, or never made.
  }
}
