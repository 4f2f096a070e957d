// A forward proxy on loopback for tests: CONNECT tunnels (https targets) and absolute-URI requests (http
// targets). It records what passed through it, can demand Proxy-Authorization, or refuse every request.
// It connects to loopback targets only (and to the routes it is given, on loopback); anything else is answered 403.
import { createServer, request as httpRequest, type IncomingMessage, type ServerResponse } from 'node:http';
import { createServer as createTlsServer } from 'node:https';
import { connect, type Socket } from 'node:net';
import { listenOnLoopback } from './listen.js';

export interface ProxyRecord {
  /** CONNECT, or the forwarded request's method. */
  method: string;
  /** host:port for CONNECT, the absolute URL otherwise. */
  target: string;
  proxyAuthorization: string | undefined;
  /** The status the proxy answered (200 for an established tunnel). */
  status: number;
}

export interface ProxyOptions {
  /** Demand Basic credentials: 407 without them or with wrong ones. */
  credentials?: { user: string; password: string };
  /** Answer every request with this status (403, 407, 502 ...) instead of passing it on. */
  refuseWith?: number;
  /** CONNECT targets (`api.anthropic.com:443`) to send to a loopback port instead: a stand-in for a real host. */
  routes?: Record<string, number>;
  /** Listen with TLS (an https:// proxy) with this key and certificate. */
  tls?: { key: string; cert: string };
}

export interface TestProxy {
  /** http://127.0.0.1:PORT, or https:// with the tls option. */
  url: string;
  port: number;
  seen: ProxyRecord[];
  close(): Promise<void>;
}

const LOOPBACK = new Set(['127.0.0.1', 'localhost', '::1', '[::1]']);
const REASONS: Record<number, string> = {
  200: 'Connection Established',
  403: 'Forbidden',
  407: 'Proxy Authentication Required',
  502: 'Bad Gateway',
};

export async function startProxy(options: ProxyOptions = {}): Promise<TestProxy> {
  const seen: ProxyRecord[] = [];
  const sockets = new Set<Socket>();

  /** The status to answer before passing anything on, or 0 to pass it on. */
  function verdict(req: IncomingMessage, host: string): number {
    if (options.refuseWith !== undefined) return options.refuseWith;
    if (options.credentials) {
      const expected = `Basic ${Buffer.from(`${options.credentials.user}:${options.credentials.password}`).toString('base64')}`;
      if (req.headers['proxy-authorization'] !== expected) return 407;
    }
    return LOOPBACK.has(host) ? 0 : 403;
  }

  function record(req: IncomingMessage, target: string, status: number): void {
    seen.push({ method: req.method ?? '', target, proxyAuthorization: req.headers['proxy-authorization'], status });
  }

  const onRequest = (req: IncomingMessage, res: ServerResponse) => {
    const target = new URL(req.url ?? '/');
    const status = verdict(req, target.hostname);
    record(req, target.href, status || 200);
    if (status) {
      res.writeHead(status, status === 407 ? { 'proxy-authenticate': 'Basic realm="test"' } : {});
      return void res.end(`proxy says ${status}\n`);
    }
    const headers = { ...req.headers };
    delete headers['proxy-authorization'];
    delete headers['proxy-connection'];
    const upstream = httpRequest(target, { method: req.method, headers }, (answer) => {
      res.writeHead(answer.statusCode ?? 502, answer.headers);
      answer.pipe(res);
    });
    upstream.on('error', () => (res.headersSent ? res.destroy() : res.writeHead(502).end()));
    req.pipe(upstream);
  };
  const server = options.tls ? createTlsServer(options.tls, onRequest) : createServer(onRequest);

  server.on('connect', (req: IncomingMessage, client: Socket, head: Buffer) => {
    const target = req.url ?? '';
    const route = options.routes?.[target];
    const [, host = '', port = '443'] = route
      ? [target, '127.0.0.1', String(route)]
      : (/^\[?([^\]]*?)\]?:(\d+)$/.exec(target) ?? []);
    const status = verdict(req, host);
    if (status) {
      record(req, target, status);
      const extra = status === 407 ? 'Proxy-Authenticate: Basic realm="test"\r\n' : '';
      return void client.end(`HTTP/1.1 ${status} ${REASONS[status] ?? 'Refused'}\r\n${extra}Content-Length: 0\r\n\r\n`);
    }
    let established = false;
    const upstream = connect(Number(port), host, () => {
      established = true;
      record(req, target, 200);
      client.write('HTTP/1.1 200 Connection Established\r\n\r\n');
      if (head.length > 0) upstream.write(head);
      upstream.pipe(client);
      client.pipe(upstream);
    });
    sockets.add(upstream);
    upstream.on('close', () => sockets.delete(upstream));
    upstream.on('error', () => {
      if (!established) {
        record(req, target, 502);
        client.end('HTTP/1.1 502 Bad Gateway\r\nContent-Length: 0\r\n\r\n');
      } else client.destroy();
    });
    client.on('error', () => upstream.destroy());
  });

  const port = await listenOnLoopback(server, sockets);
  return {
    url: `${options.tls ? 'https' : 'http'}://127.0.0.1:${port}`,
    port,
    seen,
    close: async () => {
      const closed = new Promise<void>((resolve) => server.close(() => resolve()));
      for (const socket of sockets) socket.destroy();
      await closed;
    },
  };
}
