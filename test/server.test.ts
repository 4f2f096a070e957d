import Anthropic from '@anthropic-ai/sdk';
import { afterEach, describe, expect, it } from 'vitest';
import { countTokens, startServer, type ServerOptions, type TestServer, type Turn } from './support/server.js';
import { BLOCK_OVERHEAD, CacheSimulator, MESSAGE_OVERHEAD, MIN_CACHEABLE_TOKENS } from './support/server-tokens.js';

const servers: TestServer[] = [];
afterEach(async () => {
  await Promise.all(servers.splice(0).map((server) => server.close()));
});

async function serve(script: Turn[], options?: ServerOptions): Promise<TestServer> {
  const server = await startServer(script, options);
  servers.push(server);
  return server;
}

function clientFor(server: TestServer, maxRetries = 0): Anthropic {
  return new Anthropic({ apiKey: 'test', baseURL: server.url, maxRetries });
}

type Body = Record<string, unknown>;
type ApiError = InstanceType<typeof Anthropic.APIError>;
const hello = (): Body => ({ model: 'claude-test', max_tokens: 100, messages: [{ role: 'user', content: 'hi' }] });
const textTurn = (text: string): Turn => ({ kind: 'message', content: [{ type: 'text', text }] });
// The server accepts bodies the SDK's types would refuse; tests send them as they are.
const create = (client: Anthropic, body: Body) => client.messages.create(body as never);
const stream = (client: Anthropic, body: Body) => client.messages.stream(body as never);

async function failure(promise: Promise<unknown>): Promise<unknown> {
  try {
    await promise;
  } catch (error) {
    return error;
  }
  throw new Error('expected the request to fail');
}

function post(
  server: TestServer,
  path: string,
  body: unknown,
  headers: Record<string, string> = {},
): Promise<Response> {
  return fetch(server.url + path, {
    method: 'POST',
    headers: { 'content-type': 'application/json', 'anthropic-version': '2023-06-01', 'x-api-key': 'k', ...headers },
    body: typeof body === 'string' ? body : JSON.stringify(body),
  });
}

describe('responses through the real SDK', () => {
  it('streams a text turn', async () => {
    const server = await serve([textTurn('Hello there, this is a streamed answer.')]);
    const message = await stream(clientFor(server), hello()).finalMessage();
    expect(message.content).toEqual([{ type: 'text', text: 'Hello there, this is a streamed answer.' }]);
    expect(message.stop_reason).toBe('end_turn');
    expect(message.id).toMatch(/^msg_/);
    expect(message.model).toBe('claude-test');
    expect(message.usage.output_tokens).toBe(Math.ceil(39 / 3));
    expect(message.usage.input_tokens).toBe(countTokens(hello()));
    const [request] = server.validRequests();
    expect(request?.headers['anthropic-version']).toBeTruthy();
    expect(request?.headers['authorization']).toBe('Bearer test');
    expect(request?.body.stream).toBe(true);
  });

  it('streams a tool_use turn whose input round-trips, with a generated id', async () => {
    const input = { command: 'printf "%s\\n" "ünïcödé 🎉" | wc -c', nested: { list: [1, 2, { deep: null }] } };
    const server = await serve([
      {
        kind: 'message',
        content: [
          { type: 'text', text: 'Let me look.' },
          { type: 'tool_use', name: 'bash', input },
        ],
      },
    ]);
    const message = await stream(clientFor(server), hello()).finalMessage();
    expect(message.stop_reason).toBe('tool_use');
    const tool = message.content[1];
    expect(tool?.type).toBe('tool_use');
    if (tool?.type !== 'tool_use') return;
    expect(tool.input).toEqual(input);
    expect(tool.id).toMatch(/^toolu_[A-Za-z0-9]{24}$/);
  });

  it('streams thinking with its signature', async () => {
    const server = await serve([
      {
        kind: 'message',
        content: [
          { type: 'thinking', thinking: 'Hmm.', signature: 'sig' },
          { type: 'text', text: 'Done' },
        ],
      },
    ]);
    const message = await stream(clientFor(server), hello()).finalMessage();
    expect(message.content[0]).toEqual({ type: 'thinking', thinking: 'Hmm.', signature: 'sig' });
  });

  it('frames SSE exactly, splits text into several deltas and reports cumulative usage', async () => {
    const server = await serve([textTurn('abcdefgh')]);
    const response = await post(server, '/v1/messages?beta=true', { ...hello(), stream: true });
    expect(response.headers.get('content-type')).toBe('text/event-stream');
    expect(response.headers.get('request-id')).toMatch(/^req_/);
    const raw = await response.text();
    const events = raw
      .split('\n\n')
      .filter(Boolean)
      .map((chunk) => {
        const match = /^event: (\S+)\ndata: (.*)$/s.exec(chunk);
        if (!match) throw new Error(`bad frame: ${JSON.stringify(chunk)}`);
        return { name: match[1], data: JSON.parse(match[2] ?? '') };
      });
    expect(events.map((event) => event.name)).toEqual([
      'message_start',
      'ping',
      'content_block_start',
      'content_block_delta',
      'content_block_delta',
      'content_block_stop',
      'message_delta',
      'message_stop',
    ]);
    expect(events[0]?.data.message.content).toEqual([]);
    expect(events[3]?.data.delta.text + events[4]?.data.delta.text).toBe('abcdefgh');
    expect(events[6]?.data).toMatchObject({
      delta: { stop_reason: 'end_turn' },
      usage: { output_tokens: Math.ceil(8 / 3) },
    });
  });

  it('answers a non-streamed create with the JSON message', async () => {
    const server = await serve([
      {
        kind: 'message',
        content: [{ type: 'tool_use', id: 'toolu_fixed', name: 'bash', input: { command: 'ls' } }],
        stop_reason: 'max_tokens',
        usage: { output_tokens: 7 },
      },
    ]);
    const message = await create(clientFor(server), hello());
    expect(message).toMatchObject({
      type: 'message',
      role: 'assistant',
      content: [{ type: 'tool_use', id: 'toolu_fixed', name: 'bash', input: { command: 'ls' } }],
      stop_reason: 'max_tokens',
      usage: { output_tokens: 7, cache_read_input_tokens: 0, cache_creation_input_tokens: 0 },
    });
  });

  it('plays dynamic turns from the request they answer', async () => {
    const echo: Turn = (request) => textTurn(`you said ${request.body.messages.at(-1).content}`);
    const server = await serve([echo]);
    const message = await create(clientFor(server), { ...hello(), messages: [{ role: 'user', content: 'ping' }] });
    expect(message.content[0]).toMatchObject({ text: 'you said ping' });
  });

  it('counts tokens without consuming a turn', async () => {
    const server = await serve([textTurn('after counting')]);
    const client = clientFor(server);
    const counted = await client.messages.countTokens({
      model: 'claude-test',
      messages: [{ role: 'user', content: 'hi' }],
    });
    expect(counted.input_tokens).toBe(countTokens(hello()));
    const message = await create(client, hello());
    expect(message.content[0]).toMatchObject({ text: 'after counting' });
  });

  it('sums the usage of successful responses in totals()', async () => {
    const server = await serve([textTurn('one two three four'), { kind: 'http_error', status: 500 }, textTurn('five')]);
    const client = clientFor(server);
    await create(client, hello());
    await failure(create(client, hello()));
    await stream(client, hello()).finalMessage();
    expect(server.totals()).toEqual({
      input_tokens: 2 * countTokens(hello()),
      output_tokens: Math.ceil(18 / 3) + Math.ceil(4 / 3),
      cache_creation_input_tokens: 0,
      cache_read_input_tokens: 0,
    });
  });

  it('answers loudly once the script is exhausted, or with onExhausted', async () => {
    const server = await serve([]);
    const error = await failure(create(clientFor(server), hello()));
    expect(error).toBeInstanceOf(Anthropic.InternalServerError);
    expect((error as ApiError).apiMessage).toBe('test script exhausted');
    const patient = await serve([], { onExhausted: textTurn('spare') });
    const message = await create(clientFor(patient), hello());
    expect(message.content[0]).toMatchObject({ text: 'spare' });
  });
});

describe('validation', () => {
  const toolUse = (id: string) => ({ type: 'tool_use', id, name: 'bash', input: { command: 'ls' } });
  const toolResult = (id: string, content: unknown = 'ok') => ({ type: 'tool_result', tool_use_id: id, content });
  const convo = (...messages: unknown[]): Body => ({ ...hello(), messages });
  const user = (content: unknown) => ({ role: 'user', content });
  const assistant = (content: unknown) => ({ role: 'assistant', content });
  const tool = (name: string, extra: Body = {}) => ({
    name,
    description: 'd',
    input_schema: { type: 'object' },
    ...extra,
  });
  const cached = { cache_control: { type: 'ephemeral' } };

  const cases: Array<[string, Body, string]> = [
    ['missing model', { max_tokens: 5, messages: [user('hi')] }, 'model: Field required'],
    ['missing max_tokens', { model: 'm', messages: [user('hi')] }, 'max_tokens: Field required'],
    ['zero max_tokens', { ...hello(), max_tokens: 0 }, 'max_tokens: Input should be greater than or equal to 1'],
    ['fractional max_tokens', { ...hello(), max_tokens: 1.5 }, 'max_tokens: Input should be a valid integer'],
    ['empty messages', convo(), 'messages: at least one message is required'],
    ['temperature', { ...hello(), temperature: 0 }, 'temperature: Extra inputs are not permitted'],
    ['top_p', { ...hello(), top_p: 0.9 }, 'top_p: Extra inputs are not permitted'],
    ['top_k', { ...hello(), top_k: 5 }, 'top_k: Extra inputs are not permitted'],
    ['assistant first', convo(assistant('hi'), user('hi')), 'messages: first message must use the "user" role'],
    ['empty text block', convo(user([{ type: 'text', text: '' }])), 'messages: text content blocks must be non-empty'],
    [
      'whitespace text block',
      convo(user([{ type: 'text', text: ' \n ' }])),
      'messages: text content blocks must be non-empty',
    ],
    ['whitespace string content', convo(user('  ')), 'messages: text content blocks must be non-empty'],
    [
      'empty text in a tool_result',
      convo(user('go'), assistant([toolUse('toolu_a')]), user([toolResult('toolu_a', [{ type: 'text', text: '' }])])),
      'messages: text content blocks must be non-empty',
    ],
    [
      'empty system text',
      { ...hello(), system: [{ type: 'text', text: '' }] },
      'system: text content blocks must be non-empty',
    ],
    [
      'empty message',
      convo(user('a'), assistant([]), user('b')),
      'messages.1: all messages must have non-empty content except for the optional final assistant message',
    ],
    [
      'empty string message',
      convo(user('')),
      'messages.0: all messages must have non-empty content except for the optional final assistant message',
    ],
    [
      'unanswered tool_use',
      convo(user('go'), assistant([toolUse('toolu_a'), toolUse('toolu_b')]), user([toolResult('toolu_a')])),
      'messages.1: `tool_use` ids were found without `tool_result` blocks immediately after: toolu_b. Each `tool_use` block must have a corresponding `tool_result` block in the next message.',
    ],
    [
      'tool_use as the last message',
      convo(user('go'), assistant([toolUse('toolu_a')])),
      'messages.1: `tool_use` ids were found without `tool_result` blocks immediately after: toolu_a. Each `tool_use` block must have a corresponding `tool_result` block in the next message.',
    ],
    [
      'text before tool_result',
      convo(user('go'), assistant([toolUse('toolu_a')]), user([{ type: 'text', text: 'x' }, toolResult('toolu_a')])),
      'messages.2: `tool_result` blocks must come first in the message content, before any other content',
    ],
    [
      'orphan tool_result',
      convo(user('go'), assistant('ok'), user([toolResult('toolu_zzz')])),
      'messages.2.content.0: unexpected `tool_use_id` found in `tool_result` blocks: toolu_zzz. Each `tool_result` block must have a corresponding `tool_use` block in the previous message.',
    ],
    [
      'five cache breakpoints',
      {
        ...hello(),
        tools: [tool('a', cached), tool('b', cached)],
        system: [{ type: 'text', text: 's', ...cached }],
        messages: [user([{ type: 'text', text: 'x', ...cached }]), assistant([{ type: 'text', text: 'z', ...cached }])],
      },
      'A maximum of 4 blocks with cache_control may be provided. Found 5.',
    ],
    [
      'prefill with trailing whitespace',
      convo(user('hi'), assistant('Sure, ')),
      'messages: final assistant content cannot end with trailing whitespace',
    ],
    [
      'bad tool name',
      { ...hello(), tools: [tool('bad name')] },
      "tools.0.name: String should match pattern '^[a-zA-Z0-9_-]{1,128}$'",
    ],
    [
      'tool name too long',
      { ...hello(), tools: [tool('x'.repeat(129))] },
      "tools.0.name: String should match pattern '^[a-zA-Z0-9_-]{1,128}$'",
    ],
    ['duplicate tool names', { ...hello(), tools: [tool('bash'), tool('bash')] }, 'tools: Tool names must be unique.'],
    [
      'schema not an object',
      { ...hello(), tools: [tool('bash', { input_schema: { type: 'string' } })] },
      "tools.0.input_schema.type: Input should be 'object'",
    ],
  ];

  it.each(cases)('rejects %s with the API message', async (_name, body, message) => {
    const server = await serve([textTurn('never sent')]);
    const error = await failure(create(clientFor(server), body));
    expect(error).toBeInstanceOf(Anthropic.BadRequestError);
    expect((error as ApiError).apiMessage).toBe(message);
    expect((error as ApiError).requestID).toMatch(/^req_/);
    expect(server.rejections()).toHaveLength(1);
    expect(server.rejections()[0]?.rejected).toEqual({ status: 400, message });
  });

  it('counts cache_control on blocks nested in a tool_result', async () => {
    const server = await serve([]);
    const body = convo(
      user('go'),
      assistant([toolUse('toolu_a')]),
      user([
        toolResult(
          'toolu_a',
          [1, 2, 3, 4, 5].map((n) => ({ type: 'text', text: `${n}`, ...cached })),
        ),
      ]),
    );
    const error = await failure(create(clientFor(server), body));
    expect((error as ApiError).apiMessage).toBe('A maximum of 4 blocks with cache_control may be provided. Found 5.');
  });

  it('accepts what the API accepts, and rejections consume no turn', async () => {
    const server = await serve([textTurn('first'), textTurn('second'), textTurn('third')]);
    const client = clientFor(server);
    await failure(create(client, { ...hello(), temperature: 1 }));
    // Consecutive user messages are merged by the API; a final empty assistant message is allowed.
    const merged = convo(
      user('a'),
      user([{ type: 'text', text: 'b' }]),
      assistant([toolUse('toolu_a')]),
      user([toolResult('toolu_a'), { type: 'text', text: 'and' }]),
      assistant([]),
    );
    expect((await create(client, merged)).content[0]).toMatchObject({ text: 'first' });
    const split = convo(
      user('go'),
      assistant([toolUse('toolu_a')]),
      user([toolResult('toolu_a')]),
      user([{ type: 'text', text: 'more' }]),
      assistant('Prefill'),
    );
    expect((await create(client, split)).content[0]).toMatchObject({ text: 'second' });
    const withTools = {
      ...hello(),
      tools: [tool('bash', cached), { type: 'bash_20250124', name: 'shell' }],
      system: [{ type: 'text', text: 'sys', ...cached }],
    };
    expect((await create(client, withTools)).content[0]).toMatchObject({ text: 'third' });
    expect(server.validRequests()).toHaveLength(3);
    expect(server.rejections()).toHaveLength(1);
  });

  it('rejects a prompt over the context window', async () => {
    const server = await serve([textTurn('fits')], { contextWindow: 50 });
    const client = clientFor(server);
    expect((await create(client, hello())).content[0]).toMatchObject({ text: 'fits' });
    const big = { ...hello(), messages: [user('word '.repeat(100))] };
    const error = await failure(create(client, big));
    expect(error).toBeInstanceOf(Anthropic.BadRequestError);
    expect((error as ApiError).apiMessage).toBe(`prompt is too long: ${countTokens(big)} tokens > 50 maximum`);
  });

  it('answers 401 without credentials, and checks required ones', async () => {
    const server = await serve([textTurn('ok')], { requireAuth: { bearer: 'secret' } });
    const bare = await fetch(`${server.url}/v1/messages`, {
      method: 'POST',
      headers: { 'anthropic-version': '2023-06-01' },
      body: JSON.stringify(hello()),
    });
    expect(bare.status).toBe(401);
    expect(await bare.json()).toMatchObject({
      type: 'error',
      error: { type: 'authentication_error' },
      request_id: expect.stringMatching(/^req_/),
    });
    expect(await failure(create(clientFor(server), hello()))).toBeInstanceOf(Anthropic.AuthenticationError);
    const authorised = new Anthropic({ authToken: 'secret', baseURL: server.url, maxRetries: 0 });
    expect((await create(authorised, hello())).content[0]).toMatchObject({ text: 'ok' });
    const keyed = await serve([textTurn('ok')], { requireAuth: { apiKey: 'k' } });
    expect((await post(keyed, '/v1/messages', hello(), { 'x-api-key': 'k' })).status).toBe(200);
  });

  it('answers 404 on unknown paths, 400 on bad JSON or a missing version, 413 over 32 MB', async () => {
    const server = await serve([]);
    const notFound = await post(server, '/v1/complete', hello());
    expect(notFound.status).toBe(404);
    expect(await notFound.json()).toMatchObject({ error: { type: 'not_found_error' } });
    expect((await post(server, '/v1/messages', '{not json')).status).toBe(400);
    const noVersion = await post(server, '/v1/messages', hello(), { 'anthropic-version': '' });
    expect(await noVersion.json()).toMatchObject({ error: { message: 'anthropic-version: header is required' } });
    const huge = { ...hello(), messages: [{ role: 'user', content: 'x'.repeat(33 * 1024 * 1024) }] };
    const tooLarge = await post(server, '/v1/messages', huge);
    expect(tooLarge.status).toBe(413);
    expect(await tooLarge.json()).toMatchObject({ error: { type: 'request_too_large' } });
    expect(server.rejections().map((request) => request.rejected?.status)).toEqual([404, 400, 400, 413]);
    expect(server.validRequests()).toHaveLength(0);
  });
});

describe('failures as the SDK sees them', () => {
  it.each([
    [429, Anthropic.RateLimitError],
    [529, Anthropic.OverloadedError],
    [500, Anthropic.InternalServerError],
    [403, Anthropic.PermissionDeniedError],
    [404, Anthropic.NotFoundError],
  ])('http_error %i reaches the SDK as the right class, headers included', async (status, errorClass) => {
    const server = await serve([{ kind: 'http_error', status, message: 'scripted', headers: { 'retry-after': '7' } }]);
    const error = await failure(create(clientFor(server), hello()));
    expect(error).toBeInstanceOf(errorClass);
    expect((error as ApiError).status).toBe(status);
    expect((error as ApiError).headers?.get('retry-after')).toBe('7');
    expect((error as ApiError).apiMessage).toBe('scripted');
  });

  it('lets the SDK retry honouring retry-after, the retry consuming the next turn', async () => {
    const server = await serve([
      { kind: 'http_error', status: 429, headers: { 'retry-after': '0.05' } },
      textTurn('recovered'),
    ]);
    const started = Date.now();
    const message = await stream(clientFor(server, 1), hello()).finalMessage();
    // The SDK's own backoff would wait at least 375 ms.
    expect(Date.now() - started).toBeLessThan(300);
    expect(message.content[0]).toMatchObject({ text: 'recovered' });
    expect(server.requests.map((request) => request.headers['x-stainless-retry-count'])).toEqual(['0', '1']);
  });

  it('stream_error makes the SDK throw the error event, after partial content', async () => {
    const server = await serve([{ kind: 'stream_error' }]);
    const messageStream = stream(clientFor(server), hello());
    const seen: string[] = [];
    messageStream.on('text', (delta) => seen.push(delta));
    const error = await failure(messageStream.finalMessage());
    expect(error).toBeInstanceOf(Anthropic.APIError);
    expect((error as ApiError).type).toBe('overloaded_error');
    expect(seen.length).toBe(1);
  });

  it('drop breaks the connection mid-stream', async () => {
    const server = await serve([{ kind: 'drop', afterEvents: 2 }]);
    const error = await failure(stream(clientFor(server), hello()).finalMessage());
    // Node's fetch reports a reset body as TypeError('terminated'); the SDK passes it through.
    expect(error).toBeInstanceOf(Error);
    expect(String((error as Error).message)).toMatch(/terminated/);
  });

  it('truncated ends the stream cleanly without message_stop, and finalMessage rejects', async () => {
    const server = await serve([{ kind: 'truncated', afterEvents: 7, content: [{ type: 'text', text: 'almost' }] }]);
    const error = await failure(stream(clientFor(server), hello()).finalMessage());
    expect((error as Error).message).toMatch(/stream ended without producing a Message/);
    expect(server.totals().output_tokens).toBe(0);
  });

  it('hang never answers: the client times out, and close() ends a hanging request', async () => {
    const server = await startServer([{ kind: 'hang' }, { kind: 'hang' }]);
    const client = clientFor(server);
    const timedOut = await failure(client.messages.create(hello() as never, { timeout: 200 }));
    expect(timedOut).toBeInstanceOf(Anthropic.APIConnectionTimeoutError);
    const pending = failure(create(client, hello()));
    while (server.requests.length < 2) await new Promise((resolve) => setTimeout(resolve, 10));
    const closing = Date.now();
    await server.close();
    expect(await pending).toBeInstanceOf(Anthropic.APIConnectionError);
    expect(Date.now() - closing).toBeLessThan(1000);
  });

  it('delays headers and chunks as scripted', async () => {
    const server = await serve([
      { kind: 'message', content: [{ type: 'text', text: 'slow' }], delayMs: 150, chunkDelayMs: 30 },
    ]);
    const started = Date.now();
    await stream(clientFor(server), hello()).finalMessage();
    expect(Date.now() - started).toBeGreaterThanOrEqual(150 + 6 * 30);
  });
});

describe('token counting and the prompt-cache simulation', () => {
  const words = (count: number, seed: string) => Array.from({ length: count }, (_, n) => `${seed}${n}`).join(' ');
  const bigSystem = words(1500, 'sys'); // well over MIN_CACHEABLE_TOKENS
  const cachedText = (text: string) => ({ type: 'text', text, cache_control: { type: 'ephemeral' } });
  const request = (messages: unknown[], system: unknown = [cachedText(bigSystem)]): Body => ({
    model: 'm',
    max_tokens: 10,
    system,
    messages,
  });

  it('counts one token per three characters by default, plus overheads, ignoring cache_control', () => {
    const plain = countTokens({ messages: [{ role: 'user', content: 'x'.repeat(400) }] });
    expect(plain).toBe(Math.ceil(400 / 3) + BLOCK_OVERHEAD + MESSAGE_OVERHEAD);
    expect(countTokens({ messages: [{ role: 'user', content: 'x'.repeat(400) }] }, 4)).toBe(
      100 + BLOCK_OVERHEAD + MESSAGE_OVERHEAD,
    );
    const withMarker = countTokens({ messages: [{ role: 'user', content: [cachedText('x'.repeat(400))] }] });
    expect(withMarker).toBe(plain);
    const withTool = countTokens({
      tools: [{ name: 'bash', input_schema: { type: 'object' } }],
      messages: [{ role: 'user', content: 'x'.repeat(400) }],
    });
    expect(withTool).toBeGreaterThan(plain);
    expect(countTokens(request([{ role: 'user', content: 'hi' }]))).toBe(
      countTokens(request([{ role: 'user', content: 'hi' }])),
    );
  });

  it('without cache_control every token is input', () => {
    const cache = new CacheSimulator();
    const body = request([{ role: 'user', content: 'hi' }], bigSystem);
    expect(cache.account(body)).toEqual({
      input_tokens: countTokens(body),
      cache_creation_input_tokens: 0,
      cache_read_input_tokens: 0,
    });
    expect(cache.account(body).cache_read_input_tokens).toBe(0);
  });

  it('writes a marked prefix once, then reads it', () => {
    const cache = new CacheSimulator();
    const first = request([{ role: 'user', content: 'question one' }]);
    const systemTokens = countTokens({ system: bigSystem });
    expect(systemTokens).toBeGreaterThan(MIN_CACHEABLE_TOKENS);
    const written = cache.account(first);
    expect(written).toEqual({
      input_tokens: countTokens(first) - systemTokens,
      cache_creation_input_tokens: systemTokens,
      cache_read_input_tokens: 0,
    });
    const second = request([{ role: 'user', content: 'a different question' }]);
    expect(cache.account(second)).toEqual({
      input_tokens: countTokens(second) - systemTokens,
      cache_creation_input_tokens: 0,
      cache_read_input_tokens: systemTokens,
    });
    // Another model has its own cache.
    expect(cache.account({ ...second, model: 'other' }).cache_read_input_tokens).toBe(0);
  });

  it('does not cache prefixes under the minimum', () => {
    const cache = new CacheSimulator();
    const small = request([{ role: 'user', content: 'hi' }], [cachedText('short system')]);
    expect(cache.account(small).cache_creation_input_tokens).toBe(0);
    expect(cache.account(small)).toEqual({
      input_tokens: countTokens(small),
      cache_creation_input_tokens: 0,
      cache_read_input_tokens: 0,
    });
  });

  it("finds the previous request's breakpoint by looking back from the new one", () => {
    const cache = new CacheSimulator();
    const turn1 = [{ role: 'user', content: [cachedText(words(1200, 'task'))] }];
    const first = request(turn1, bigSystem);
    cache.account(first);
    const total1 = countTokens(first);
    const turn2 = [
      { role: 'user', content: [{ type: 'text', text: words(1200, 'task') }] },
      { role: 'assistant', content: [{ type: 'tool_use', id: 'toolu_1', name: 'bash', input: { command: 'ls' } }] },
      {
        role: 'user',
        content: [
          { type: 'tool_result', tool_use_id: 'toolu_1', content: 'a b c', cache_control: { type: 'ephemeral' } },
        ],
      },
    ];
    const second = request(turn2, bigSystem);
    expect(cache.account(second)).toEqual({
      input_tokens: 0,
      cache_creation_input_tokens: countTokens(second) - total1,
      cache_read_input_tokens: total1,
    });
    // Beyond the lookback window the earlier prefix is not found.
    const far = request(
      [
        ...turn2.slice(0, 1),
        ...Array.from({ length: 24 }, (_, n) => ({ role: n % 2 ? 'user' : 'assistant', content: `m${n}` })),
        { role: 'assistant', content: [cachedText('end')] },
      ],
      bigSystem,
    );
    expect(cache.account(far).cache_read_input_tokens).toBe(0);
  });

  it('reports cache usage through the SDK over HTTP', async () => {
    const server = await serve([textTurn('one'), textTurn('two')]);
    const client = clientFor(server);
    const body = request([{ role: 'user', content: 'hello' }]);
    const first = await stream(client, body).finalMessage();
    const second = await stream(client, body).finalMessage();
    expect(first.usage.cache_creation_input_tokens).toBeGreaterThan(MIN_CACHEABLE_TOKENS);
    expect(first.usage.cache_read_input_tokens).toBe(0);
    expect(second.usage.cache_read_input_tokens).toBe(first.usage.cache_creation_input_tokens);
    expect(second.usage.input_tokens + (second.usage.cache_read_input_tokens ?? 0)).toBe(countTokens(body));
    expect(server.totals().cache_read_input_tokens).toBe(second.usage.cache_read_input_tokens);
  });
});
