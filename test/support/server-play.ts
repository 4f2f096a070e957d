// Plays one scripted turn as the HTTP response to one valid request.

import type { ServerResponse } from 'node:http';
import { defaultBreakPoint, frame, messageEvents, type SseEvent } from './server-sse.js';
import { outputTokens, type CacheSimulator } from './server-tokens.js';
import type { Block, MessageTurn, RecordedRequest, ResolvedBlock, StaticTurn, Turn, Usage } from './server-types.js';
import {
  buildMessage,
  defaultErrorType,
  defaultStopReason,
  errorBody,
  resolveContent,
  type WireMessage,
} from './server-wire.js';

const DEFAULT_BROKEN_CONTENT: Block[] = [{ type: 'text', text: 'This answer is cut off before it can finish.' }];
const DEFAULT_STREAM_ERROR = { type: 'overloaded_error', message: 'Overloaded' };
/** A dynamic turn may return another dynamic turn; this many levels, then it is a script bug. */
const MAX_DYNAMIC_DEPTH = 10;

const STATUS_FOR_ERROR_TYPE: Record<string, number> = { overloaded_error: 529, api_error: 500, rate_limit_error: 429 };

export class TurnPlayer {
  #stopped = false;
  readonly #wakers = new Set<() => void>();

  constructor(
    private readonly cache: CacheSimulator,
    /** Told of the content of every message it makes, whole or to be broken off. */
    private readonly onContent: (content: ResolvedBlock[]) => void,
    private readonly onSuccess: (usage: Usage) => void,
  ) {}

  /** Ends every pending wait, so nothing more is written once the server closes. */
  stop(): void {
    this.#stopped = true;
    for (const wake of this.#wakers) wake();
    this.#wakers.clear();
  }

  async play(turn: Turn, record: RecordedRequest, res: ServerResponse, requestId: string): Promise<void> {
    const scripted = await resolveTurn(turn, record);
    const streamed = record.body?.stream === true;
    switch (scripted.kind) {
      case 'message': {
        const message = this.#message(record, scripted.content, scripted);
        if (scripted.delayMs) await this.#sleep(scripted.delayMs);
        if (this.#gone(res)) return;
        const done = streamed
          ? await this.#stream(res, requestId, withPings(messageEvents(message), scripted.pings?.count ?? 0), scripted)
          : this.#json(res, requestId, message);
        if (done) this.onSuccess(message.usage);
        return;
      }
      case 'http_error': {
        const type = scripted.type ?? defaultErrorType(scripted.status);
        res.writeHead(scripted.status, {
          'content-type': 'application/json',
          'request-id': requestId,
          ...scripted.headers,
        });
        res.end(errorBody(type, scripted.message ?? `scripted ${type}`, requestId));
        return;
      }
      case 'stream_error':
      case 'drop':
      case 'truncated':
        return streamed
          ? this.#broken(res, requestId, record, scripted)
          : this.#brokenJson(res, requestId, record, scripted);
      case 'hang':
        return; // The socket stays open until the client gives up or the server closes.
      case 'raw':
        res.writeHead(scripted.status, { 'request-id': requestId, ...scripted.headers });
        res.end(scripted.body);
        return;
    }
  }

  #message(
    record: RecordedRequest,
    blocks: readonly Block[],
    overrides: { stop_reason?: WireMessage['stop_reason']; usage?: Partial<Usage> } = {},
  ): WireMessage {
    const content = resolveContent(blocks);
    this.onContent(content);
    const usage: Usage = {
      ...this.cache.account(record.body),
      output_tokens: outputTokens(content, this.cache.charsPerToken),
      ...overrides.usage,
    };
    const stopReason = overrides.stop_reason ?? defaultStopReason(content);
    return buildMessage(String(record.body?.model ?? ''), content, stopReason, usage);
  }

  #json(res: ServerResponse, requestId: string, message: WireMessage): boolean {
    res.writeHead(200, { 'content-type': 'application/json', 'request-id': requestId });
    res.end(JSON.stringify(message));
    return true;
  }

  #startStream(res: ServerResponse, requestId: string): void {
    res.writeHead(200, {
      'content-type': 'text/event-stream',
      'cache-control': 'no-cache',
      connection: 'keep-alive',
      'request-id': requestId,
    });
  }

  /** Writes the events one by one; true when all of them went out and the response ended. */
  async #stream(res: ServerResponse, requestId: string, events: readonly SseEvent[], pacing: Pacing): Promise<boolean> {
    this.#startStream(res, requestId);
    for (const [index, event] of events.entries()) {
      const pause = event.event === 'ping' && pacing.pings ? pacing.pings.everyMs : (pacing.chunkDelayMs ?? 0);
      if (index > 0 && pause > 0) await this.#sleep(pause);
      if (this.#gone(res)) return false;
      await write(res, frame(event));
    }
    if (this.#gone(res)) return false;
    res.end();
    return true;
  }

  async #broken(res: ServerResponse, requestId: string, record: RecordedRequest, turn: BrokenTurn): Promise<void> {
    const events = messageEvents(this.#message(record, turn.content ?? DEFAULT_BROKEN_CONTENT));
    const breakAt = turn.afterEvents ?? defaultBreakPoint(events);
    this.#startStream(res, requestId);
    for (const event of events.slice(0, breakAt)) {
      if (this.#gone(res)) return;
      await write(res, frame(event));
    }
    if (this.#gone(res)) return;
    if (turn.kind === 'stream_error') {
      const error = turn.error ?? DEFAULT_STREAM_ERROR;
      res.end(frame({ event: 'error', data: { type: 'error', error } }));
    } else if (turn.kind === 'drop') {
      res.socket?.destroy();
    } else {
      res.end();
    }
  }

  /** A broken turn answering a request that did not ask for a stream. */
  #brokenJson(res: ServerResponse, requestId: string, record: RecordedRequest, turn: BrokenTurn): void {
    if (turn.kind === 'stream_error') {
      const error = turn.error ?? DEFAULT_STREAM_ERROR;
      res.writeHead(STATUS_FOR_ERROR_TYPE[error.type] ?? 500, {
        'content-type': 'application/json',
        'request-id': requestId,
      });
      res.end(errorBody(error.type, error.message, requestId));
      return;
    }
    const body = JSON.stringify(this.#message(record, turn.content ?? DEFAULT_BROKEN_CONTENT));
    res.writeHead(200, { 'content-type': 'application/json', 'request-id': requestId });
    const half = body.slice(0, Math.floor(body.length / 2));
    if (turn.kind === 'drop') res.write(half, () => res.socket?.destroy());
    else res.end(half);
  }

  #gone(res: ServerResponse): boolean {
    return this.#stopped || res.destroyed || res.writableEnded;
  }

  #sleep(ms: number): Promise<void> {
    if (this.#stopped) return Promise.resolve();
    return new Promise((resolve) => {
      const wake = (): void => {
        clearTimeout(timer);
        this.#wakers.delete(wake);
        resolve();
      };
      const timer = setTimeout(wake, ms);
      this.#wakers.add(wake);
    });
  }
}

type BrokenTurn = Extract<StaticTurn, { kind: 'stream_error' | 'drop' | 'truncated' }>;
type Pacing = Pick<MessageTurn, 'chunkDelayMs' | 'pings'>;

/** The events with `count` more pings right after message_start. */
function withPings(events: SseEvent[], count: number): SseEvent[] {
  const pings = Array.from({ length: count }, (): SseEvent => ({ event: 'ping', data: { type: 'ping' } }));
  return [events[0]!, ...pings, ...events.slice(1)];
}

async function resolveTurn(turn: Turn, record: RecordedRequest): Promise<StaticTurn> {
  let current = turn;
  for (let depth = 0; typeof current === 'function'; depth += 1) {
    if (depth >= MAX_DYNAMIC_DEPTH) throw new Error(`dynamic turn nested more than ${MAX_DYNAMIC_DEPTH} levels deep`);
    current = await current(record);
  }
  return current;
}

/** Resolves once the chunk is handed to the socket, or at once if the socket has gone. */
function write(res: ServerResponse, chunk: string): Promise<void> {
  return new Promise((resolve) => {
    res.once('close', resolve);
    res.write(chunk, () => {
      res.off('close', resolve);
      resolve();
    });
  });
}
