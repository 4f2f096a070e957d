// NO_PROXY matching as curl does it, plus `host:port` entries. proxy-from-env, the common library for this,
// matches a plain `example.com` only exactly and never lets `.example.com` cover `example.com` itself, so a
// curl user's `NO_PROXY=corp.example` would still send `api.corp.example` through the proxy.
import { BlockList, isIP } from 'node:net';

interface Entry {
  pattern: string;
  port: number | undefined;
}

/**
 * Whether a request to `hostname:port` goes direct. Entries are separated by commas and/or white space;
 * a lone `*` matches everything; a name matches itself and every subdomain (a leading `.` or `*.` is the
 * same thing); an IP address or CIDR range matches addresses only; `entry:port` matches that port only.
 */
export function bypassesProxy(hostname: string, port: number, noProxy: string): boolean {
  const list = noProxy.trim();
  if (list === '') return false;
  if (list === '*') return true;
  const host = unbracket(hostname).toLowerCase().replace(/\.$/, '');
  const family = isIP(host);
  return entries(list).some((entry) => {
    if (entry.port !== undefined && entry.port !== port) return false;
    if (entry.pattern === '*') return true;
    return family === 0 ? matchesName(host, entry.pattern) : matchesAddress(host, family, entry.pattern);
  });
}

function entries(list: string): Entry[] {
  return list
    .split(/[\s,]+/)
    .filter((token) => token !== '')
    .map((token) => {
      // `[::1]:8080`, `host:8080`; a bare IPv6 address has several colons and no port.
      const bracketed = /^\[([^\]]+)\](?::(\d+))?$/.exec(token);
      if (bracketed) return { pattern: bracketed[1]!.toLowerCase(), port: portOf(bracketed[2]) };
      const withPort = /^([^:]+):(\d+)$/.exec(token);
      if (withPort) return { pattern: withPort[1]!.toLowerCase(), port: portOf(withPort[2]) };
      return { pattern: token.toLowerCase(), port: undefined };
    });
}

function matchesName(host: string, pattern: string): boolean {
  const domain = pattern.replace(/^\*?\./, '').replace(/\.$/, '');
  if (domain === '') return false;
  return host === domain || host.endsWith(`.${domain}`);
}

function matchesAddress(host: string, family: number, pattern: string): boolean {
  const [address = '', bits] = pattern.split('/');
  const patternFamily = isIP(address);
  if (patternFamily !== family) return false;
  const type = family === 4 ? 'ipv4' : 'ipv6';
  const list = new BlockList();
  if (bits === undefined) list.addAddress(address, type);
  else {
    const prefix = Number(bits);
    if (!Number.isInteger(prefix) || prefix < 0 || prefix > (family === 4 ? 32 : 128)) return false;
    list.addSubnet(address, prefix, type);
  }
  return list.check(host, type);
}

function unbracket(host: string): string {
  return host.startsWith('[') && host.endsWith(']') ? host.slice(1, -1) : host;
}

function portOf(text: string | undefined): number | undefined {
  return text === undefined ? undefined : Number(text);
}
