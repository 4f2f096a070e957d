// The guard and shell variables, through the binary: the model writes the commands that wipe disks when a
// variable is unset or holds `/`, and the guard must stop them before bash runs them. Stand-ins for rm, chmod and
// chown come first on PATH, so a command that slips through is visible and harmless.
import { existsSync, mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { answer, bash, runAgent, tempDir, toolResults } from './support/run-agent.js';
import type { TestServer } from './support/server.js';
import { useServer } from './support/use-server.js';
import { fakePath } from './support/stand-ins.js';

const serve = useServer();
const results = (s: TestServer) =>
  s
    .validRequests()
    .slice(1)
    .map((request) => toolResults(request)[0]!);

const ATTACKS: readonly string[] = [
  'rm -rf "$BUILD_DIR"/*',
  'rm -rf $BUILD_DIR/',
  'rm -rf "$EMPTY_DIR"/*',
  'D=/usr; rm -rf $D',
  'export D=/; rm -rf "$D"',
  'rm -rf ${VAR:-/}',
  'rm -rf $GLOB',
  'D="/tmp/x /"; rm -rf $D',
  'D=/; bash -c "rm -rf $D"',
  'chmod -R 777 "$BUILD_DIR"/',
  'chown -R nobody "$BUILD_DIR"/usr/lib',
  'cd /; rm -rf "$PWD"/*',
];

describe('the guard resolves variables, through the binary', () => {
  it('blocks a recursive rm, chmod or chown whose target is / once its variables are read', async () => {
    const s = await serve([...ATTACKS.map((command) => bash(command)), answer('ok')]);
    await runAgent(['go'], s.url, {
      env: { PATH: fakePath('rm', 'chmod', 'chown'), BUILD_DIR: undefined, VAR: undefined, EMPTY_DIR: '', GLOB: '/*' },
    });
    const seen = results(s);
    expect(seen).toHaveLength(ATTACKS.length);
    const slipped = (index: number) => seen[index]!.is_error !== true || seen[index]!.content.includes('fake ');
    const ranOrAllowed = ATTACKS.filter((_, index) => slipped(index));
    expect(ranOrAllowed).toEqual([]);
    for (const result of seen) expect(result.content).toMatch(/^blocked by the guard/);
    expect(seen[0]!.content).toMatch(/unset or empty/);
  });

  it('lets ${VAR:?} through: bash itself stops the command', async () => {
    const s = await serve([bash('rm -rf "${BUILD_DIR:?}"/*'), answer('ok')]);
    await runAgent(['go'], s.url, { env: { PATH: fakePath('rm'), BUILD_DIR: undefined } });
    const [result] = results(s);
    expect(result!.is_error).toBeUndefined();
    expect(result!.content).toMatch(/BUILD_DIR: parameter null or not set/);
    expect(result!.content).not.toContain('fake rm ran');
  });

  it('runs ordinary work: a variable set in the same command, or in the environment the commands get', async () => {
    const dir = tempDir();
    mkdirSync(join(dir, 'dist'));
    const build = tempDir('agent-build-');
    writeFileSync(join(build, 'out.o'), '');
    const s = await serve([bash('OUT=./dist; rm -rf "$OUT"'), bash('rm -rf "$BUILD_DIR"/*'), answer('ok')]);
    await runAgent(['go'], s.url, { cwd: dir, env: { BUILD_DIR: build } });
    const [first, second] = results(s);
    expect(first!.is_error).toBeUndefined();
    expect(second!.is_error).toBeUndefined();
    expect(existsSync(join(dir, 'dist'))).toBe(false);
    expect(existsSync(join(build, 'out.o'))).toBe(false);
    expect(existsSync(build)).toBe(true);
  });
});
