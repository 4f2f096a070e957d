import { readFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { expect } from 'vitest';
import { runAgent, tempDir } from './run-agent.js';
import type { TestServer } from './server.js';

const LOAD_LOG = resolve(import.meta.dirname, 'load-log.mjs');
export const DIST = resolve(import.meta.dirname, '../../dist');

/** The files of dist/ that a run loaded (support/load-log.mjs), in the order it loaded them. */
export async function chunksLoaded(args: string[], server: TestServer): Promise<string[]> {
  const dir = tempDir();
  const log = join(dir, 'loaded.txt');
  const run = await runAgent(args, server.url, {
    cwd: dir,
    nodeArgs: ['--import', LOAD_LOG],
    env: { AGENT_LOAD_LOG: log },
  });
  expect(run.code, run.stderr).toBe(0);
  return readFileSync(log, 'utf8')
    .trim()
    .split('\n')
    .filter((url) => url.startsWith('file:'))
    .map((url) => fileURLToPath(url))
    .filter((path) => path.startsWith(`${DIST}/`));
}
