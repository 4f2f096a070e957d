// An Anthropic-compatible HTTP server that answers from a script, for tests. It validates
// requests as the real API does, so a protocol bug in the client fails the test that made it.
// Rules live in server-validate.ts, streaming in server-sse.ts, tokens and caching in
// server-tokens.ts.

import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import { createServer as createTlsServer } from 'node:https';
import type { Socket } from 'node:net';
import { listenOnLoopback } from './listen.js';
import { TurnPlayer } from './server-play.js';
import { CacheSimulator, countTokens, DEFAULT_CHARS_PER_TOKEN } from './server-tokens.js';
import type { ApiFailure, RecordedRequest, ServerOptions, TestServer, Turn, Usage } from './server-types.js';
import { validateMessagesRequest } from './server-validate.js';
import { ThinkingLedger } from './server-thinking.js';
import { errorBody, newRequestId } from './server-wire.js';

export type * from './server-types.js';
export { countTokens } from './server-tokens.js';

const MAX_BODY_BYTES = 32 * 1024 * 1024;
const MESSAGES_PATH = '/v1/messages';
const COUNT_TOKENS_PATH = '/v1/messages/count_tokens';

interface ReceivedBody {
  text: string;
  tooLarge: boolean;
}

/** Reads the whole body; past the size limit it keeps draining but stops keeping bytes. */
function readBody(req: IncomingMessage): Promise<ReceivedBody> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    let size = 0;
    req.on('data', (chunk: Buffer) => {
      size += chunk.length;
      if (size <= MAX_BODY_BYTES) chunks.push(chunk);
    });
    req.on('end', () => resolve({ text: Buffer.concat(chunks).toString('utf8'), tooLarge: size > MAX_BODY_BYTES }));
    req.on('error', reject);
  });
}

function parseJson(text: string): { ok: true; value: unknown } | { ok: false } {
  try {
    return { ok: true, value: JSON.parse(text) };
  } catch {
    return { ok: false };
  }
}

function header(req: IncomingMessage, name: string): string | undefined {
  const value = req.headers[name];
  return Array.isArray(value) ? value[0] : value;
}

function checkAuth(req: IncomingMessage, required: ServerOptions['requireAuth']): ApiFailure | undefined {
  const apiKey = header(req, 'x-api-key');
  const bearer = /^Bearer\s+(.+)$/i.exec(header(req, 'authorization') ?? '')?.[1];
  if (!apiKey && !bearer) return { status: 401, type: 'authentication_error', message: 'x-api-key header is required' };
  if (!required) return undefined;
  // An API key goes in x-api-key and a token in Authorization: Bearer, as the contract says.
  const accepted =
    (required.apiKey !== undefined && apiKey === required.apiKey) ||
    (required.bearer !== undefined && bearer === required.bearer);
  return accepted ? undefined : { status: 401, type: 'authentication_error', message: 'invalid x-api-key' };
}

const emptyUsage = (): Usage => ({
  input_tokens: 0,
  output_tokens: 0,
  cache_creation_input_tokens: 0,
  cache_read_input_tokens: 0,
});

export async function startServer(script: Turn[], options: ServerOptions = {}): Promise<TestServer> {
  const requests: RecordedRequest[] = [];
  const charsPerToken = options.charsPerToken ?? DEFAULT_CHARS_PER_TOKEN;
  const sockets = new Set<Socket>();
  const total = emptyUsage();
  const ledger = new ThinkingLedger();
  const player = new TurnPlayer(
    new CacheSimulator(charsPerToken),
    (content) => ledger.remember(content),
    (usage) => {
      total.input_tokens += usage.input_tokens;
      total.output_tokens += usage.output_tokens;
      total.cache_creation_input_tokens += usage.cache_creation_input_tokens;
      total.cache_read_input_tokens += usage.cache_read_input_tokens;
    },
  );
  let nextTurn = 0;

  function takeTurn(): Turn {
    const turn = script[nextTurn];
    nextTurn += 1;
    if (turn !== undefined) return turn;
    if (options.onExhausted !== undefined) return options.onExhausted;
    process.stderr.write(
      `\n*** test server: script exhausted: request #${nextTurn} has no turn left (${script.length} scripted) ***\n\n`,
    );
    return { kind: 'http_error', status: 500, type: 'api_error', message: 'test script exhausted' };
  }

  function reject(record: RecordedRequest, res: ServerResponse, failure: ApiFailure, requestId: string): void {
    record.rejected = { status: failure.status, message: failure.message };
    res.writeHead(failure.status, { 'content-type': 'application/json', 'request-id': requestId });
    res.end(errorBody(failure.type, failure.message, requestId));
  }

  async function handle(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const received = await readBody(req);
    const path = (req.url ?? '/').split('?')[0] ?? '/';
    const parsed = parseJson(received.text);
    const record: RecordedRequest = {
      method: req.method ?? 'GET',
      path,
      headers: { ...req.headers },
      rawHead: { line: `${req.method} ${req.url} HTTP/${req.httpVersion}`, headers: [...req.rawHeaders] },
      rawBody: received.text,
      body: parsed.ok ? parsed.value : received.text,
    };
    requests.push(record);
    const requestId = newRequestId();
    const isMessages = path === MESSAGES_PATH;
    const isCount = path === COUNT_TOKENS_PATH;

    if (req.method !== 'POST' || (!isMessages && !isCount)) {
      return reject(record, res, { status: 404, type: 'not_found_error', message: 'Not found' }, requestId);
    }
    if (received.tooLarge) {
      const message = `Request exceeds the maximum allowed number of bytes (${MAX_BODY_BYTES}).`;
      return reject(record, res, { status: 413, type: 'request_too_large', message }, requestId);
    }
    const authFailure = checkAuth(req, options.requireAuth);
    if (authFailure) return reject(record, res, authFailure, requestId);
    if (!header(req, 'anthropic-version')) {
      return reject(
        record,
        res,
        { status: 400, type: 'invalid_request_error', message: 'anthropic-version: header is required' },
        requestId,
      );
    }
    if (!parsed.ok) {
      const message = 'There was an error parsing the body of your request: it is not valid JSON.';
      return reject(record, res, { status: 400, type: 'invalid_request_error', message }, requestId);
    }
    const failure = validateMessagesRequest(parsed.value, {
      requireMaxTokens: isMessages,
      ...(options.contextWindow !== undefined ? { contextWindow: options.contextWindow } : {}),
      charsPerToken,
      structuredOutputs: options.structuredOutputs ?? 'supported',
      thinking: options.thinking ?? 'supported',
      ledger,
    });
    if (failure) return reject(record, res, failure, requestId);
    const model = (parsed.value as { model?: unknown }).model;
    if (options.models && !options.models.includes(String(model))) {
      return reject(
        record,
        res,
        { status: 404, type: 'not_found_error', message: `model: ${String(model)}` },
        requestId,
      );
    }

    if (isCount) {
      res.writeHead(200, { 'content-type': 'application/json', 'request-id': requestId });
      res.end(JSON.stringify({ input_tokens: countTokens(parsed.value, charsPerToken) }));
      return;
    }
    await player.play(takeTurn(), record, res, requestId);
  }

  const onRequest = (req: IncomingMessage, res: ServerResponse) => {
    handle(req, res).catch((error: unknown) => {
      process.stderr.write(
        `\n*** test server: internal error: ${error instanceof Error ? error.stack : String(error)} ***\n\n`,
      );
      if (!res.headersSent) {
        res.writeHead(500, { 'content-type': 'application/json', 'request-id': newRequestId() });
        res.end(errorBody('api_error', `test server error: ${String(error)}`, newRequestId()));
      } else {
        res.destroy();
      }
    });
  };
  const server = options.tls ? createTlsServer(options.tls, onRequest) : createServer(onRequest);
  let connections = 0;
  const port = await listenOnLoopback(server, sockets, () => (connections += 1));

  return {
    url: `${options.tls ? 'https' : 'http'}://127.0.0.1:${port}`,
    connections: () => connections,
    requests,
    validRequests: () => requests.filter((request) => request.rejected === undefined),
    rejections: () => requests.filter((request) => request.rejected !== undefined),
    totals: () => ({ ...total }),
    close: async () => {
      player.stop();
      const closed = new Promise<void>((resolve) => server.close(() => resolve()));
      for (const socket of sockets) socket.destroy();
      await closed;
    },
  };
}
