// The package as users install it: `npm pack`, then `npm install --global` of the tarball into a fresh prefix,
// offline, since the bundle needs nothing from the registry. The installed command must run on its own.
import { execFileSync, spawnSync } from 'node:child_process';
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { answer, runAgent, tempDir } from './support/run-agent.js';
import { useServer } from './support/use-server.js';

const ROOT = resolve(import.meta.dirname, '..');
const serve = useServer();
let prefix = '';
let installLog = '';

// npm on Node 22 and later keeps a compile cache in the temporary directory, which is not this suite's to leave.
const npmEnv = { ...process.env, NODE_DISABLE_COMPILE_CACHE: '1' };

beforeAll(() => {
  const work = tempDir('agent-pack-');
  const packed = execFileSync('npm', ['pack', '--ignore-scripts', '--json', '--pack-destination', work], {
    cwd: ROOT,
    encoding: 'utf8',
    env: npmEnv,
  });
  const { filename } = (JSON.parse(packed) as Array<{ filename: string }>)[0]!;
  prefix = join(work, 'prefix');
  const install = spawnSync(
    'npm',
    ['install', '--global', '--offline', '--no-audit', '--no-fund', '--prefix', prefix, join(work, filename)],
    {
      cwd: work,
      encoding: 'utf8',
      env: npmEnv,
    },
  );
  installLog = `${install.stdout}${install.stderr}`;
  if (install.status !== 0) throw new Error(`npm install --global of the tarball failed:\n${installLog}`);
}, 120_000);

describe('the packed tarball installed globally', () => {
  it('brings the bundle and nothing else: one package, no dependencies, no install scripts', () => {
    expect(readdirSync(join(prefix, 'lib', 'node_modules'))).toEqual(['agent-cli']);
    const installed = join(prefix, 'lib', 'node_modules', 'agent-cli');
    expect(existsSync(join(installed, 'node_modules'))).toBe(false);
    expect(readdirSync(installed).sort()).toEqual(['LICENSE', 'README.md', 'bin', 'dist', 'package.json', 'schema']);
    expect(installLog).not.toMatch(/install-scripts|prepare/);
  });

  it("ships the licence and the bundled packages' licence notices", () => {
    const installed = join(prefix, 'lib', 'node_modules', 'agent-cli');
    expect(readFileSync(join(installed, 'LICENSE'), 'utf8')).toMatch(/^MIT License/);
    const notices = readFileSync(join(installed, 'dist', 'THIRD-PARTY-LICENSES.txt'), 'utf8');
    for (const name of [
      '@anthropic-ai/sdk',
      'ajv',
      'ajv-formats',
      'commander',
      'dotenv',
      'https-proxy-agent',
      'ora',
      'unbash',
      'zx',
    ]) {
      expect(notices).toMatch(new RegExp(`^- ${name.replace('/', '\\/')} \\d+\\.\\d+\\.\\d+ \\(`, 'm'));
    }
    expect(notices).toContain('Apache License');
    // The SDK ships its earlier licence as LICENSE-MIT, beside LICENSE.
    expect(notices).toContain(
      readFileSync(join(ROOT, 'node_modules', '@anthropic-ai', 'sdk', 'LICENSE-MIT'), 'utf8').trim(),
    );
  });

  it('runs as `agent` from the prefix against an Anthropic-compatible server', async () => {
    const s = await serve([answer('installed and working')]);
    const bin = join(prefix, 'bin', 'agent');
    const run = await runAgent(['--output-format', 'json', 'say it works'], s.url, { bin });
    expect(run.code).toBe(0);
    expect(JSON.parse(run.stdout)).toMatchObject({ subtype: 'success', result: 'installed and working' });
    expect(spawnSync(bin, ['--version'], { encoding: 'utf8' }).stdout.trim()).toBe(
      JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8')).version,
    );
  });
});
