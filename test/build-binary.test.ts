// The standalone binary, built from this checkout with the Node.js that runs the suite, runs a scripted turn against
// the test server with no Node.js on its PATH, over http and over https; a failed build leaves no binary and no
// checksum behind.

import { execFile, execFileSync, spawnSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { existsSync, mkdirSync, readFileSync, symlinkSync, writeFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { promisify } from 'node:util';
import { describe, expect, it } from 'vitest';
import { answer, baseEnv, bash, tempDir } from './support/run-agent.js';
import { startServer } from './support/server.js';
import { makeCertificates } from './support/tls.js';

const BUILD = resolve(import.meta.dirname, '../scripts/build-binary.mjs');
const BINARY = `agent-${process.platform}-${process.arch}`;

describe('the standalone binary', () => {
  it('runs a turn with no Node.js on PATH, and its checksum file matches it', { timeout: 120_000 }, async () => {
    const out = tempDir('agent-binary-');
    execFileSync(process.execPath, [BUILD, '--out', out], { stdio: ['ignore', 'pipe', 'pipe'] });
    const binary = join(out, BINARY);
    const [digest, name] = readFileSync(`${binary}.sha256`, 'utf8').trim().split(/\s+/);
    expect(name).toBe(BINARY);
    expect(createHash('sha256').update(readFileSync(binary)).digest('hex')).toBe(digest);

    const server = await startServer([bash('echo from-bash'), answer('all done')]);
    try {
      const tools = join(out, 'tools');
      mkdirSync(tools);
      for (const tool of ['bash', 'sh'])
        symlinkSync(execFileSync('sh', ['-c', `command -v ${tool}`], { encoding: 'utf8' }).trim(), join(tools, tool));
      const env = { ...baseEnv(server.url), PATH: tools };
      expect(spawnSync(join(tools, 'sh'), ['-c', 'command -v node'], { env }).status).not.toBe(0);
      // Asynchronously: the test server answers from this process.
      const run = await promisify(execFile)(binary, ['--no-stdin', '--output-format', 'json', 'go'], {
        env,
        cwd: out,
        timeout: 60_000,
      });
      expect(JSON.parse(run.stdout)).toMatchObject({ is_error: false, result: 'all done' });
      expect(JSON.stringify(server.validRequests().at(-1)?.body)).toContain('from-bash');
      const version = spawnSync(binary, ['--version'], { env, encoding: 'utf8' });
      expect(version.stdout.trim()).toBe(
        JSON.parse(readFileSync(resolve(import.meta.dirname, '../package.json'), 'utf8')).version,
      );

      // node:https loads only for an https endpoint, inside the binary as in the package.
      const certs = makeCertificates();
      const secure = await startServer([answer('over tls')], { tls: certs.server });
      try {
        const tlsEnv = { ...baseEnv(secure.url), PATH: tools, NODE_EXTRA_CA_CERTS: certs.caFile };
        const tlsArgs = ['--no-stdin', '--output-format', 'json', 'go'];
        const tlsRun = await promisify(execFile)(binary, tlsArgs, { env: tlsEnv, cwd: out, timeout: 60_000 });
        expect(JSON.parse(tlsRun.stdout)).toMatchObject({ is_error: false, result: 'over tls' });
      } finally {
        await secure.close();
        certs.cleanup();
      }
    } finally {
      await server.close();
    }
  });

  it('fails on a --node that is not Node.js, and leaves no binary and no checksum', () => {
    const out = tempDir('agent-binary-');
    const fake = join(out, 'not-node');
    writeFileSync(fake, '#!/bin/sh\nexit 1\n', { mode: 0o755 });
    writeFileSync(join(out, BINARY), 'an old binary');
    writeFileSync(join(out, `${BINARY}.sha256`), 'an old checksum');
    const build = spawnSync(process.execPath, [BUILD, '--node', fake, '--out', out], { encoding: 'utf8' });
    expect(build.status).not.toBe(0);
    expect(build.stderr).toContain('is not a Node.js that can run');
    expect(existsSync(join(out, BINARY))).toBe(false);
    expect(existsSync(join(out, `${BINARY}.sha256`))).toBe(false);
  });
});
