// The agents that carry a request through an HTTP(S) proxy: a CONNECT tunnel for https targets, an
// absolute-URI request for http ones. Loaded only when a proxy applies (see http-fetch.ts).
import type { Agent } from 'node:http';
import type { SecureContext } from 'node:tls';
import { HttpProxyAgent } from 'http-proxy-agent';
import { HttpsProxyAgent } from 'https-proxy-agent';

/** `tls` holds the certificate authorities to trust, for an https proxy and for the tunnelled connection. */
export function createProxyAgent(
  proxy: URL,
  targetProtocol: string,
  tls: { secureContext?: SecureContext } = {},
): Agent {
  return targetProtocol === 'https:'
    ? new HttpsProxyAgent(proxy, { keepAlive: true, ...tls })
    : new HttpProxyAgent(proxy, { keepAlive: true, ...tls });
}
