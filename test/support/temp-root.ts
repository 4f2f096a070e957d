// vitest globalSetup: the whole suite gets a temporary directory of its own (TMPDIR for the tests and the runs they
// start), and fails if anything is left in it at the end, whoever made it.
import { mkdtempSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

let root: string | undefined;

export function setup(): void {
  root = mkdtempSync(join(tmpdir(), 'agent-tests-'));
  process.env.TMPDIR = root;
}

export function teardown(): void {
  if (!root) return;
  const leftovers = readdirSync(root);
  rmSync(root, { recursive: true, force: true });
  if (leftovers.length === 0) return;
  process.stderr.write(
    `\ntemporary directories left behind by the tests (${leftovers.length}): ${leftovers.sort().join(', ')}\n`,
  );
  process.exitCode = 1;
}
