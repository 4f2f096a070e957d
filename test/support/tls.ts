// A certificate authority made at test time with the openssl command, and certificates it signs, for the
// https variant of the test server. Nothing here is trusted by the system: only NODE_EXTRA_CA_CERTS makes it so.
import { execFileSync } from 'node:child_process';
import { readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { tempDir } from './run-agent.js';

export interface KeyPair {
  key: string;
  cert: string;
}

export interface TestCertificates {
  /** The CA certificate (PEM), the file to give NODE_EXTRA_CA_CERTS. */
  caFile: string;
  /** Signed by the CA, for 127.0.0.1 and localhost. */
  server: KeyPair;
  /** Signed by the CA, for another host name only. */
  otherHost: KeyPair;
  /** Signed by nobody. */
  selfSigned: KeyPair;
  /** Signs a new certificate for these subjectAltName entries (`DNS:api.example.test,IP:127.0.0.1`). */
  sign(altNames: string): KeyPair;
  cleanup(): void;
}

const EC_KEY = ['-newkey', 'ec', '-pkeyopt', 'ec_paramgen_curve:P-256', '-nodes'];

/** Fails with a clear message when openssl is missing, rather than with an obscure spawn error. */
export function requireOpenssl(): void {
  try {
    execFileSync('openssl', ['version'], { stdio: 'ignore' });
  } catch {
    throw new Error(
      'These tests make a certificate authority with the openssl command, which is not installed (apt-get install openssl).',
    );
  }
}

export function makeCertificates(): TestCertificates {
  requireOpenssl();
  const dir = tempDir('agent-tls-');
  const openssl = (...args: string[]) => execFileSync('openssl', args, { cwd: dir, stdio: 'pipe' });
  openssl(
    'req',
    '-x509',
    ...EC_KEY,
    '-keyout',
    'ca.key',
    '-out',
    'ca.pem',
    '-days',
    '2',
    '-subj',
    '/CN=agent test CA',
    '-addext',
    'basicConstraints=critical,CA:TRUE',
    '-addext',
    'keyUsage=critical,keyCertSign,cRLSign',
  );

  let count = 0;
  const sign = (altNames: string, name = `leaf${++count}`): KeyPair => {
    writeFileSync(
      join(dir, `${name}.ext`),
      `subjectAltName=${altNames}\nbasicConstraints=CA:FALSE\nextendedKeyUsage=serverAuth\n`,
    );
    openssl('req', ...EC_KEY, '-keyout', `${name}.key`, '-out', `${name}.csr`, '-subj', `/CN=${name}`);
    openssl(
      'x509',
      '-req',
      '-in',
      `${name}.csr`,
      '-CA',
      'ca.pem',
      '-CAkey',
      'ca.key',
      '-CAcreateserial',
      '-days',
      '2',
      '-extfile',
      `${name}.ext`,
      '-out',
      `${name}.pem`,
    );
    return {
      key: readFileSync(join(dir, `${name}.key`), 'utf8'),
      cert: readFileSync(join(dir, `${name}.pem`), 'utf8'),
    };
  };
  const server = sign('IP:127.0.0.1,DNS:localhost', 'server');
  const otherHost = sign('DNS:other-host.test', 'other');
  openssl(
    'req',
    '-x509',
    ...EC_KEY,
    '-keyout',
    'self.key',
    '-out',
    'self.pem',
    '-days',
    '2',
    '-subj',
    '/CN=127.0.0.1',
    '-addext',
    'subjectAltName=IP:127.0.0.1',
  );
  const selfSigned = {
    key: readFileSync(join(dir, 'self.key'), 'utf8'),
    cert: readFileSync(join(dir, 'self.pem'), 'utf8'),
  };

  return {
    caFile: join(dir, 'ca.pem'),
    server,
    otherHost,
    selfSigned,
    sign,
    cleanup: () => rmSync(dir, { recursive: true, force: true }),
  };
}
