// Where the run-wide bounded /tmp cannot be had (no nsenter here; an older bubblewrap alike), the run still works,
// on a /tmp of the run's own on the host's disk, and says so. A bad size is a usage error before any request.
import { statSync, symlinkSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { answer, bash, tempDir, toolResults } from '../support/run-agent.js';
import { useServer } from '../support/use-server.js';
import { bwrapPath, outsideTmp, runSandboxed } from './attack-support.js';

/** A PATH with only what the run needs, and no nsenter. */
function pathWithoutNsenter(): string {
  // Outside /tmp, which the sandbox makes private: the commands find their programs here too.
  const bin = outsideTmp('agent-bin-');
  for (const name of ['node', 'bwrap', 'bash', 'sh', 'cat', 'df', 'tail']) {
    const found = (process.env.PATH ?? '')
      .split(':')
      .map((dir) => join(dir, name))
      .find((path) => {
        try {
          return statSync(path).isFile();
        } catch {
          return false;
        }
      });
    if (found) symlinkSync(found, join(bin, name));
  }
  return bin;
}

describe.skipIf(bwrapPath === undefined)('--sandbox: /tmp without a bounded tmpfs, and bad sizes', () => {
  const serve = useServer();

  it('without nsenter, /tmp lasts the run on the host, with a warning', async () => {
    const s = await serve([bash('echo kept > /tmp/keep'), bash('cat /tmp/keep'), answer('done')]);
    const run = await runSandboxed(['go'], s.url, { cwd: tempDir(), env: { PATH: pathWithoutNsenter() } });
    expect(run.code).toBe(0);
    expect(run.stderr).toContain('not a tmpfs of bounded size (nsenter (util-linux) is not on PATH)');
    expect(toolResults(s.requests[2]!)[0]!.content).toBe('kept');
  });

  it.each([['5'], ['lots'], ['0G']])('--sandbox-tmp-size %s is exit 2 before any request', async (size) => {
    const s = await serve([answer('never')]);
    const run = await runSandboxed(['--sandbox-tmp-size', size, 'go'], s.url, { cwd: tempDir() });
    expect(run.code).toBe(2);
    expect(run.stderr).toContain('--sandbox-tmp-size');
    expect(s.requests).toHaveLength(0);
  });
});
