// Light stand-ins for the fetch API's Headers and Response. Node defines those globals lazily, and the first use of
// one loads its whole fetch implementation (undici): about 20 ms on Node 20 and 30 ms on Node 24, on every run of a
// program whose requests go over node:http anyway. The bundle points the SDK's references to these globals at the
// classes here (esbuild's `inject`, scripts/fetch-globals.mjs). They behave as the fetch standard says for what the
// SDK and our own fetch use; test/light-fetch-types.test.ts holds them against Node's own.

type HeaderPairs = Iterable<readonly [string, string]>;
type LightHeadersInit = HeaderPairs | Record<string, string | undefined> | null | undefined;

const TOKEN = /^[!#$%&'*+\-.^_`|~0-9A-Za-z]+$/;
const FORBIDDEN_IN_VALUE = /[\0\r\n]/;

export class LightHeaders {
  readonly #values = new Map<string, string>();
  readonly #cookies: string[] = [];

  constructor(init?: LightHeadersInit) {
    if (init === null || init === undefined) return;
    if (Symbol.iterator in init) {
      for (const pair of init as HeaderPairs) {
        if (pair.length !== 2) throw new TypeError('Headers: each pair must hold a name and a value');
        this.append(pair[0], pair[1]);
      }
      return;
    }
    for (const [name, value] of Object.entries(init)) {
      if (value === undefined) continue;
      this.append(name, value);
    }
  }

  /**
   * The headers node:http has parsed, as it gives them: names lower-cased and values checked by its parser, repeated
   * ones joined. Taken as they are, but Set-Cookie, which is kept apart, and a value with a NUL, CR or LF.
   */
  static fromParsed(parsed: Readonly<Record<string, string | string[] | undefined>>): LightHeaders {
    const headers = new LightHeaders();
    for (const name of Object.keys(parsed)) {
      const value = parsed[name];
      if (value === undefined) continue;
      const text = Array.isArray(value) ? value.join(', ') : value;
      // A lenient parser (--insecure-http-parser) lets a NUL through: refused as set() would refuse it.
      if (name === 'set-cookie' || FORBIDDEN_IN_VALUE.test(text)) headers.set(name, text);
      else headers.#values.set(name, text);
    }
    return headers;
  }

  append(name: string, value: string): void {
    const key = checkedName(name);
    const text = checkedValue(value);
    if (key === 'set-cookie') this.#cookies.push(text);
    const old = this.#values.get(key);
    this.#values.set(key, old === undefined ? text : `${old}, ${text}`);
  }

  set(name: string, value: string): void {
    const key = checkedName(name);
    const text = checkedValue(value);
    if (key === 'set-cookie') this.#cookies.splice(0, this.#cookies.length, text);
    this.#values.set(key, text);
  }

  get(name: string): string | null {
    return this.#values.get(checkedName(name)) ?? null;
  }

  has(name: string): boolean {
    return this.#values.has(checkedName(name));
  }

  delete(name: string): void {
    const key = checkedName(name);
    if (key === 'set-cookie') this.#cookies.length = 0;
    this.#values.delete(key);
  }

  getSetCookie(): string[] {
    return [...this.#cookies];
  }

  forEach(callback: (value: string, name: string, headers: LightHeaders) => void, thisArg?: unknown): void {
    for (const [name, value] of this) callback.call(thisArg, value, name, this);
  }

  /** Sorted by name, as the standard says; every Set-Cookie on its own. */
  *entries(): IterableIterator<[string, string]> {
    for (const name of [...this.#values.keys()].sort()) {
      if (name === 'set-cookie') for (const cookie of this.#cookies) yield [name, cookie];
      else yield [name, this.#values.get(name)!];
    }
  }

  *keys(): IterableIterator<string> {
    for (const [name] of this.entries()) yield name;
  }

  *values(): IterableIterator<string> {
    for (const [, value] of this.entries()) yield value;
  }

  [Symbol.iterator](): IterableIterator<[string, string]> {
    return this.entries();
  }

  get [Symbol.toStringTag](): string {
    return 'Headers';
  }
}

// Every request and response names the same few headers again: each name is checked and lower-cased once.
const CHECKED_NAMES = new Map<string, string>();
const MAX_CHECKED_NAMES = 256;

function checkedName(name: string): string {
  const text = String(name);
  const known = CHECKED_NAMES.get(text);
  if (known !== undefined) return known;
  if (!TOKEN.test(text)) throw new TypeError(`Headers: invalid header name '${text}'`);
  const lower = text.toLowerCase();
  if (CHECKED_NAMES.size < MAX_CHECKED_NAMES) CHECKED_NAMES.set(text, lower);
  return lower;
}

const HTTP_SPACE_AT_EDGE = /^[\t\n\r ]|[\t\n\r ]$/;

/** Leading and trailing HTTP white space goes; NUL, CR and LF are refused. */
function checkedValue(value: string): string {
  let text = String(value);
  if (HTTP_SPACE_AT_EDGE.test(text)) text = text.replace(/^[\t\n\r ]+|[\t\n\r ]+$/g, '');
  if (FORBIDDEN_IN_VALUE.test(text)) throw new TypeError('Headers: invalid header value');
  return text;
}

interface LightResponseInit {
  status?: number;
  statusText?: string;
  headers?: LightHeaders | LightHeadersInit;
}

/**
 * A response body as the SDK reads it: an async iterable of byte chunks (the SDK iterates a body that has
 * Symbol.asyncIterator directly), or a web ReadableStream, which is one too. Ours is a Node stream: no web stream is
 * made per response, which is most of what a turn costs in the HTTP layer.
 */
export type LightBody = AsyncIterable<Uint8Array> & { readonly locked?: boolean };

/** A response whose body is read at most once, as the SDK reads one. */
export class LightResponse {
  readonly status: number;
  readonly statusText: string;
  readonly headers: LightHeaders;
  readonly ok: boolean;
  readonly url = '';
  readonly redirected = false;
  readonly type = 'basic';
  readonly #body: LightBody | null;
  #used = false;

  constructor(body: LightBody | null = null, init: LightResponseInit = {}) {
    this.#body = body;
    this.status = init.status ?? 200;
    this.statusText = init.statusText ?? '';
    this.headers = init.headers instanceof LightHeaders ? init.headers : new LightHeaders(init.headers);
    this.ok = this.status >= 200 && this.status <= 299;
  }

  get body(): LightBody | null {
    return this.#body;
  }

  get bodyUsed(): boolean {
    return this.#used;
  }

  async arrayBuffer(): Promise<ArrayBuffer> {
    const bytes = await this.#bytes();
    return bytes.buffer.slice(bytes.byteOffset, bytes.byteOffset + bytes.byteLength) as ArrayBuffer;
  }

  async text(): Promise<string> {
    return new TextDecoder().decode(await this.#bytes());
  }

  async json(): Promise<unknown> {
    return JSON.parse(await this.text());
  }

  async #bytes(): Promise<Uint8Array> {
    if (this.#used || this.#body?.locked) throw new TypeError('Response: the body has already been read');
    this.#used = true;
    if (this.#body === null) return new Uint8Array(0);
    const chunks: Uint8Array[] = [];
    for await (const chunk of this.#body) chunks.push(chunk);
    return Buffer.concat(chunks);
  }
}

/** The SDK only asks whether a request body is `instanceof FormData`; ours never is. */
export class NoFormData {}
