import { execFileSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { createServer as createHttpsServer, type Server } from 'node:https';
import { createServer as createHttpServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import { getEventListeners } from 'node:events';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { createNodeFetch } from '../src/api/http-fetch.js';
import { tempDir } from './support/run-agent.js';
import { makeCertificates } from './support/tls.js';

const nodeFetch = createNodeFetch({ proxy: {}, extraCa: undefined });

let server: Server | ReturnType<typeof createHttpServer> | undefined;
afterEach(() => {
  server?.closeAllConnections();
  server?.close();
  delete process.env.NODE_TLS_REJECT_UNAUTHORIZED;
});

function listen(s: NonNullable<typeof server>): Promise<number> {
  server = s;
  return new Promise((resolve) => s.listen(0, '127.0.0.1', () => resolve((s.address() as AddressInfo).port)));
}

const echo = (req: import('node:http').IncomingMessage, res: import('node:http').ServerResponse) => {
  let body = '';
  req.on('data', (chunk) => (body += chunk));
  req.on('end', () => {
    res.writeHead(201, { 'content-type': 'application/json', 'x-seen-auth': String(req.headers.authorization) });
    res.end(JSON.stringify({ method: req.method, path: req.url, body }));
  });
};

describe('nodeFetch, the SDK transport', () => {
  it('sends the method, headers and body, and returns status, headers and a streamed body', async () => {
    const port = await listen(createHttpServer(echo));
    const response = await nodeFetch(`http://127.0.0.1:${port}/v1/messages?beta=true`, {
      method: 'POST',
      headers: { authorization: 'Bearer k', 'content-type': 'application/json' },
      body: '{"a":1}',
    });
    expect(response.status).toBe(201);
    expect(response.headers.get('x-seen-auth')).toBe('Bearer k');
    expect(await response.json()).toEqual({ method: 'POST', path: '/v1/messages?beta=true', body: '{"a":1}' });
  });

  it('sends a text body as UTF-8, byte for byte, with its length in bytes', async () => {
    let received: { length: string | undefined; bytes: Buffer } | undefined;
    const port = await listen(
      createHttpServer((req, res) => {
        const chunks: Buffer[] = [];
        req.on('data', (chunk: Buffer) => chunks.push(chunk));
        req.on('end', () => {
          received = { length: req.headers['content-length'], bytes: Buffer.concat(chunks) };
          res.end('ok');
        });
      }),
    );
    const body = JSON.stringify({ text: 'é — ✓ 𝄞 naïve', plain: 'x'.repeat(5_000) });
    const response = await nodeFetch(`http://127.0.0.1:${port}/v1/messages`, { method: 'POST', body });
    expect(await response.text()).toBe('ok');
    expect(received?.bytes.equals(Buffer.from(body, 'utf8'))).toBe(true);
    expect(received?.length).toBe(String(Buffer.byteLength(body)));
  });

  it('speaks https', async () => {
    const dir = tempDir();
    execFileSync(
      'openssl',
      [
        'req',
        '-x509',
        '-newkey',
        'rsa:2048',
        '-nodes',
        '-subj',
        '/CN=127.0.0.1',
        '-days',
        '1',
        '-keyout',
        join(dir, 'key.pem'),
        '-out',
        join(dir, 'cert.pem'),
      ],
      { stdio: 'ignore' },
    );
    const port = await listen(
      createHttpsServer({ key: readFileSync(join(dir, 'key.pem')), cert: readFileSync(join(dir, 'cert.pem')) }, echo),
    );
    await expect(nodeFetch(`https://127.0.0.1:${port}/x`)).rejects.toThrow(/self-signed|certificate/i);
    process.env.NODE_TLS_REJECT_UNAUTHORIZED = '0';
    const response = await nodeFetch(`https://127.0.0.1:${port}/x`, { method: 'POST', body: 'over tls' });
    expect(await response.json()).toMatchObject({ body: 'over tls' });
  });

  it('trusts the extra certificate authority its settings name, beside the built-in ones', async () => {
    const certs = makeCertificates();
    try {
      const port = await listen(createHttpsServer(certs.server, echo));
      await expect(nodeFetch(`https://127.0.0.1:${port}/x`)).rejects.toThrow(/certificate/i);
      const extraCa = { file: certs.caFile, pem: readFileSync(certs.caFile, 'utf8'), loadedAtStart: false };
      const trusting = createNodeFetch({ proxy: {}, extraCa });
      const response = await trusting(`https://127.0.0.1:${port}/x`, { method: 'POST', body: 'trusted' });
      expect(await response.json()).toMatchObject({ body: 'trusted' });
      await expect(trusting(`https://127.0.0.1:9/closed`)).rejects.toMatchObject({ code: 'ECONNREFUSED' });
    } finally {
      certs.cleanup();
    }
  });

  it('rejects at once when aborted, and when the connection is refused', async () => {
    const port = await listen(createHttpServer(() => {}));
    const controller = new AbortController();
    const pending = nodeFetch(`http://127.0.0.1:${port}/hang`, { signal: controller.signal });
    controller.abort();
    await expect(pending).rejects.toThrow(/abort/i);
    await expect(nodeFetch('http://127.0.0.1:9/closed')).rejects.toMatchObject({ code: 'ECONNREFUSED' });
  });

  it('gives a request aborted before it is sent the error node:http gives it', async () => {
    const port = await listen(createHttpServer(() => {}));
    const early = new AbortController();
    early.abort('stopped');
    await expect(nodeFetch(`http://127.0.0.1:${port}/hang`, { signal: early.signal })).rejects.toMatchObject({
      name: 'AbortError',
      code: 'ABORT_ERR',
      message: 'The operation was aborted',
      cause: 'stopped',
    });
  });

  it('stops a body that is still streaming when aborted, and lets go of the signal once the request is over', async () => {
    let serverSawClose = false;
    const port = await listen(
      createHttpServer((req, res) => {
        res.writeHead(200, { 'content-type': 'text/event-stream' });
        res.write('event: ping\n\n');
        req.socket.on('close', () => (serverSawClose = true));
      }),
    );
    const controller = new AbortController();
    const response = await nodeFetch(`http://127.0.0.1:${port}/stream`, { signal: controller.signal });
    const chunks = (response.body as unknown as AsyncIterable<Uint8Array>)[Symbol.asyncIterator]();
    expect(Buffer.from((await chunks.next()).value!).toString()).toBe('event: ping\n\n');
    const next = chunks.next();
    controller.abort();
    // What node:http's own `signal` option gives a body cut short: the socket is destroyed under it.
    await expect(next).rejects.toMatchObject({ code: 'ECONNRESET', message: 'aborted' });
    await vi.waitFor(() => expect(serverSawClose).toBe(true));
    expect(getEventListeners(controller.signal, 'abort')).toHaveLength(0);
  });

  it('removes its abort listener when a request completes', async () => {
    const port = await listen(createHttpServer(echo));
    const controller = new AbortController();
    const response = await nodeFetch(`http://127.0.0.1:${port}/done`, { method: 'POST', signal: controller.signal });
    await response.text();
    await vi.waitFor(() => expect(getEventListeners(controller.signal, 'abort')).toHaveLength(0));
  });
});
