// NO_PROXY and proxy-URL rules, case by case (the binary tests show them applied to real requests).
import { describe, expect, it } from 'vitest';
import { bypassesProxy } from '../src/api/no-proxy.js';
import { proxyFor } from '../src/api/proxy-settings.js';

describe('NO_PROXY matching, as curl does it', () => {
  it.each([
    ['example.com', 'example.com', 443, true],
    ['example.com', 'api.example.com', 443, true],
    ['example.com', 'notexample.com', 443, false],
    ['.example.com', 'example.com', 443, true],
    ['.example.com', 'api.example.com', 443, true],
    ['*.example.com', 'api.example.com', 443, true],
    ['EXAMPLE.com', 'Api.Example.COM', 443, true],
    ['example.com.', 'api.example.com', 443, true],
    ['example.com', 'api.example.com.', 443, true],
    ['*', 'anything.test', 443, true],
    ['  a.test ,, b.test  example.com ', 'x.example.com', 443, true],
    ['example.com:8443', 'api.example.com', 8443, true],
    ['example.com:8443', 'api.example.com', 443, false],
    ['10.1.2.3', '10.1.2.3', 443, true],
    ['10.1.2.3', '10.1.2.4', 443, false],
    ['10.0.0.0/8', '10.200.3.4', 443, true],
    ['10.0.0.0/8', '11.0.0.1', 443, false],
    ['10.0.0.0/99', '10.0.0.1', 443, false],
    ['::1', '[::1]', 443, true],
    ['[::1]:8080', '[::1]', 8080, true],
    ['fd00::/8', '[fd12::5]', 443, true],
    ['10.1.2.3', 'host-10.1.2.3.test', 443, false],
    ['example.com', '10.1.2.3', 443, false],
    ['', 'example.com', 443, false],
    ['.', 'example.com', 443, false],
  ])('NO_PROXY=%j for %s:%i → bypass %s', (noProxy, host, port, expected) => {
    expect(bypassesProxy(host, port, noProxy)).toBe(expected);
  });
});

describe('the proxy for a URL', () => {
  const target = new URL('https://api.example.com/v1/messages');

  it('takes HTTPS_PROXY for https and HTTP_PROXY for http, the lower-case name first', () => {
    const env = { HTTPS_PROXY: 'http://upper:1', https_proxy: 'http://lower:2', HTTP_PROXY: 'http://plain:3' };
    expect(proxyFor(target, env)).toMatchObject({
      kind: 'proxy',
      variable: 'https_proxy',
      url: new URL('http://lower:2'),
    });
    expect(proxyFor(new URL('http://api.example.com'), env)).toMatchObject({ kind: 'proxy', variable: 'HTTP_PROXY' });
    expect(proxyFor(target, { HTTP_PROXY: 'http://plain:3' })).toEqual({ kind: 'direct' });
  });

  it('ignores an empty variable, and goes direct when NO_PROXY covers the host', () => {
    expect(proxyFor(target, { https_proxy: '  ', HTTPS_PROXY: 'http://upper:1' })).toMatchObject({
      variable: 'HTTPS_PROXY',
    });
    expect(proxyFor(target, { HTTPS_PROXY: 'http://p:1', no_proxy: 'example.com' })).toEqual({ kind: 'direct' });
  });

  it('reads a proxy without a scheme as http://, and refuses SOCKS and other schemes', () => {
    expect(proxyFor(target, { HTTPS_PROXY: 'user:pw@proxy.corp:3128' })).toMatchObject({
      kind: 'proxy',
      url: new URL('http://user:pw@proxy.corp:3128'),
    });
    expect(proxyFor(target, { HTTPS_PROXY: 'https://proxy.corp' })).toMatchObject({ kind: 'proxy' });
    expect(proxyFor(target, { HTTPS_PROXY: 'socks5h://proxy:1080' })).toMatchObject({ kind: 'invalid' });
    expect(proxyFor(target, { HTTPS_PROXY: 'user:secret@proxy:notaport' })).toEqual({
      kind: 'invalid',
      variable: 'HTTPS_PROXY',
      problem: "HTTPS_PROXY is not a valid proxy URL: 'user:***@proxy:notaport'.",
    });
  });
});
