// The SDK's fetch, over node:http and node:https. Node's own fetch (undici) compiles a WebAssembly HTTP
// parser on the first response, which costs a one-shot command about 60 ms and 8 MB on every run; a
// streamed request needs none of what undici adds. Headers and Response are light stand-ins
// (light-fetch-types.ts), and node:http is loaded through require: Node 24's ES-module wrapper of it
// reads every export, and some of them load undici.
// Requests go through HTTPS_PROXY / HTTP_PROXY unless NO_PROXY says otherwise (as the run's settings hold them);
// the proxy agents load only when a proxy applies.
import { createRequire } from 'node:module';
import type { Agent, ClientRequest, IncomingMessage } from 'node:http';
import type { SecureContext } from 'node:tls';
import type { NetworkSettings } from '../config.js';
import { destroyOnAbort } from './abort-request.js';
import { LightHeaders, LightResponse } from './light-fetch-types.js';
import { isTlsError, ProxyRefused, ProxyUnreachable, TlsFailure } from './network-errors.js';
import { displayProxy, proxyFor } from './proxy-settings.js';

// process.getBuiltinModule (Node 20.16 and later) gives it without making a require function.
const http: typeof import('node:http') =
  process.getBuiltinModule?.('node:http') ?? createRequire(import.meta.url)('node:http');

interface Route {
  url: URL;
  request: typeof http.request;
  agent: Agent;
  proxy: { url: URL; variable: string } | undefined;
}

type Fetch = (input: string | URL | Request, init?: RequestInit) => Promise<Response>;
type Network = Pick<NetworkSettings, 'proxy' | 'extraCa'>;

// A run sends its requests to one or two URLs; the bound only keeps a caller with many from growing the map for good.
const MAX_ROUTES = 16;

/** A fetch that routes and trusts as the run's network settings say; `onSent` hears of each request written out. */
export function createNodeFetch(network: Network, onSent?: () => void): Fetch {
  const agents = new Map<string, Agent>();
  let tls: { secureContext?: SecureContext } | undefined;
  const newRoute = async (url: URL): Promise<Route> => {
    const module = url.protocol === 'https:' ? await import('node:https') : http;
    const choice = proxyFor(url, network.proxy);
    // The configuration refuses a bad proxy setting before any request; this is only a backstop.
    if (choice.kind === 'invalid') throw new TypeError(choice.problem);
    const proxy = choice.kind === 'proxy' ? { url: choice.url, variable: choice.variable } : undefined;
    const key = proxy ? `${url.protocol} via ${proxy.url.href}` : url.protocol;
    let agent = agents.get(key);
    if (!agent) {
      tls ??= await trustedAuthorities(network.extraCa);
      agent = proxy
        ? (await import('./proxy-agent.js')).createProxyAgent(proxy.url, url.protocol, tls)
        : new module.Agent({ keepAlive: true, ...tls });
      agents.set(key, agent);
    }
    return { url, request: module.request as typeof http.request, agent, proxy };
  };
  // The settings a route depends on are fixed for the run: each URL is parsed and routed once, and later requests
  // to it go out without waiting on anything.
  const routes = new Map<string, Route>();
  const route = (href: string): Route | Promise<Route> =>
    routes.get(href) ??
    newRoute(new URL(href)).then((found) => {
      if (routes.size < MAX_ROUTES) routes.set(href, found);
      return found;
    });
  return (input, init) => nodeFetch(route, { caFile: network.extraCa?.file, onSent }, input, init);
}

/**
 * The certificate authorities to trust when they are not Node's own: Node loads the process's NODE_EXTRA_CA_CERTS at
 * start-up, but one named in a --env-file is added here, beside the built-in ones.
 */
async function trustedAuthorities(extraCa: Network['extraCa']): Promise<{ secureContext?: SecureContext }> {
  if (extraCa?.pem === undefined || extraCa.loadedAtStart) return {};
  const { createSecureContext, rootCertificates } = await import('node:tls');
  return { secureContext: createSecureContext({ ca: [...rootCertificates, extraCa.pem] }) };
}

async function nodeFetch(
  route: (href: string) => Route | Promise<Route>,
  { caFile, onSent }: { caFile: string | undefined; onSent: (() => void) | undefined },
  input: string | URL | Request,
  init: RequestInit = {},
): Promise<Response> {
  const href = typeof input === 'string' ? input : input instanceof URL ? input.href : input.url;
  const headers = headerRecord(init.headers);
  const found = route(href);
  const { url, request, agent, proxy } = found instanceof Promise ? await found : found;
  const res = await new Promise<IncomingMessage>((resolve, reject) => {
    const req = request(url, { method: init.method ?? 'GET', headers, agent }, (response) => {
      if (proxy && response.statusCode === 407) {
        response.resume();
        reject(refusal(proxy, url, 407, response.statusMessage ?? '', false));
      } else resolve(response);
    });
    destroyOnAbort(req, init.signal);
    watchProxy(req, { url, proxy, caFile }, reject);
    if (onSent) req.once('finish', onSent);
    const body = init.body;
    if (body === undefined || body === null) req.end();
    // Encoded here, once: given the string, node:http would join it to the head into a new string, then encode that.
    else if (typeof body === 'string') req.end(Buffer.from(body));
    else if (body instanceof Uint8Array) req.end(body);
    else reject(new TypeError('nodeFetch: only string and byte bodies are supported'));
  });
  const out = LightHeaders.fromParsed(res.headers);
  const status = res.statusCode ?? 0;
  const noBody = status === 204 || status === 304 || init.method === 'HEAD';
  if (noBody) res.resume();
  // IncomingMessage is an async iterable of Buffers: the SDK reads it as it is.
  const body = noBody ? null : (res as AsyncIterable<Uint8Array>);
  return new LightResponse(body, { status, statusText: res.statusMessage ?? '', headers: out }) as unknown as Response;
}

/** The request's headers as node:http takes them. The SDK's own are checked and lower-cased already: no copy of them. */
function headerRecord(init: RequestInit['headers']): Record<string, string> {
  const headers: Record<string, string> = {};
  const checked =
    init instanceof LightHeaders
      ? init
      : new LightHeaders(init as Iterable<[string, string]> | Record<string, string> | undefined);
  for (const [key, value] of checked) headers[key] = value;
  return headers;
}

/** Turns connection errors into ones that say where they happened: at the proxy, or in TLS with the server. */
function watchProxy(
  req: ClientRequest,
  { url, proxy, caFile }: { url: URL; proxy: Route['proxy']; caFile: string | undefined },
  reject: (error: Error) => void,
): void {
  let reachedProxy = false;
  if (proxy)
    req.on('proxyConnect', (connect: { statusCode?: number; statusText?: string }) => {
      reachedProxy = true;
      if (connect.statusCode !== undefined && connect.statusCode !== 200) {
        reject(refusal(proxy, url, connect.statusCode, connect.statusText ?? '', true));
        req.destroy();
      }
    });
  req.on('error', (error: Error) => {
    if (error.name === 'AbortError') reject(error);
    else if (isTlsError(error))
      reject(
        new TlsFailure(proxy && !reachedProxy ? `the proxy ${displayProxy(proxy.url)}` : url.origin, error, caFile),
      );
    else if (proxy && !reachedProxy) reject(new ProxyUnreachable(displayProxy(proxy.url), proxy.variable, error));
    else reject(error);
  });
}

function refusal(
  proxy: NonNullable<Route['proxy']>,
  url: URL,
  status: number,
  statusText: string,
  tunnel: boolean,
): ProxyRefused {
  const port = url.port || (url.protocol === 'https:' ? '443' : '80');
  const sentCredentials = proxy.url.username !== '' || proxy.url.password !== '';
  return new ProxyRefused(
    displayProxy(proxy.url),
    proxy.variable,
    `${url.hostname}:${port}`,
    status,
    statusText,
    sentCredentials,
    tunnel,
  );
}
