// The test server's thinking: the settings taken as the real API takes them, signed thinking blocks, and the rules
// for sending them back, each shown to reject what the real API rejects (anthropic-wire.md, Thinking).
import { describe, expect, it } from 'vitest';
import type { ServerOptions, TestServer, Turn } from './support/server.js';
import { useServer } from './support/use-server.js';

const serve = useServer();
const BASH_TOOL = {
  name: 'bash',
  description: 'run',
  input_schema: { type: 'object', properties: { command: { type: 'string' } } },
};
type Json = Record<string, any>;

async function post(server: TestServer, body: Json): Promise<{ status: number; body: Json }> {
  const response = await fetch(`${server.url}/v1/messages`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', 'anthropic-version': '2023-06-01', 'x-api-key': 'k' },
    body: JSON.stringify({ model: 'claude-sonnet-5-5', max_tokens: 32000, tools: [BASH_TOOL], ...body }),
  });
  return { status: response.status, body: (await response.json()) as Json };
}

const THINKING_TURN: Turn = {
  kind: 'message',
  content: [
    { type: 'thinking', thinking: 'First I list the files.' },
    { type: 'redacted_thinking' },
    { type: 'tool_use', name: 'bash', input: { command: 'ls' } },
    { type: 'tool_use', name: 'bash', input: { command: 'pwd' } },
  ],
};
const adaptive = { thinking: { type: 'adaptive' } };

/** A first request, the assistant turn it got, and a second request built from that turn by `edit`. */
async function roundTrip(edit: (content: Json[]) => Json[], extra: Json = adaptive, options: ServerOptions = {}) {
  const server = await serve([THINKING_TURN, { kind: 'message', content: [{ type: 'text', text: 'done' }] }], options);
  const first = await post(server, { messages: [{ role: 'user', content: 'go' }], ...extra });
  expect(first.status).toBe(200);
  const content = first.body.content as Json[];
  const results = content
    .filter((block) => block.type === 'tool_use')
    .map((block) => ({ type: 'tool_result', tool_use_id: block.id, content: 'ok' }));
  const messages = [
    { role: 'user', content: 'go' },
    { role: 'assistant', content: edit(structuredClone(content)) },
    { role: 'user', content: results },
  ];
  return { first, second: await post(server, { messages, ...extra }) };
}

describe('thinking blocks the server sends', () => {
  it('are signed, and redacted thinking carries data', async () => {
    const { first } = await roundTrip((content) => content);
    const [thinking, redacted] = first.body.content as Json[];
    expect(thinking).toMatchObject({ type: 'thinking', thinking: 'First I list the files.' });
    expect(thinking!.signature).toMatch(/^[A-Za-z0-9+/=]{20,}$/);
    expect(redacted!.type).toBe('redacted_thinking');
    expect(redacted!.data).toMatch(/\./);
  });
});

describe('sending thinking back', () => {
  it('as it came: accepted', async () => {
    expect((await roundTrip((content) => content)).second.status).toBe(200);
  });

  it('with a changed thinking text or signature: Invalid `signature`', async () => {
    const text = await roundTrip((content) => [
      { ...content[0], thinking: 'First I list the files!' },
      ...content.slice(1),
    ]);
    expect(text.second).toMatchObject({
      status: 400,
      body: { error: { message: 'messages.1.content.0: Invalid `signature` in `thinking` block' } },
    });
    const signature = await roundTrip((content) => [
      { ...content[0], signature: `x${content[0]!.signature}` },
      ...content.slice(1),
    ]);
    expect(signature.second.status).toBe(400);
  });

  it('unsigned, or with changed redacted data: refused', async () => {
    const unsigned = await roundTrip((content) => [{ ...content[0], signature: '' }, ...content.slice(1)]);
    expect(unsigned.second.body.error.message).toBe('messages.1.content.0.thinking.signature: Field required');
    const redacted = await roundTrip((content) => [
      content[0]!,
      { ...content[1], data: 'forged.data' },
      ...content.slice(2),
    ]);
    expect(redacted.second.body.error.message).toContain('Invalid `data` in `redacted_thinking` block');
  });

  it('reordered, or with one of its blocks left out: cannot be modified', async () => {
    const reordered = await roundTrip((content) => [content[1]!, content[0]!, ...content.slice(2)]);
    expect(reordered.second.body.error.message).toContain('blocks in the latest assistant message cannot be modified');
    const part = await roundTrip((content) => content.slice(1));
    expect(part.second.body.error.message).toContain('cannot be modified');
    const moved = await roundTrip((content) => [...content.slice(2), content[0]!, content[1]!]);
    expect(moved.second.status).toBe(400);
  });

  it('the turn in progress without its thinking, with thinking on: Expected `thinking`', async () => {
    const dropped = await roundTrip((content) => content.slice(2));
    expect(dropped.second.status).toBe(400);
    expect(dropped.second.body.error.message).toMatch(
      /^messages\.1\.content\.0\.type: Expected `thinking` or `redacted_thinking`, but found `tool_use`/,
    );
    // With thinking off, nothing is required.
    expect((await roundTrip((content) => content.slice(2), {})).second.status).toBe(200);
  });

  it("an earlier turn's thinking may be left out", async () => {
    const server = await serve([
      THINKING_TURN,
      THINKING_TURN,
      { kind: 'message', content: [{ type: 'text', text: 'done' }] },
    ]);
    const messages: Json[] = [{ role: 'user', content: 'go' }];
    for (let turn = 0; turn < 2; turn++) {
      const reply = await post(server, { messages, ...adaptive });
      const content = reply.body.content as Json[];
      messages.push({ role: 'assistant', content });
      messages.push({
        role: 'user',
        content: content
          .filter((b) => b.type === 'tool_use')
          .map((b) => ({ type: 'tool_result', tool_use_id: b.id, content: 'ok' })),
      });
    }
    // Once the next turn is in progress, the first one's thinking may go.
    messages[1]!.content = messages[1]!.content.slice(2);
    expect((await post(server, { messages, ...adaptive })).status).toBe(200);
    expect(server.rejections()).toEqual([]);
  });
});

describe('the thinking settings', () => {
  const settings = async (body: Json, options: ServerOptions = {}) => {
    const server = await serve([{ kind: 'message', content: [{ type: 'text', text: 'hi' }] }], options);
    return post(server, { messages: [{ role: 'user', content: 'hi' }], ...body });
  };

  it.each([
    [
      'adaptive with a budget',
      { thinking: { type: 'adaptive', budget_tokens: 2000 } },
      'thinking.adaptive.budget_tokens: Extra inputs are not permitted',
    ],
    [
      'a budget under 1024',
      { model: 'claude-sonnet-4-5', thinking: { type: 'enabled', budget_tokens: 500 } },
      'greater than or equal to 1024',
    ],
    [
      'a budget not below max_tokens',
      { model: 'claude-sonnet-4-5', max_tokens: 2000, thinking: { type: 'enabled', budget_tokens: 2000 } },
      'must be greater than `thinking.budget_tokens`',
    ],
    [
      'a budget for the adaptive generation',
      { thinking: { type: 'enabled', budget_tokens: 2000 } },
      'thinking.type.enabled: not supported',
    ],
    ['an unknown effort', { output_config: { effort: 'extreme' } }, 'output_config.effort'],
  ])('refuses %s', async (_name, body, message) => {
    const reply = await settings(body);
    expect(reply.status).toBe(400);
    expect(reply.body.error.message).toContain(message);
  });

  it('takes adaptive thinking with an effort, and a budget on an older model', async () => {
    expect((await settings({ ...adaptive, output_config: { effort: 'max' } })).status).toBe(200);
    expect(
      (await settings({ model: 'claude-sonnet-4-5', thinking: { type: 'enabled', budget_tokens: 1024 } })).status,
    ).toBe(200);
  });

  it("'rejected' refuses both fields as unknown, as an endpoint without thinking does", async () => {
    expect((await settings(adaptive, { thinking: 'rejected' })).body.error.message).toBe(
      'thinking: Extra inputs are not permitted',
    );
    expect((await settings({ output_config: { effort: 'low' } }, { thinking: 'rejected' })).body.error.message).toBe(
      'output_config.effort: Extra inputs are not permitted',
    );
  });

  it('a model the server does not know: 404 model: <id>', async () => {
    const reply = await settings({ model: 'claude-nope' }, { models: ['claude-sonnet-5-5'] });
    expect(reply).toMatchObject({
      status: 404,
      body: { error: { type: 'not_found_error', message: 'model: claude-nope' } },
    });
  });
});
