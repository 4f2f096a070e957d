// An attacker who can run a process beside the agent swaps a directory of the repository for a link to a secret
// place while the agent reads its instructions files. The check made before the open is not enough; the opened file
// itself must be inside the repository.
import { spawn, type ChildProcess } from 'node:child_process';
import { mkdirSync, symlinkSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, expect, it } from 'vitest';
import { answer, runAgent, tempDir } from './support/run-agent.js';
import { useServer } from './support/use-server.js';

const serve = useServer();
const RUNS = 25;
const DEPTH = 6;

// Cycles `sub` between the real directory and a link to the outside as fast as renames go.
const SWAPPER = `
const { renameSync } = require('node:fs');
const [root] = process.argv.slice(1);
const p = (name) => root + '/' + name;
for (;;) {
  try { renameSync(p('sub'), p('sub.real')); renameSync(p('sub.link'), p('sub')); } catch {}
  try { renameSync(p('sub'), p('sub.link')); renameSync(p('sub.real'), p('sub')); } catch {}
}`;

let swapper: ChildProcess | undefined;
afterEach(() => {
  swapper?.kill('SIGKILL');
  swapper = undefined;
});

it('never sends a file from outside the repository while a directory is swapped for a link', async () => {
  const outside = tempDir('agent-outside-');
  writeFileSync(join(outside, 'AGENTS.md'), 'RACED SECRET\n');
  const root = tempDir('agent-race-');
  mkdirSync(join(root, '.git'));
  mkdirSync(join(root, 'sub'));
  writeFileSync(join(root, 'sub/AGENTS.md'), 'INSIDE\n');
  symlinkSync(outside, join(root, 'sub.link'));
  // Every directory on the way down links its AGENTS.md to sub/AGENTS.md: one chance of a race per directory.
  let dir = root;
  for (let level = 0; level < DEPTH; level++) {
    symlinkSync(`${'../'.repeat(level)}sub/AGENTS.md`, join(dir, 'AGENTS.md'));
    dir = join(dir, `d${level}`);
    mkdirSync(dir);
  }
  swapper = spawn(process.execPath, ['-e', SWAPPER, root], { stdio: 'ignore' });

  const s = await serve([], { onExhausted: answer('ok') });
  let readInside = 0;
  for (let i = 0; i < RUNS; i++) {
    const run = await runAgent(['go'], s.url, { cwd: dir });
    expect(run.code, run.stderr).toBe(0);
    const system = JSON.stringify(s.validRequests().at(-1)!.body.system);
    expect(system).not.toContain('RACED SECRET');
    if (system.includes('INSIDE')) readInside++;
  }
  // The race was really run: some reads found the directory in place.
  expect(readInside).toBeGreaterThan(0);
});
