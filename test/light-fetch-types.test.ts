// The light Headers and Response the bundle uses instead of Node's fetch globals, held against Node's own, and a run
// through the binary that never loads Node's fetch implementation.
import { createServer, get, type IncomingMessage } from 'node:http';
import type { AddressInfo } from 'node:net';
import { describe, expect, it } from 'vitest';
import { LightHeaders, LightResponse } from '../src/api/light-fetch-types.js';
import { builtinsLoaded } from './support/builtins-loaded.js';
import { answer, bash } from './support/run-agent.js';
import { useServer } from './support/use-server.js';

const serve = useServer();

type Step = (headers: {
  append(n: string, v: string): void;
  set(n: string, v: string): void;
  delete(n: string): void;
}) => void;

/** Each script runs against both; every observable result must agree. */
const scripts: Array<{ name: string; init: unknown; steps: Step[] }> = [
  {
    name: 'pairs with repeated names',
    init: [
      ['X-A', '1'],
      ['x-a', '2'],
      ['B', ' spaced \t'],
    ],
    steps: [],
  },
  {
    name: 'a record',
    init: { 'Content-Type': 'application/json', 'x-api-key': 'k' },
    steps: [(h) => h.set('content-type', 'text/plain')],
  },
  {
    name: 'another Headers',
    init: new Headers([
      ['z', '1'],
      ['a', '2'],
    ]),
    steps: [(h) => h.delete('Z'), (h) => h.append('A', '3')],
  },
  {
    name: 'set-cookie kept apart',
    init: undefined,
    steps: [(h) => h.append('Set-Cookie', 'a=1'), (h) => h.append('set-cookie', 'b=2'), (h) => h.append('x', 'y')],
  },
  {
    name: 'white space around values, and names seen before in another case',
    init: [
      ['X-Lead', '\t\n lead'],
      ['x-trail', 'trail \r\n'],
      ['X-Mid', 'mid dle'],
      ['x-empty', ''],
      ['x-blank', ' \t '],
      ['Content-TYPE', 'a'],
    ],
    steps: [(h) => h.append('X-LEAD', ' again '), (h) => h.set('X-Trail', 'x')],
  },
  {
    name: 'set-cookie reset by set',
    init: [
      ['set-cookie', 'a=1'],
      ['set-cookie', 'b=2'],
    ],
    steps: [(h) => h.set('Set-Cookie', 'c=3')],
  },
];

function observe(headers: Headers | LightHeaders) {
  const each: string[] = [];
  headers.forEach((value, name) => each.push(`${name}=${value}`));
  return {
    entries: [...headers.entries()],
    keys: [...headers.keys()],
    values: [...headers.values()],
    each,
    get: ['x-a', 'B', 'content-type', 'set-cookie', 'missing', 'A', 'z', 'x-lead', 'X-TRAIL', 'x-blank'].map((name) =>
      headers.get(name),
    ),
    has: ['x-a', 'Z', 'missing'].map((name) => headers.has(name)),
    cookies: headers.getSetCookie(),
  };
}

describe('LightHeaders', () => {
  it.each(scripts)("behaves as Node's Headers: $name", ({ init, steps }) => {
    const real = new Headers(init as ConstructorParameters<typeof Headers>[0]);
    const light = new LightHeaders(init as Iterable<[string, string]>);
    for (const step of steps) {
      step(real);
      step(light);
    }
    expect(observe(light)).toEqual(observe(real));
  });

  it('takes the headers node:http parsed as Headers built from the same pairs would hold them', async () => {
    const server = createServer((_, response) => {
      response.setHeader('X-Request-Id', 'req_1');
      response.setHeader('Set-Cookie', ['a=1', 'b=2']);
      response.setHeader('Cache-Control', ['no-cache', 'no-store']);
      response.end('{}');
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    try {
      const { port } = server.address() as AddressInfo;
      const parsed = await new Promise<IncomingMessage>((resolve, reject) =>
        get(`http://127.0.0.1:${port}/`, resolve).on('error', reject),
      );
      parsed.resume();
      const pairs = Object.entries(parsed.headers).map(
        ([name, value]) => [name, Array.isArray(value) ? value.join(', ') : String(value)] as [string, string],
      );
      expect(observe(LightHeaders.fromParsed(parsed.headers))).toEqual(observe(new LightHeaders(pairs)));
      expect(LightHeaders.fromParsed(parsed.headers).get('X-Request-Id')).toBe('req_1');
      expect(LightHeaders.fromParsed({ 'x-gone': undefined }).has('x-gone')).toBe(false);
      // What a lenient parser (--insecure-http-parser) lets through is refused as Headers refuse it.
      expect(() => LightHeaders.fromParsed({ 'x-bad': 'a\0b' })).toThrow(TypeError);
    } finally {
      server.close();
    }
  });

  it('refuses what Node refuses: a bad name, a value with a line break', () => {
    for (const [name, value] of [
      ['bad name', 'v'],
      ['ok', 'a\nb'],
      ['', 'v'],
    ] as const) {
      expect(() => new Headers([[name, value]])).toThrow(TypeError);
      expect(() => new LightHeaders([[name, value]])).toThrow(TypeError);
      // Refused every time, not only the first.
      expect(() => new LightHeaders([[name, value]])).toThrow(TypeError);
    }
  });
});

describe('LightResponse', () => {
  const stream = (text: string) => new Response(text).body!;

  it('reads its body once, as text or JSON, and says whether it is ok', async () => {
    const response = new LightResponse(stream('{"a":1}'), {
      status: 201,
      statusText: 'Created',
      headers: { 'Content-Type': 'application/json' },
    });
    expect([
      response.ok,
      response.status,
      response.statusText,
      response.headers.get('content-type'),
      response.bodyUsed,
    ]).toEqual([true, 201, 'Created', 'application/json', false]);
    expect(await response.json()).toEqual({ a: 1 });
    expect(response.bodyUsed).toBe(true);
    await expect(response.text()).rejects.toThrow(TypeError);
    const failed = new LightResponse(stream('nope'), { status: 503 });
    expect([failed.ok, await failed.text()]).toEqual([false, 'nope']);
    expect(await new LightResponse(null, { status: 204 }).text()).toBe('');
  });
});

describe('a run through the binary', () => {
  it("never loads Node's fetch implementation, with or without a command or a retry", async () => {
    const s = await serve([{ kind: 'http_error', status: 529 }, bash('echo hi'), answer('done')]);
    const { run, loaded } = await builtinsLoaded(s, /undici/);
    expect(run.code).toBe(0);
    expect(run.stdout).toBe('done\n');
    expect(loaded).toBe('');
  });
});
