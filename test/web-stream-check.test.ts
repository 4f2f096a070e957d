// The SDK's ReadableStream checks, answered without loading Node's web streams: the same answers as the SDK's own
// expression, and a run through the binary that never loads them.
import { Readable } from 'node:stream';
import { ReadableStream as WebReadableStream } from 'node:stream/web';
import { describe, expect, it } from 'vitest';
import { isWebReadableStream } from '../src/api/web-stream-check.js';
import { builtinsLoaded } from './support/builtins-loaded.js';
import { answer, bash } from './support/run-agent.js';
import { useServer } from './support/use-server.js';

const serve = useServer();

class OwnStream extends WebReadableStream<Uint8Array> {}

const values: Array<[string, unknown]> = [
  ['a string', '{"model":"m"}'],
  ['a number', 42],
  ['undefined', undefined],
  ['null', null],
  ['a plain object', { model: 'm', messages: [] }],
  ['an object without a prototype', Object.create(null)],
  ['an array', [1, 2]],
  ['a function', () => undefined],
  ['a Uint8Array', new Uint8Array(2)],
  ['a Node stream', Readable.from(['a'])],
  ['a web ReadableStream', new WebReadableStream()],
  ['a subclass of it', new OwnStream()],
  ['an object made from its prototype', Object.create(WebReadableStream.prototype)],
  ['an async iterable', { async *[Symbol.asyncIterator]() {} }],
];

describe('isWebReadableStream', () => {
  it.each(values)('answers as the SDK would for %s', (_, value) => {
    const sdk = Boolean(globalThis.ReadableStream && value instanceof globalThis.ReadableStream);
    expect(isWebReadableStream(value)).toBe(sdk);
  });
});

describe('a run', () => {
  it("never loads Node's web streams, with a command and a retry", async () => {
    const s = await serve([{ kind: 'http_error', status: 529 }, bash('echo hi'), answer('done')]);
    const { run, loaded } = await builtinsLoaded(s, /webstreams\/readablestream/);
    expect(run.code).toBe(0);
    expect(run.stdout).toBe('done\n');
    expect(loaded).toBe('');
  });
});
