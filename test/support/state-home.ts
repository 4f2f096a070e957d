import { mkdtempSync, realpathSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

let current: string | undefined;

/**
 * The XDG_STATE_HOME of the runs a test file starts, so that no test writes sessions into the real home directory.
 * Made on first use and removed after the file's tests (test/support/setup.ts).
 */
export function testStateHome(): string {
  current ??= realpathSync(mkdtempSync(join(tmpdir(), 'agent-state-')));
  return current;
}

export function removeTestStateHome(): void {
  if (current) rmSync(current, { recursive: true, force: true });
  current = undefined;
}
