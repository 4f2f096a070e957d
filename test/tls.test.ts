// TLS through the binary: a certificate authority made at test time, NODE_EXTRA_CA_CERTS, and the failures
// that must not be retried.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { join } from 'node:path';
import { answer } from './support/run-agent.js';
import { makeCertificates, type TestCertificates } from './support/tls.js';
import { useScratchRuns } from './support/scratch.js';
import { useServer } from './support/use-server.js';

const serve = useServer();
const runAgent = useScratchRuns();
let certs: TestCertificates;
beforeAll(() => {
  certs = makeCertificates();
});
afterAll(() => certs.cleanup());

/** Exit 3 after one connection: no retry announced, the API never reached. */
function expectFailedAtOnce(run: { code: number | null; stderr: string }, connections: number): void {
  expect(run.code).toBe(3);
  expect(run.stderr).not.toMatch(/retrying/);
  expect(connections).toBe(1);
  expect(run.stderr).toContain('NODE_EXTRA_CA_CERTS');
}

describe('TLS to the API', () => {
  it('trusts a server whose authority NODE_EXTRA_CA_CERTS names', async () => {
    const s = await serve([answer('over https')], { tls: certs.server });
    const run = await runAgent(['go'], s.url, { env: { NODE_EXTRA_CA_CERTS: certs.caFile } });
    expect(run.stderr).not.toMatch(/warning|TLS|retrying/);
    expect(run.code).toBe(0);
    expect(run.stdout).toBe('over https\n');
    expect(s.validRequests()).toHaveLength(1);
  });

  it('without NODE_EXTRA_CA_CERTS, an unknown authority is exit 3 at once, with the hint', async () => {
    const s = await serve([answer('never')], { tls: certs.server });
    const run = await runAgent(['go'], s.url);
    expectFailedAtOnce(run, s.connections());
    expect(run.stderr).toContain(
      `TLS with ${s.url} failed: unable to verify the first certificate (UNABLE_TO_VERIFY_LEAF_SIGNATURE)`,
    );
    expect(run.stderr).toContain('set NODE_EXTRA_CA_CERTS to its CA certificate (PEM file)');
    expect(s.requests).toEqual([]);
  });

  it('a self-signed certificate is exit 3 at once, with the hint', async () => {
    const s = await serve([answer('never')], { tls: certs.selfSigned });
    const run = await runAgent(['--output-format', 'json', 'go'], s.url);
    expectFailedAtOnce(run, s.connections());
    expect(run.stderr).toContain('self-signed certificate (DEPTH_ZERO_SELF_SIGNED_CERT)');
    expect(JSON.parse(run.stdout)).toMatchObject({ is_error: true, exit_code: 3, subtype: 'error_api' });
  });

  it('a NODE_EXTRA_CA_CERTS that holds another authority is named as the culprit', async () => {
    const s = await serve([answer('never')], { tls: certs.selfSigned });
    const run = await runAgent(['go'], s.url, { env: { NODE_EXTRA_CA_CERTS: certs.caFile } });
    expectFailedAtOnce(run, s.connections());
    expect(run.stderr).toContain(
      `NODE_EXTRA_CA_CERTS (${certs.caFile}) holds no authority that signed this certificate`,
    );
  });

  it('a certificate for another host name is exit 3 at once, saying so', async () => {
    const s = await serve([answer('never')], { tls: certs.otherHost });
    const run = await runAgent(['go'], s.url, { env: { NODE_EXTRA_CA_CERTS: certs.caFile } });
    expectFailedAtOnce(run, s.connections());
    expect(run.stderr).toContain("IP: 127.0.0.1 is not in the cert's list");
    expect(run.stderr).toContain('(ERR_TLS_CERT_ALTNAME_INVALID)');
    expect(run.stderr).toContain('The certificate is for another host name: check the host in ANTHROPIC_BASE_URL');
  });

  it('https:// to a plain-http port is exit 3 at once, pointing at the URL', async () => {
    const s = await serve([answer('never')]);
    const run = await runAgent(['go'], s.url.replace('http:', 'https:'));
    expectFailedAtOnce(run, s.connections());
    expect(run.stderr).toMatch(
      /TLS with https:\/\/127\.0\.0\.1:\d+ failed: .*(wrong version number|packet length too long)/,
    );
    expect(run.stderr).toContain('if it is a plain http endpoint, use an http:// URL');
  });

  it('a NODE_EXTRA_CA_CERTS file that does not exist: a warning at the start, and the failure says why', async () => {
    const s = await serve([answer('never')], { tls: certs.server });
    const missing = join(certs.caFile, '..', 'no-such-ca.pem');
    const run = await runAgent(['go'], s.url, { env: { NODE_EXTRA_CA_CERTS: missing } });
    expect(run.stderr).toContain(
      `warning: NODE_EXTRA_CA_CERTS names ${missing}, which cannot be read (ENOENT): no extra certificate authority is trusted.`,
    );
    expectFailedAtOnce(run, s.connections());
    expect(run.stderr).toContain(
      `NODE_EXTRA_CA_CERTS (${missing}) cannot be read (ENOENT), so no extra authority is trusted.`,
    );
  });

  it('a missing NODE_EXTRA_CA_CERTS file does not stop a run that needs no extra authority', async () => {
    const s = await serve([answer('plain http is fine')]);
    const run = await runAgent(['go'], s.url, { env: { NODE_EXTRA_CA_CERTS: '/nonexistent/ca.pem' } });
    expect(run.code).toBe(0);
    expect(run.stderr).toContain(
      'warning: NODE_EXTRA_CA_CERTS names /nonexistent/ca.pem, which cannot be read (ENOENT)',
    );
  });
});
