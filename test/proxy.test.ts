// HTTPS_PROXY / HTTP_PROXY / NO_PROXY through the binary, against the loopback proxy and test servers.
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { createServer } from 'node:net';
import type { AddressInfo } from 'node:net';
import { answer, answerWithLastResult, bash } from './support/run-agent.js';
import { startProxy, type TestProxy } from './support/proxy.js';
import { makeCertificates, type TestCertificates } from './support/tls.js';
import { useScratchRuns } from './support/scratch.js';
import { useServer } from './support/use-server.js';

const serve = useServer();
const runAgent = useScratchRuns();
let proxy: TestProxy | undefined;
let certs: TestCertificates;
beforeAll(() => {
  certs = makeCertificates();
});
afterAll(() => certs.cleanup());
afterEach(async () => {
  await proxy?.close();
  proxy = undefined;
});

async function useProxy(options: Parameters<typeof startProxy>[0] = {}): Promise<TestProxy> {
  proxy = await startProxy(options);
  return proxy;
}

/** A loopback port that nothing listens on. */
async function closedPort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  await new Promise<void>((resolve) => server.close(() => resolve()));
  return port;
}

describe('requests through a proxy', () => {
  it('tunnels an https API request through HTTPS_PROXY with CONNECT, and the commands see the variables unchanged', async () => {
    const s = await serve(
      [bash('printf "%s|%s|%s" "$HTTPS_PROXY" "$NO_PROXY" "$NODE_EXTRA_CA_CERTS"'), answerWithLastResult()],
      { tls: certs.server },
    );
    const p = await useProxy();
    const run = await runAgent(['go'], s.url, {
      env: { HTTPS_PROXY: p.url, NO_PROXY: 'example.test', NODE_EXTRA_CA_CERTS: certs.caFile },
    });
    expect(run.stderr).not.toMatch(/retrying/);
    expect(run.code).toBe(0);
    expect(run.stdout).toBe(`${p.url}|example.test|${certs.caFile}\n`);
    const port = new URL(s.url).port;
    // One kept-alive tunnel carries both requests.
    expect(p.seen).toEqual([
      { method: 'CONNECT', target: `127.0.0.1:${port}`, proxyAuthorization: undefined, status: 200 },
    ]);
    expect(s.validRequests()).toHaveLength(2);
  });

  it('prefers the lower-case https_proxy, and takes a proxy URL without a scheme as http://, as curl does', async () => {
    const s = await serve([answer('via the proxy')], { tls: certs.server });
    const p = await useProxy();
    const env = {
      https_proxy: `127.0.0.1:${p.port}`,
      HTTPS_PROXY: `http://127.0.0.1:${await closedPort()}`,
      NODE_EXTRA_CA_CERTS: certs.caFile,
    };
    const run = await runAgent(['go'], s.url, { env });
    expect(run.code).toBe(0);
    expect(run.stdout).toBe('via the proxy\n');
    expect(p.seen.map((record) => record.method)).toEqual(['CONNECT']);
  });

  it('sends an http API request to HTTP_PROXY as an absolute-URI request', async () => {
    const s = await serve([answer('forwarded')]);
    const p = await useProxy();
    const run = await runAgent(['go'], s.url, { env: { HTTP_PROXY: p.url, HTTPS_PROXY: 'http://127.0.0.1:9' } });
    expect(run.code).toBe(0);
    expect(run.stdout).toBe('forwarded\n');
    expect(p.seen).toEqual([
      { method: 'POST', target: `${s.url}/v1/messages`, proxyAuthorization: undefined, status: 200 },
    ]);
    expect(s.validRequests()).toHaveLength(1);
  });

  it('sends the credentials in the proxy URL to a proxy that demands them, percent-decoded', async () => {
    const s = await serve([answer('authenticated')], { tls: certs.server });
    const p = await useProxy({ credentials: { user: 'ci', password: 'p@ss word' } });
    const proxyUrl = `http://ci:p%40ss%20word@127.0.0.1:${p.port}`;
    const run = await runAgent(['go'], s.url, { env: { HTTPS_PROXY: proxyUrl, NODE_EXTRA_CA_CERTS: certs.caFile } });
    expect(run.code).toBe(0);
    expect(p.seen).toHaveLength(1);
    expect(p.seen[0]!.proxyAuthorization).toBe(`Basic ${Buffer.from('ci:p@ss word').toString('base64')}`);
    expect(p.seen[0]!.status).toBe(200);
  });

  it('reaches an https:// proxy over TLS, trusted through NODE_EXTRA_CA_CERTS like the server', async () => {
    const s = await serve([answer('two TLS layers')], { tls: certs.server });
    const p = await useProxy({ tls: certs.server });
    const run = await runAgent(['go'], s.url, { env: { HTTPS_PROXY: p.url, NODE_EXTRA_CA_CERTS: certs.caFile } });
    expect(run.code).toBe(0);
    expect(p.url).toMatch(/^https:/);
    expect(p.seen.map((record) => record.method)).toEqual(['CONNECT']);
  });

  it('prints neither the API key nor the proxy password with DEBUG=*', async () => {
    const s = await serve([answer('quiet')]);
    const p = await useProxy({ credentials: { user: 'ci', password: 'proxy-secret' } });
    const env = {
      DEBUG: '*',
      ANTHROPIC_API_KEY: 'sk-ant-api03-not-for-logs',
      HTTP_PROXY: `http://ci:proxy-secret@127.0.0.1:${p.port}`,
    };
    const run = await runAgent(['go'], s.url, { env });
    expect(run.code).toBe(0);
    expect(p.seen).toHaveLength(1);
    expect(run.stderr + run.stdout).not.toMatch(/not-for-logs|proxy-secret/);
  });
});

describe('NO_PROXY', () => {
  // The proxy refuses everything: a request that reached it could not succeed.
  it.each([
    ['the host itself', '127.0.0.1'],
    ['a CIDR range', '10.0.0.0/8,127.0.0.0/8'],
    ['*', '*'],
    ['entries separated by spaces and commas', ' example.test ,  127.0.0.1 '],
    ['the host with its port', '127.0.0.1:{port}'],
  ])('bypasses the proxy for %s', async (_what, noProxy) => {
    const s = await serve([answer('direct')]);
    const p = await useProxy({ refuseWith: 403 });
    const run = await runAgent(['go'], s.url, {
      env: { HTTP_PROXY: p.url, NO_PROXY: noProxy.replace('{port}', new URL(s.url).port) },
    });
    expect(run.code).toBe(0);
    expect(run.stdout).toBe('direct\n');
    expect(p.seen).toEqual([]);
  });

  it.each([
    ['a domain name and a leading-dot suffix', 'localhost.test,.localhost'],
    ['the host on another port', '127.0.0.1:1'],
    ['another address', '127.0.0.2'],
  ])('does not bypass the proxy for %s that does not match', async (_what, noProxy) => {
    const s = await serve([answer('proxied')]);
    const p = await useProxy();
    const run = await runAgent(['go'], s.url, { env: { http_proxy: p.url, no_proxy: noProxy } });
    expect(run.code).toBe(0);
    expect(p.seen).toHaveLength(1);
  });

  it('matches a name, its subdomains and a leading-dot entry against a host name', async () => {
    const s = await serve([answer('direct by name')]);
    const p = await useProxy({ refuseWith: 403 });
    const byName = s.url.replace('127.0.0.1', 'localhost');
    const run = await runAgent(['go'], byName, { env: { HTTP_PROXY: p.url, NO_PROXY: 'example.test .localhost' } });
    expect(run.code).toBe(0);
    expect(p.seen).toEqual([]);
  });
});

describe('a proxy that fails', () => {
  it('answers CONNECT with 407 when it wants credentials: exit 3 at once, saying so', async () => {
    const s = await serve([answer('never')], { tls: certs.server });
    const p = await useProxy({ credentials: { user: 'ci', password: 'right' } });
    const run = await runAgent(['go'], s.url, { env: { HTTPS_PROXY: p.url, NODE_EXTRA_CA_CERTS: certs.caFile } });
    expect(run.code).toBe(3);
    expect(run.stderr).toContain(
      `The proxy http://127.0.0.1:${p.port} (from HTTPS_PROXY) answered 407 Proxy Authentication Required to CONNECT 127.0.0.1:`,
    );
    expect(run.stderr).toContain('put them in HTTPS_PROXY as http://user:password@host:port');
    expect(run.stderr).not.toMatch(/retrying/);
    expect(p.seen).toHaveLength(1);
    expect(s.connections()).toBe(0);
  });

  it('answers a forwarded http request with 407: exit 3 at once, saying so', async () => {
    const s = await serve([answer('never')]);
    const p = await useProxy({ credentials: { user: 'ci', password: 'right' } });
    const run = await runAgent(['go'], s.url, { env: { HTTP_PROXY: p.url } });
    expect(run.code).toBe(3);
    expect(run.stderr).toContain(
      `(from HTTP_PROXY) answered 407 Proxy Authentication Required to a request for 127.0.0.1:${new URL(s.url).port}`,
    );
    expect(run.stderr).toContain('put them in HTTP_PROXY as http://user:password@host:port');
    expect(p.seen).toHaveLength(1);
    expect(s.requests).toEqual([]);
  });

  it('rejects wrong credentials with 407: exit 3, the password never printed', async () => {
    const s = await serve([answer('never')], { tls: certs.server });
    const p = await useProxy({ credentials: { user: 'ci', password: 'right' } });
    const run = await runAgent(['go'], s.url, {
      env: { HTTPS_PROXY: `http://ci:wrong-secret@127.0.0.1:${p.port}`, NODE_EXTRA_CA_CERTS: certs.caFile },
    });
    expect(run.code).toBe(3);
    expect(run.stderr).toContain(`http://ci:***@127.0.0.1:${p.port}`);
    expect(run.stderr).toContain('did not accept the user name and password in HTTPS_PROXY');
    expect(run.stderr).not.toContain('wrong-secret');
  });

  it('answers CONNECT with 403: exit 3 at once, saying so', async () => {
    const s = await serve([answer('never')], { tls: certs.server });
    const p = await useProxy({ refuseWith: 403 });
    const run = await runAgent(['--output-format', 'json', 'go'], s.url, {
      env: { HTTPS_PROXY: p.url, NODE_EXTRA_CA_CERTS: certs.caFile },
    });
    expect(run.code).toBe(3);
    expect(run.stderr).toMatch(/answered 403 Forbidden to CONNECT 127\.0\.0\.1:\d+/);
    expect(run.stderr).toContain('does not allow connections to 127.0.0.1');
    expect(JSON.parse(run.stdout)).toMatchObject({ is_error: true, exit_code: 3 });
    expect(p.seen).toHaveLength(1);
  });

  it('answers CONNECT with 502 when it cannot reach the API: retried like a connection failure', async () => {
    const s = await serve([answer('never')], { tls: certs.server });
    const p = await useProxy({ refuseWith: 502 });
    const run = await runAgent(['go'], s.url, { env: { HTTPS_PROXY: p.url, NODE_EXTRA_CA_CERTS: certs.caFile } });
    expect(run.code).toBe(3);
    expect(run.stderr).toMatch(/retrying .*answered 502 Bad Gateway/);
    expect(p.seen.length).toBeGreaterThan(1);
  });

  it('refuses the connection: retried, and the message names the proxy, not the API', async () => {
    const s = await serve([answer('never')]);
    const port = await closedPort();
    const run = await runAgent(['go'], s.url, { env: { HTTP_PROXY: `http://127.0.0.1:${port}` } });
    expect(run.code).toBe(3);
    const proxyNamed = `cannot connect to the proxy http://127.0.0.1:${port} (from HTTP_PROXY): connect ECONNREFUSED`;
    expect(run.stderr).toContain(`retrying in`);
    expect(run.stderr.split(proxyNamed).length - 1).toBe(6); // 5 retries announced, then the final error
    expect(run.stderr).toContain('gave up after 6 attempts');
    expect(s.requests).toEqual([]);
  });
});

describe('proxy settings that cannot be used', () => {
  it.each([
    [
      'a SOCKS proxy',
      'socks5://user:hidden@127.0.0.1:1080',
      /HTTPS_PROXY=socks5:\/\/user:\*\*\*@127\.0\.0\.1:1080: SOCKS proxies are not supported/,
    ],
    [
      'an unknown scheme',
      'ftp://127.0.0.1:2121',
      /HTTPS_PROXY=ftp:\/\/127\.0\.0\.1:2121: the ftp:\/\/ scheme is not supported/,
    ],
    ['no host', 'http://', /HTTPS_PROXY is not a valid proxy URL: 'http:\/\/'/],
    [
      'a malformed URL',
      'http://user:hidden@127.0.0.1:99999',
      /HTTPS_PROXY is not a valid proxy URL: 'http:\/\/user:\*\*\*@127\.0\.0\.1:99999'/,
    ],
  ])('%s is exit 2 before any request', async (_what, value, message) => {
    const s = await serve([answer('never')], { tls: certs.server });
    const run = await runAgent(['go'], s.url, { env: { HTTPS_PROXY: value } });
    expect(run.code).toBe(2);
    expect(run.stderr).toMatch(message);
    expect(run.stderr).not.toContain('hidden');
    expect(run.stderr.trim().split('\n')).toHaveLength(1);
    expect(s.connections()).toBe(0);
  });

  it('is not checked when NO_PROXY exempts the API host, as curl would not use it', async () => {
    const s = await serve([answer('direct')]);
    const run = await runAgent(['go'], s.url, {
      env: { HTTP_PROXY: 'socks5://127.0.0.1:1080', NO_PROXY: '127.0.0.1' },
    });
    expect(run.code).toBe(0);
  });
});
