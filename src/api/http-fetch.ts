// The SDK's fetch, over node:http and node:https. Node's own fetch (undici) compiles a WebAssembly HTTP
// parser on the first response, which costs a one-shot command about 60 ms and 8 MB on every run; a
// streamed request needs none of what undici adds. Headers and Response still come from Node's globals.
import http from 'node:http';
import type { IncomingMessage } from 'node:http';
import { Readable } from 'node:stream';

const agents = new Map<string, http.Agent>();

async function transport(protocol: string): Promise<{ request: typeof http.request; agent: http.Agent }> {
  const module = protocol === 'https:' ? await import('node:https') : http;
  let agent = agents.get(protocol);
  if (!agent) {
    agent = new module.Agent({ keepAlive: true });
    agents.set(protocol, agent);
  }
  return { request: module.request as typeof http.request, agent };
}

export async function nodeFetch(input: string | URL | Request, init: RequestInit = {}): Promise<Response> {
  const url = new URL(typeof input === 'string' || input instanceof URL ? input : input.url);
  const headers: Record<string, string> = {};
  new Headers(init.headers).forEach((value, key) => (headers[key] = value));
  const { request, agent } = await transport(url.protocol);
  const res = await new Promise<IncomingMessage>((resolve, reject) => {
    const req = request(url, { method: init.method ?? 'GET', headers, agent, ...(init.signal ? { signal: init.signal } : {}) }, resolve);
    req.on('error', reject);
    const body = init.body;
    if (body === undefined || body === null) req.end();
    else if (typeof body === 'string' || body instanceof Uint8Array) req.end(body);
    else reject(new TypeError('nodeFetch: only string and byte bodies are supported'));
  });
  const out = new Headers();
  for (const [key, value] of Object.entries(res.headers)) {
    if (value !== undefined) out.set(key, Array.isArray(value) ? value.join(', ') : value);
  }
  const status = res.statusCode ?? 0;
  const noBody = status === 204 || status === 304 || init.method === 'HEAD';
  if (noBody) res.resume();
  return new Response(noBody ? null : (Readable.toWeb(res) as ReadableStream<Uint8Array>), {
    status,
    statusText: res.statusMessage ?? '',
    headers: out,
  });
}
