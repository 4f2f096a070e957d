// What went wrong below HTTP: a TLS failure (never retried: it will not heal by itself), or a proxy that
// could not be reached or refused the tunnel. The transport raises these; the retry policy asks here first.
import { accessSync, constants } from 'node:fs';

/** The proxy itself could not be reached: retried like any connection failure, naming the proxy. */
export class ProxyUnreachable extends Error {
  override name = 'ProxyUnreachable';
  readonly code: string | undefined;
  constructor(proxy: string, variable: string, cause: Error) {
    const code = (cause as NodeJS.ErrnoException).code;
    super(
      `cannot connect to the proxy ${proxy} (from ${variable}): ${code && !cause.message.includes(code) ? `${code}: ` : ''}${cause.message}`,
      { cause },
    );
    this.code = code;
  }
}

/** The proxy refused: a CONNECT answered with something other than 200, or a forwarded request answered 407. */
export class ProxyRefused extends Error {
  override name = 'ProxyRefused';
  constructor(
    readonly proxy: string,
    readonly variable: string,
    readonly target: string,
    readonly status: number,
    readonly statusText: string,
    readonly sentCredentials: boolean,
    tunnel: boolean,
  ) {
    super(
      `the proxy ${proxy} (from ${variable}) answered ${status}${statusText ? ` ${statusText}` : ''} to ${tunnel ? 'CONNECT' : 'a request for'} ${target}`,
    );
  }
}

/** A TLS handshake or certificate failure, with the origin it happened with. */
export class TlsFailure extends Error {
  override name = 'TlsFailure';
  readonly code: string;
  /** `caFile` is the NODE_EXTRA_CA_CERTS of the run, named in the advice. */
  constructor(
    readonly origin: string,
    cause: Error & { code?: string; reason?: unknown },
    readonly caFile?: string,
  ) {
    // OpenSSL's own errors carry a short reason ("wrong version number") beside a long technical message.
    const reason =
      typeof cause.reason === 'string' && cause.reason !== ''
        ? cause.reason
        : /SSL routines:[^:]*:([^:]+)/.exec(cause.message)?.[1];
    // Node 24 adds advice of its own after a semicolon ("…; if the root CA is installed locally, try …"); the hint
    // below gives ours.
    const text = reason ?? cause.message.replace(/; if the root CA is installed locally.*$/s, '');
    super(`TLS with ${origin} failed: ${text}${cause.code && !text.includes(cause.code) ? ` (${cause.code})` : ''}`, {
      cause,
    });
    this.code = cause.code ?? 'TLS';
  }
}

type NetworkFailureClass =
  | { kind: 'fatal'; message: string }
  | { kind: 'retryable'; reason: string; retryAfterMs: undefined };

/** The certificate could not be verified against the trusted authorities. */
const UNTRUSTED = new Set([
  'DEPTH_ZERO_SELF_SIGNED_CERT',
  'SELF_SIGNED_CERT_IN_CHAIN',
  'UNABLE_TO_GET_ISSUER_CERT',
  'UNABLE_TO_GET_ISSUER_CERT_LOCALLY',
  'UNABLE_TO_VERIFY_LEAF_SIGNATURE',
  'CERT_UNTRUSTED',
  'INVALID_CA',
  'CERT_SIGNATURE_FAILURE',
  'UNABLE_TO_DECRYPT_CERT_SIGNATURE',
  'UNABLE_TO_DECODE_ISSUER_PUBLIC_KEY',
  'CERT_CHAIN_TOO_LONG',
  'PATH_LENGTH_EXCEEDED',
]);
/** Other verdicts on a certificate. */
const CERTIFICATE = new Set([
  'CERT_HAS_EXPIRED',
  'CERT_NOT_YET_VALID',
  'CERT_REVOKED',
  'CERT_REJECTED',
  'INVALID_PURPOSE',
  'HOSTNAME_MISMATCH',
  'ERROR_IN_CERT_NOT_BEFORE_FIELD',
  'ERROR_IN_CERT_NOT_AFTER_FIELD',
  'ERR_TLS_CERT_ALTNAME_INVALID',
]);

/** Certificate and TLS protocol errors; a handshake that timed out or was cut is a connection failure instead. */
export function isTlsError(error: unknown): error is Error & { code: string } {
  if (!(error instanceof Error)) return false;
  const code = (error as { code?: unknown }).code;
  if (typeof code !== 'string') return false;
  if (UNTRUSTED.has(code) || CERTIFICATE.has(code) || code.startsWith('ERR_SSL_')) return true;
  return code === 'EPROTO' && /SSL|TLS/.test(error.message);
}

/** A verdict for the failures this module knows, anywhere in the error's cause chain; undefined for the rest. */
export function classifyNetworkError(error: unknown): NetworkFailureClass | undefined {
  for (let current = error, depth = 0; current instanceof Error && depth < 5; current = current.cause, depth++) {
    if (current instanceof TlsFailure) return { kind: 'fatal', message: `${current.message}.\n${tlsHint(current)}` };
    if (current instanceof ProxyRefused) return proxyRefusal(current);
    if (current instanceof ProxyUnreachable)
      return { kind: 'retryable', reason: current.message, retryAfterMs: undefined };
  }
  return undefined;
}

function proxyRefusal(refusal: ProxyRefused): NetworkFailureClass {
  // 5xx: the proxy could not reach the API, a connection failure like any other.
  if (refusal.status >= 500) return { kind: 'retryable', reason: refusal.message, retryAfterMs: undefined };
  let hint = '';
  if (refusal.status === 407) {
    hint = refusal.sentCredentials
      ? `The proxy did not accept the user name and password in ${refusal.variable}.`
      : `The proxy wants credentials: put them in ${refusal.variable} as http://user:password@host:port.`;
  } else if (refusal.status === 403) {
    hint = `The proxy does not allow connections to ${refusal.target}.`;
  }
  return { kind: 'fatal', message: `${capitalise(refusal.message)}.${hint ? `\n${hint}` : ''}` };
}

function tlsHint({ code, origin, caFile: extra }: TlsFailure): string {
  const caFile = extra ? caFileNote(extra) : '';
  if (UNTRUSTED.has(code)) {
    return extra && caFile === ''
      ? `NODE_EXTRA_CA_CERTS (${extra}) holds no authority that signed this certificate; point it at the right CA certificate (PEM).`
      : `${caFile}If the server, or a proxy that inspects TLS, uses a private certificate authority, set NODE_EXTRA_CA_CERTS to its CA certificate (PEM file).`;
  }
  if (code === 'ERR_TLS_CERT_ALTNAME_INVALID' || code === 'HOSTNAME_MISMATCH') {
    const where = origin.startsWith('the proxy') ? 'the proxy URL' : 'ANTHROPIC_BASE_URL';
    return `${caFile}The certificate is for another host name: check the host in ${where} (NODE_EXTRA_CA_CERTS cannot fix a name mismatch).`;
  }
  if (CERTIFICATE.has(code))
    return `${caFile}The certificate itself is not acceptable; NODE_EXTRA_CA_CERTS can add a trusted authority but cannot fix that.`;
  return `${caFile}The server did not speak TLS as expected: if it is a plain http endpoint, use an http:// URL (NODE_EXTRA_CA_CERTS is for certificates from a private authority).`;
}

/** A note when NODE_EXTRA_CA_CERTS names a file Node could not read (Node only warns at start-up), else ''. */
function caFileNote(path: string): string {
  try {
    accessSync(path, constants.R_OK);
    return '';
  } catch (error) {
    return `NODE_EXTRA_CA_CERTS (${path}) cannot be read (${(error as NodeJS.ErrnoException).code ?? 'unreadable'}), so no extra authority is trusted. `;
  }
}

function capitalise(text: string): string {
  return text.charAt(0).toUpperCase() + text.slice(1);
}
