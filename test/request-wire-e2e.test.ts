// The model request byte for byte as the server reads it: request line, header names in their order and case, every
// value, and a body that is the SDK's plain JSON text. Whatever changes in how a request is put together, what goes
// out stays this.
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { answer, bash, runAgent } from './support/run-agent.js';
import type { RecordedRequest } from './support/server.js';
import { useServer } from './support/use-server.js';

const serve = useServer();

const sdkVersion: string = JSON.parse(
  readFileSync(new URL('../node_modules/@anthropic-ai/sdk/package.json', import.meta.url), 'utf8'),
).version;
const osNames: Record<string, string> = { linux: 'Linux', darwin: 'MacOS', win32: 'Windows' };

/** The headers the SDK and the run send on every model request, in the order node:http writes them. */
function expectedHeaders(host: string, bodyBytes: number): string[] {
  return [
    ['accept', 'application/json'],
    ['anthropic-version', '2026-10-21'],
    ['content-type', 'application/json'],
    ['user-agent', `Anthropic/JS ${sdkVersion}`],
    ['x-api-key', 'test-key'],
    ['x-other', 'b'],
    ['x-stainless-arch', process.arch],
    ['x-stainless-helper-method', 'stream'],
    ['x-stainless-lang', 'js'],
    ['x-stainless-os', osNames[process.platform] ?? process.platform],
    ['x-stainless-package-version', sdkVersion],
    ['x-stainless-retry-count', '0'],
    ['x-stainless-runtime', 'node'],
    ['x-stainless-runtime-version', process.version],
    ['x-stainless-timeout', '600'],
    ['x-team', 'a'],
    ['Host', host],
    ['Connection', 'keep-alive'],
    ['Content-Length', String(bodyBytes)],
  ].flat();
}

describe('the model request on the wire', () => {
  it('is the same head and body on every turn: every header in its order, the body as plain JSON', async () => {
    const s = await serve([bash('true'), bash('true'), answer('done')]);
    const run = await runAgent(['go'], s.url, { env: { ANTHROPIC_CUSTOM_HEADERS: 'X-Team: a\nx-other: b' } });
    expect(run.code).toBe(0);
    const requests: RecordedRequest[] = s.validRequests();
    expect(requests).toHaveLength(3);
    const host = new URL(s.url).host;
    for (const request of requests) {
      expect(request.rawHead.line).toBe('POST /v1/messages HTTP/1.1');
      expect(request.rawHead.headers).toEqual(expectedHeaders(host, Buffer.byteLength(request.rawBody)));
      expect(request.rawBody).toBe(JSON.stringify(request.body));
      expect(Object.keys(request.body)).toEqual([
        'model',
        'max_tokens',
        'system',
        'tools',
        'messages',
        'thinking',
        'stream',
      ]);
    }
    expect(requests.map((request) => request.body.messages.length)).toEqual([1, 3, 5]);
  });
});
