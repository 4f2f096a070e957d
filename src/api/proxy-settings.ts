// Which proxy, if any, a request to a URL goes through, read from the environment as curl reads it.
import { bypassesProxy } from './no-proxy.js';

type Env = Readonly<Record<string, string | undefined>>;

type ProxyChoice =
  | { kind: 'direct' }
  | { kind: 'proxy'; url: URL; variable: string }
  | { kind: 'invalid'; variable: string; problem: string };

/** Every variable proxyFor reads. */
export const PROXY_VARIABLES: readonly string[] = ['https_proxy', 'http_proxy', 'no_proxy'].flatMap((name) => [
  name.toUpperCase(),
  name,
]);

const DEFAULT_PORTS: Record<string, number> = { 'http:': 80, 'https:': 443 };
const SUPPORTED = new Set(['http:', 'https:']);

/** The lower-case name wins, as with curl; an empty value counts as unset. */
function read(env: Env, name: string): { variable: string; value: string } | undefined {
  for (const variable of [name.toLowerCase(), name.toUpperCase()]) {
    const value = env[variable]?.trim();
    if (value) return { variable, value };
  }
  return undefined;
}

/** HTTPS_PROXY for https URLs, HTTP_PROXY for http ones, unless NO_PROXY covers the host. */
export function proxyFor(target: URL, env: Env): ProxyChoice {
  const setting = read(env, target.protocol === 'https:' ? 'https_proxy' : 'http_proxy');
  if (!setting) return { kind: 'direct' };
  const port = Number(target.port) || DEFAULT_PORTS[target.protocol] || 0;
  if (bypassesProxy(target.hostname, port, read(env, 'no_proxy')?.value ?? '')) return { kind: 'direct' };
  return parseProxyUrl(setting.variable, setting.value);
}

/** A proxy URL as curl takes it: no scheme means http://; only HTTP(S) proxies are supported. */
function parseProxyUrl(variable: string, value: string): ProxyChoice {
  const scheme = /^([a-z][a-z0-9+.-]*):\/\//i.exec(value)?.[1]?.toLowerCase();
  let url: URL;
  try {
    url = new URL(scheme === undefined ? `http://${value}` : value);
  } catch {
    return { kind: 'invalid', variable, problem: `${variable} is not a valid proxy URL: '${redactUserinfo(value)}'.` };
  }
  if (!SUPPORTED.has(url.protocol)) {
    const what = url.protocol.startsWith('socks')
      ? 'SOCKS proxies are not supported'
      : `the ${url.protocol}// scheme is not supported`;
    return {
      kind: 'invalid',
      variable,
      problem: `${variable}=${displayProxy(url)}: ${what}; give an http:// or https:// proxy.`,
    };
  }
  if (url.hostname === '')
    return { kind: 'invalid', variable, problem: `${variable} names no proxy host: '${redactUserinfo(value)}'.` };
  return { kind: 'proxy', url, variable };
}

/** The proxy URL fit to print: its password hidden, no path. */
export function displayProxy(url: URL): string {
  const user = url.username ? `${url.username}${url.password ? ':***' : ''}@` : '';
  return `${url.protocol}//${user}${url.host}`;
}

function redactUserinfo(value: string): string {
  return value.replace(/^((?:[a-z][a-z0-9+.-]*:\/\/)?[^/@:]*):[^/@]*@/i, '$1:***@');
}
