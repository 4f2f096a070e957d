// The agent reads the Messages event stream itself (src/api/event-reader.ts). It must read every stream exactly as
// the SDK's own decoder does, however the bytes are cut into chunks, and fail as the SDK's Stream fails.
import { APIError } from '@anthropic-ai/sdk/core/error';
import { Stream } from '@anthropic-ai/sdk/core/streaming';
import { Readable } from 'node:stream';
import { StringDecoder } from 'node:string_decoder';
import { describe, expect, it } from 'vitest';
import { readMessageEvents } from '../src/api/event-reader.js';
import { EventStreamDecoder, type ServerSentEvent } from '../src/api/event-stream.js';
import { LightHeaders, LightResponse } from '../src/api/light-fetch-types.js';
import { seededRandom } from './support/seeded-random.js';

const PIECES = [
  'event: ',
  'event:',
  'data: ',
  'data:',
  'data',
  'event',
  ': comment',
  ':',
  ' ',
  'x',
  '{"type":"ping"}',
  'é',
  '😀',
  '\uFEFF',
  'retry: 5',
  'id: 7',
  '\n',
  '\n',
  '\n\n',
  '\r',
  '\r\n',
  '\r\r',
];

/** Bytes that are not UTF-8: a lone continuation byte, a sequence cut short, a byte that never starts one. */
const INVALID = [Buffer.from([0x80]), Buffer.from([0xe2, 0x82]), Buffer.from([0xff])];

function randomStream(next: () => number): Buffer {
  const parts: Buffer[] = [];
  const pieces = Math.floor(next() * 60);
  for (let i = 0; i < pieces; i++) {
    parts.push(
      next() < 0.05
        ? INVALID[Math.floor(next() * INVALID.length)]!
        : Buffer.from(PIECES[Math.floor(next() * PIECES.length)]!),
    );
  }
  return Buffer.concat(parts);
}

/** The bytes of `text`, cut at random byte offsets: a cut may fall inside a character or between CR and LF. */
function randomChunks(text: string | Buffer, next: () => number): Buffer[] {
  const bytes = typeof text === 'string' ? Buffer.from(text) : text;
  const chunks: Buffer[] = [];
  let from = 0;
  while (from < bytes.length) {
    const size = 1 + Math.floor(next() * 8);
    chunks.push(bytes.subarray(from, from + size));
    from += size;
  }
  return chunks;
}

async function sdkEvents(chunks: Buffer[]): Promise<ServerSentEvent[]> {
  const response = { body: Readable.from(chunks) } as unknown as Response;
  const events: ServerSentEvent[] = [];
  for await (const { event, data } of Stream.rawEvents(response)) events.push({ event, data });
  return events;
}

function ourEvents(chunks: Buffer[]): ServerSentEvent[] {
  const events: ServerSentEvent[] = [];
  const decoder = new EventStreamDecoder((event) => events.push(event));
  // As the reader decodes: the stream's own string decoder (setEncoding).
  const text = new StringDecoder('utf8');
  for (const chunk of chunks) decoder.write(text.write(chunk));
  decoder.write(text.end());
  decoder.end();
  return events;
}

function response(chunks: Array<string | Buffer>, headers: Record<string, string> = {}): Response {
  const body = Readable.from(
    chunks.map((chunk) => (typeof chunk === 'string' ? Buffer.from(chunk) : chunk)),
    { objectMode: false },
  );
  return new LightResponse(body as never, { headers: new LightHeaders(headers) }) as unknown as Response;
}

async function read(res: Response): Promise<{ events: unknown[]; chunks: number }> {
  const events: unknown[] = [];
  let chunks = 0;
  await readMessageEvents(res, { onChunk: () => chunks++, onEvent: (event) => events.push(event) });
  return { events, chunks };
}

describe('the event stream decoder', () => {
  it('reads 3,000 random streams, some not UTF-8, cut at random, exactly as the SDK does', async () => {
    const next = seededRandom(20261202);
    for (let round = 0; round < 3000; round++) {
      const text = randomStream(next);
      const chunks = randomChunks(text, next);
      expect(ourEvents(chunks), JSON.stringify({ round, text: text.toString('latin1') })).toEqual(
        await sdkEvents(chunks),
      );
    }
  });

  it('reads the same events whether a stream comes whole or a byte at a time', async () => {
    const text = 'event: a\r\ndata: one\r\ndata: two\r\n\r\nevent: b\rdata: é\r\revent: c\ndata: 3\n\n';
    const whole = ourEvents([Buffer.from(text)]);
    expect(whole).toEqual([
      { event: 'a', data: 'one\ntwo' },
      { event: 'b', data: 'é' },
      { event: 'c', data: '3' },
    ]);
    expect(ourEvents(randomChunks(text, () => 0))).toEqual(whole);
    expect(whole).toEqual(await sdkEvents([Buffer.from(text)]));
  });

  it('keeps a CR that ended one text when an empty one comes between', () => {
    const events: ServerSentEvent[] = [];
    const decoder = new EventStreamDecoder((event) => events.push(event));
    for (const text of ['event: a\r', '', '\ndata: 1\n\n']) decoder.write(text);
    expect(events).toEqual([{ event: 'a', data: '1' }]);
  });
});

describe('reading a streamed response', () => {
  const start = { type: 'message_start', message: { id: 'm' } };
  const sse = (event: string, data: unknown) => `event: ${event}\ndata: ${JSON.stringify(data)}\n\n`;

  it('hands on each event parsed, skips pings and unnamed events, and counts every chunk', async () => {
    const { events, chunks } = await read(
      response([sse('message_start', start), sse('ping', { type: 'ping' }), 'data: {"type":"x"}\n\n', 'event: y\n\n']),
    );
    expect(events).toEqual([start]);
    expect(chunks).toBe(4);
  });

  it("throws an `error` event as the SDK's APIError, with the response's headers", async () => {
    const error = { type: 'error', error: { type: 'overloaded_error', message: 'Overloaded' } };
    const failure = await read(
      response([sse('message_start', start), sse('error', error)], { 'request-id': 'r1' }),
    ).catch((caught: unknown) => caught);
    expect(failure).toBeInstanceOf(APIError);
    expect((failure as APIError).status).toBeUndefined();
    expect((failure as APIError).message).toContain('Overloaded');
    expect((failure as APIError).requestID).toBe('r1');
  });

  it('fails on data that is not JSON, and stops reading the stream', async () => {
    const body = Readable.from(
      [Buffer.from('event: content_block_delta\ndata: {"cut\n\n'), Buffer.from(sse('x', {}))],
      { objectMode: false },
    );
    const failure = await read(new LightResponse(body as never) as unknown as Response).catch((caught) => caught);
    expect(failure).toBeInstanceOf(SyntaxError);
    expect(body.destroyed).toBe(true);
  });

  it('stops reading, and fails with its error, when a handler throws', async () => {
    const body = Readable.from([Buffer.from(sse('message_start', start)), Buffer.from(sse('message_stop', {}))]);
    const failure = await readMessageEvents(new LightResponse(body as never) as unknown as Response, {
      onChunk: () => {},
      onEvent: () => {
        throw new Error('out of order');
      },
    }).catch((caught: unknown) => caught);
    expect((failure as Error).message).toBe('out of order');
    expect(body.destroyed).toBe(true);
  });

  it("fails with the stream's own error, and with a premature close when it closes before its end", async () => {
    const broken = new Readable({ read() {} });
    const reading = read(new LightResponse(broken as never) as unknown as Response);
    broken.push(Buffer.from(sse('message_start', start)));
    broken.destroy(Object.assign(new Error('aborted'), { code: 'ECONNRESET' }));
    expect(await reading.catch((caught: { code?: string }) => caught.code)).toBe('ECONNRESET');

    const closed = new Readable({ read() {}, emitClose: true });
    const cut = read(new LightResponse(closed as never) as unknown as Response);
    closed.destroy();
    expect(await cut.catch((caught: { code?: string }) => caught.code)).toBe('ERR_STREAM_PREMATURE_CLOSE');
  });

  it('fails at once on a body that has already closed, rather than waiting for an end that cannot come', async () => {
    const closed = new Readable({ read() {} });
    closed.destroy();
    await new Promise((resolve) => closed.once('close', resolve));
    const failure = await read(new LightResponse(closed as never) as unknown as Response).catch((caught) => caught);
    expect((failure as { code?: string }).code).toBe('ERR_STREAM_PREMATURE_CLOSE');
  });

  it('reads a character cut between two chunks whole', async () => {
    const bytes = Buffer.from(sse('message_start', { type: 'message_start', message: { id: 'é😀' } }));
    const at = bytes.indexOf(Buffer.from('😀')) + 2;
    const { events } = await read(response([bytes.subarray(0, at), bytes.subarray(at)]));
    expect(events).toEqual([{ type: 'message_start', message: { id: 'é😀' } }]);
  });
});
