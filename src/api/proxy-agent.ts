// The agents that carry a request through an HTTP(S) proxy: a CONNECT tunnel for https targets, an
// absolute-URI request for http ones. Loaded only when a proxy applies (see http-fetch.ts).
import type { Agent } from 'node:http';
import { HttpProxyAgent } from 'http-proxy-agent';
import { HttpsProxyAgent } from 'https-proxy-agent';

export function createProxyAgent(proxy: URL, targetProtocol: string): Agent {
  return targetProtocol === 'https:'
    ? new HttpsProxyAgent(proxy, { keepAlive: true })
    : new HttpProxyAgent(proxy, { keepAlive: true });
}
