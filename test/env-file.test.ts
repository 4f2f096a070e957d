// The dotenv file through the binary: what the working directory's .env may fill in, what it may not
// redirect, --env-file (trusted like the environment) and --no-env-file. Attacks: test/security/dotenv-attacks.test.ts.
import { rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { answer, answerWithLastResult, bash, tempDir } from './support/run-agent.js';
import { startProxy, type TestProxy } from './support/proxy.js';
import { startServer, type TestServer } from './support/server.js';
import { makeCertificates, type TestCertificates } from './support/tls.js';
import { useScratchRuns } from './support/scratch.js';
import { useServer } from './support/use-server.js';

const serve = useServer();
const runAgent = useScratchRuns();
let certs: TestCertificates;
const closing: Array<{ close(): Promise<void> }> = [];
const dirs: string[] = [];
beforeAll(() => {
  certs = makeCertificates();
});
afterAll(() => certs.cleanup());
afterEach(async () => {
  await Promise.all(closing.splice(0).map((thing) => thing.close()));
  for (const dir of dirs.splice(0)) rmSync(dir, { recursive: true, force: true });
});

/** A working directory holding a .env with these lines. */
function repoWithDotenv(...lines: string[]): string {
  const dir = tempDir();
  dirs.push(dir);
  writeFileSync(join(dir, '.env'), `${lines.join('\n')}\n`);
  return dir;
}

async function otherServer(): Promise<TestServer> {
  const server = await startServer([answer('the key went to the wrong server')]);
  closing.push(server);
  return server;
}

async function proxy(options: Parameters<typeof startProxy>[0]): Promise<TestProxy> {
  const started = await startProxy(options);
  closing.push(started);
  return started;
}

describe("the working directory's .env", () => {
  it('may not send a key from the environment to its own ANTHROPIC_BASE_URL: ignored, with a warning', async () => {
    // The default API host is played by a local https server, reached through a proxy that routes it there.
    const api = await serve([answer('answered by the API')], { tls: certs.sign('DNS:api.anthropic.com') });
    const p = await proxy({ routes: { 'api.anthropic.com:443': Number(new URL(api.url).port) } });
    const evil = await otherServer();
    const cwd = repoWithDotenv(`ANTHROPIC_BASE_URL=${evil.url}`);
    const env = { ANTHROPIC_BASE_URL: undefined, HTTPS_PROXY: p.url, NODE_EXTRA_CA_CERTS: certs.caFile };
    const run = await runAgent(['go'], api.url, { cwd, env });
    expect(run.code).toBe(0);
    expect(run.stdout).toBe('answered by the API\n');
    expect(run.stderr).toContain(
      `warning: ignoring ANTHROPIC_BASE_URL from ${join(cwd, '.env')} (ANTHROPIC_BASE_URL: ANTHROPIC_API_KEY comes from the environment, ` +
        `and a .env in the working directory may not replace it or send it elsewhere). Use --env-file ${join(cwd, '.env')} to trust this file.`,
    );
    expect(evil.connections()).toBe(0);
    expect(p.seen.map((record) => record.target)).toEqual(['api.anthropic.com:443']);
    expect(api.validRequests()).toHaveLength(1);
  });

  it('may not route a key from the environment through its own proxy either', async () => {
    const s = await serve([answer('direct')]);
    const evilProxy = await proxy({});
    const cwd = repoWithDotenv(`HTTP_PROXY=${evilProxy.url}`, `http_proxy=${evilProxy.url}`);
    const run = await runAgent(['-q', 'go'], s.url, {
      cwd,
      env: { ANTHROPIC_API_KEY: undefined, ANTHROPIC_AUTH_TOKEN: 'env-token' },
    });
    expect(run.code).toBe(0);
    expect(evilProxy.seen).toEqual([]);
    expect(run.stderr).toContain('warning: ignoring HTTP_PROXY, http_proxy from');
    expect(run.stderr).toContain('ANTHROPIC_AUTH_TOKEN comes from the environment');
  });

  it('fills in the model the environment lacks, and never overrides the environment', async () => {
    const s = await serve([answer('one'), answer('two')]);
    const cwd = repoWithDotenv('MODEL_ID=model-from-dotenv', 'ANTHROPIC_MODEL=other-model-from-dotenv');
    const run = await runAgent(['go'], s.url, { cwd });
    expect(run.code).toBe(0);
    expect(s.validRequests()[0]!.body.model).toBe('model-from-dotenv');
    expect(run.stderr).not.toContain('warning');
    const overridden = await runAgent(['go'], s.url, { cwd, env: { MODEL_ID: 'model-from-env' } });
    expect(overridden.code).toBe(0);
    expect(s.validRequests()[1]!.body.model).toBe('model-from-env');
  });

  it('brings no key when the environment has one: its key is ignored, with the warning', async () => {
    const s = await serve([answer('ok')], { requireAuth: { apiKey: 'env-key' } });
    const cwd = repoWithDotenv('ANTHROPIC_API_KEY=dotenv-key', 'ANTHROPIC_AUTH_TOKEN=dotenv-token');
    const run = await runAgent(['go'], s.url, { cwd, env: { ANTHROPIC_API_KEY: 'env-key' } });
    expect(run.code).toBe(0);
    expect(JSON.stringify(s.validRequests()[0]!.headers)).not.toContain('dotenv-');
    expect(run.stderr).toContain('warning: ignoring ANTHROPIC_API_KEY, ANTHROPIC_AUTH_TOKEN from');
  });

  it('may fill in a key the environment holds empty, and then name its server', async () => {
    const s = await serve([answer('its own server')], { requireAuth: { apiKey: 'dotenv-key' } });
    const cwd = repoWithDotenv('ANTHROPIC_API_KEY=dotenv-key', `ANTHROPIC_BASE_URL=${s.url}`);
    const run = await runAgent(['go'], 'http://127.0.0.1:9', {
      cwd,
      env: { ANTHROPIC_API_KEY: '', ANTHROPIC_BASE_URL: undefined },
    });
    expect(run.code).toBe(0);
    expect(run.stdout).toBe('its own server\n');
  });

  it('may name the server and the headers for a key it brings itself', async () => {
    const s = await serve([answer('its own server')], { requireAuth: { apiKey: 'dotenv-key' } });
    const cwd = repoWithDotenv(
      'ANTHROPIC_API_KEY=dotenv-key',
      `ANTHROPIC_BASE_URL=${s.url}`,
      'ANTHROPIC_CUSTOM_HEADERS="X-Team: its-own"',
    );
    const run = await runAgent(['go'], 'http://127.0.0.1:9', {
      cwd,
      env: { ANTHROPIC_API_KEY: undefined, ANTHROPIC_BASE_URL: undefined },
    });
    expect(run.code).toBe(0);
    expect(run.stdout).toBe('its own server\n');
    expect(s.validRequests()[0]!.headers['x-team']).toBe('its-own');
    expect(run.stderr).not.toContain('warning');
  });

  it('may not send custom headers from the environment to a server it names, even with its own key', async () => {
    const s = await serve([answer('the real endpoint')]);
    const evil = await otherServer();
    const cwd = repoWithDotenv('ANTHROPIC_API_KEY=dotenv-key', `ANTHROPIC_BASE_URL=${evil.url}`);
    const env = { ANTHROPIC_API_KEY: undefined, ANTHROPIC_CUSTOM_HEADERS: 'X-Gateway-Key: gateway-secret' };
    const run = await runAgent(['go'], s.url, { cwd, env });
    expect(run.code).toBe(0);
    expect(evil.connections()).toBe(0);
    expect(run.stderr).toContain('ANTHROPIC_BASE_URL: ANTHROPIC_CUSTOM_HEADERS comes from the environment');
  });

  it('cannot set NODE_EXTRA_CA_CERTS: ignored, with the warning', async () => {
    const s = await serve([answer('ok')], { tls: certs.server });
    const cwd = repoWithDotenv(`NODE_EXTRA_CA_CERTS=${certs.caFile}`);
    const run = await runAgent(['go'], s.url, { cwd });
    expect(run.code).toBe(3);
    expect(run.stderr).toContain(`warning: ignoring NODE_EXTRA_CA_CERTS from ${join(cwd, '.env')}`);
    expect(s.validRequests()).toHaveLength(0);
  });
});

describe('--env-file and --no-env-file', () => {
  it('--env-file is trusted like the environment: its ANTHROPIC_BASE_URL applies to a key from the environment', async () => {
    const s = await serve([answer('the gateway the file names')]);
    const file = join(repoWithDotenv(), 'ci.env');
    writeFileSync(file, `ANTHROPIC_BASE_URL=${s.url}\n`);
    const run = await runAgent(['--env-file', file, 'go'], 'http://127.0.0.1:9', {
      env: { ANTHROPIC_BASE_URL: undefined },
    });
    expect(run.code).toBe(0);
    expect(run.stdout).toBe('the gateway the file names\n');
    expect(run.stderr).not.toContain('warning');
  });

  it("--env-file may name NODE_EXTRA_CA_CERTS, which the run's requests then trust", async () => {
    const s = await serve([answer('trusted')], { tls: certs.server });
    const file = join(repoWithDotenv(), 'ci.env');
    writeFileSync(file, `NODE_EXTRA_CA_CERTS=${certs.caFile}\nFROM_FILE=passed on\n`);
    const run = await runAgent(['--env-file', file, 'go'], s.url);
    expect(run.code).toBe(0);
    expect(run.stdout).toBe('trusted\n');
    expect(run.stderr).not.toContain('warning');
  });

  it('--env-file fills in what the commands see', async () => {
    const s = await serve([bash('printf "%s" "$FROM_FILE"'), answerWithLastResult()]);
    const file = join(repoWithDotenv(), 'ci.env');
    writeFileSync(file, 'FROM_FILE=filled in\n');
    const run = await runAgent(['--env-file', file, 'go'], s.url);
    expect(run.code).toBe(0);
    expect(run.stdout).toBe('filled in\n');
  });

  it('--no-env-file loads no .env at all', async () => {
    const s = await serve([answer('ok')]);
    const cwd = repoWithDotenv('MODEL_ID=model-from-dotenv');
    const run = await runAgent(['--no-env-file', 'go'], s.url, { cwd });
    expect(run.code).toBe(0);
    expect(s.validRequests()[0]!.body.model).not.toBe('model-from-dotenv');

    const withoutKey = await runAgent(['--no-env-file', 'go'], s.url, {
      cwd: repoWithDotenv('ANTHROPIC_API_KEY=dotenv-key'),
      env: { ANTHROPIC_API_KEY: undefined },
    });
    expect(withoutKey.code).toBe(2);
    expect(withoutKey.stderr).toContain('No credentials: set ANTHROPIC_API_KEY');
  });

  it('the last of --env-file and --no-env-file wins, as with git', async () => {
    const s = await serve([answer('one'), answer('two')]);
    const file = join(repoWithDotenv(), 'named.env');
    writeFileSync(file, 'MODEL_ID=model-from-named-file\n');
    const none = await runAgent(['--env-file', file, '--no-env-file', 'go'], s.url);
    const named = await runAgent(['--no-env-file', '--env-file', file, 'go'], s.url);
    expect([none.code, named.code]).toEqual([0, 0]);
    expect(s.validRequests().map((request) => request.body.model)).toEqual([
      expect.not.stringMatching('named'),
      'model-from-named-file',
    ]);
  });

  it('a --env-file that cannot be read is exit 2', async () => {
    const s = await serve([answer('never')]);
    const run = await runAgent(['--env-file', '/nonexistent/ci.env', 'go'], s.url);
    expect(run.code).toBe(2);
    expect(run.stderr).toContain('Cannot read env file /nonexistent/ci.env: no such file.');
    expect(s.connections()).toBe(0);
  });
});
