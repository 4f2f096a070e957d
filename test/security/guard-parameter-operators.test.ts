// The guard and bash's parameter operators, through the binary: a target built on a variable with its end or start
// trimmed, a slice, an indirect reference, or `~+` is still built on that variable. Stand-ins for rm come first on
// PATH, so a command that slips through is visible and harmless.
import { chmodSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { answer, bash, runAgent, tempDir, toolResults } from '../support/run-agent.js';
import type { TestServer } from '../support/server.js';
import { useServer } from '../support/use-server.js';

const serve = useServer();
const results = (s: TestServer) =>
  s
    .validRequests()
    .slice(1)
    .map((request) => toolResults(request)[0]!);

function fakeRmPath(): string {
  const bin = tempDir('agent-fake-bin-');
  writeFileSync(join(bin, 'rm'), '#!/bin/sh\necho "fake rm ran: $*"\n');
  chmodSync(join(bin, 'rm'), 0o755);
  return `${bin}:${process.env.PATH}`;
}

const ATTACKS: readonly string[] = [
  'rm -rf "${BUILD_DIR%/}"/*',
  'rm -rf "${BUILD_DIR#./}"/*',
  'rm -rf "${BUILD_DIR/x/y}"/*',
  'rm -rf "${BUILD_DIR,,}"/*',
  'rm -rf "${HOME#/home/u}"/*',
  'rm -rf "${HOME:0:1}"',
  'rm -rf "${HOME%/*}"/*',
  'rm -rf "${HOME%%/*}"/*',
  'rm -rf ~+/../../..',
  'N=HOME; rm -rf "${!N}"',
  'rm -rf "${!N}"/*',
];

describe('the guard reads parameter operators, through the binary', () => {
  it('blocks a recursive rm whose target is built on a trimmed, sliced or indirect variable', async () => {
    const s = await serve([...ATTACKS.map((command) => bash(command)), answer('ok')]);
    const cwd = tempDir();
    await runAgent(['go'], s.url, { cwd, env: { PATH: fakeRmPath(), BUILD_DIR: undefined, HOME: '/home/u' } });
    const seen = results(s);
    expect(seen).toHaveLength(ATTACKS.length);
    const slipped = ATTACKS.filter((_, index) => !/^blocked by the guard/.test(seen[index]!.content));
    expect(slipped).toEqual([]);
  });

  it('allows the same operators on a variable that holds a project path', async () => {
    const build = tempDir('agent-build-');
    const commands = ['rm -rf "${BUILD_DIR%/}"/*', 'rm -rf "${BUILD_DIR%/*}/x"', 'rm -rf "${BUILD_DIR#/}"'];
    const s = await serve([...commands.map((command) => bash(command)), answer('ok')]);
    await runAgent(['go'], s.url, { cwd: build, env: { PATH: fakeRmPath(), BUILD_DIR: `${build}/out/` } });
    for (const result of results(s)) expect(result.content).toContain('fake rm ran');
  });
});
