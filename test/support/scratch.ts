import { rmSync } from 'node:fs';
import { afterAll, beforeAll } from 'vitest';
import { runAgent, tempDir } from './run-agent.js';

/** runAgent whose default working directory is one temporary directory per test file, removed after the file. */
export function useScratchRuns(): typeof runAgent {
  let dir: string | undefined;
  beforeAll(() => {
    dir = tempDir('agent-scratch-');
  });
  afterAll(() => {
    if (dir) rmSync(dir, { recursive: true, force: true });
  });
  return (args, serverUrl, options = {}) => runAgent(args, serverUrl, { ...options, cwd: options.cwd ?? dir });
}
