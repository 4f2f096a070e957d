// Reads a streamed Messages response straight off its Node stream. The SDK's Stream gives the same events through
// four async iterators stacked on the body (the stream's own, the byte chunks', the SSE messages', the events'):
// a few microtask turns per chunk and per event, about a third of a millisecond of every turn. Here each chunk is
// decoded, split and handed on in the stream's own 'data' callback. What comes out is what the SDK's Stream gives:
// `ping` and unnamed events skipped, an `error` event thrown as the SDK's APIError, every other event's data
// parsed as JSON, the socket's own error as it is.
import type Anthropic from '@anthropic-ai/sdk';
import { APIError } from '@anthropic-ai/sdk/core/error';
import type { Readable } from 'node:stream';
import { EventStreamDecoder, type ServerSentEvent } from './event-stream.js';

export interface EventHandlers {
  /** Every chunk that arrives, `ping` events included: a sign of life. */
  onChunk: () => void;
  onEvent: (event: Anthropic.RawMessageStreamEvent) => void;
}

/** Resolves once the stream has ended; rejects, and stops reading, at the first failure (the handlers' included). */
export function readMessageEvents(response: Response, { onChunk, onEvent }: EventHandlers): Promise<void> {
  const body = response.body as unknown;
  if (!isNodeReadable(body)) return Promise.reject(new TypeError('the response body is not a Node stream'));
  // Its 'end' or 'close' would never come again.
  if (body.destroyed || body.readableEnded) return Promise.reject(prematureClose());
  const headers = response.headers;
  return new Promise((resolve, reject) => {
    // Decoded by the stream itself (its string decoder keeps a character cut between chunks whole), with no byte
    // order mark taken away: the decoder drops one where the SDK does, at the start of a line.
    body.setEncoding('utf8');
    const events = new EventStreamDecoder((message) => {
      const event = parsedEvent(message, headers);
      if (event) onEvent(event);
    });
    // Whatever the stream says once the response has been read or given up is no one's concern: the listeners stay
    // (taking four off costs more than the stream they go with), and hear nothing more.
    let settled = false;
    const fail = (error: unknown): void => {
      if (settled) return;
      settled = true;
      body.destroy();
      reject(error);
    };
    const onData = (chunk: string): void => {
      if (settled) return;
      onChunk();
      try {
        events.write(chunk);
      } catch (error) {
        fail(error);
      }
    };
    const onEnd = (): void => {
      if (settled) return;
      try {
        events.end();
      } catch (error) {
        return fail(error);
      }
      settled = true;
      resolve();
    };
    body
      .on('data', onData)
      .once('end', onEnd)
      .on('error', fail)
      .once('close', () => fail(prematureClose()));
  });
}

function parsedEvent(message: ServerSentEvent, headers: Headers): Anthropic.RawMessageStreamEvent | undefined {
  if (message.event === null || message.event === 'ping') return undefined;
  if (message.event === 'error') {
    const body = jsonOrText(message.data);
    const type = (body as { error?: { type?: string } } | undefined)?.error?.type;
    throw new APIError(undefined, body as object | undefined, undefined, headers, type as never);
  }
  if (!message.data) return undefined;
  return JSON.parse(message.data) as Anthropic.RawMessageStreamEvent;
}

function jsonOrText(data: string): unknown {
  try {
    return JSON.parse(data) ?? data;
  } catch {
    return data;
  }
}

function isNodeReadable(body: unknown): body is Readable {
  return typeof body === 'object' && body !== null && typeof (body as Readable).on === 'function';
}

/** What Node's own readers say of a stream that closed before its end. */
function prematureClose(): Error {
  return Object.assign(new Error('Premature close'), { code: 'ERR_STREAM_PREMATURE_CLOSE' });
}
