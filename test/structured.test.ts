// The parts of structured answers on their own: reading the answer out of a reply, the schema sent to the API, and the
// loop's hook at the end of a turn.
import type Anthropic from '@anthropic-ai/sdk';
import { describe, expect, it } from 'vitest';
import { agentLoop, type FinishVerdict, type LoopDeps } from '../src/loop.js';
import { extractAnswer } from '../src/structured/answer.js';
import { apiSchemaFor } from '../src/structured/api-schema.js';

describe('extractAnswer', () => {
  it.each([
    ['a bare value', '{"a":1}', false, { a: 1 }],
    ['surrounding white space', '\n  [1, 2]\n\n', false, [1, 2]],
    ['a ```json fence, alone', '```json\n{"a":1}\n```', false, { a: 1 }],
    ['a ~~~ fence, alone', '~~~\n"text"\n~~~', false, 'text'],
    ['a wrapped value', '{"value":["x"]}', true, ['x']],
    ['a bare value where a wrapped one was asked for', '["x"]', true, ['x']],
    ['an object with more than the wrapper key, kept whole', '{"value":1,"other":2}', true, { value: 1, other: 2 }],
    ['null', 'null', false, null],
  ])('takes %s', (_name, text, wrapped, value) => {
    expect(extractAnswer(text, wrapped)).toMatchObject({ ok: true, value });
  });

  it('says where a wrapped value sat, for messages', () => {
    expect(extractAnswer('{"value":3}', true)).toEqual({ ok: true, value: 3, at: '/value' });
    expect(extractAnswer('3', true)).toEqual({ ok: true, value: 3, at: '' });
  });

  it.each([
    ['nothing', '   ', true],
    ['prose', 'The build is green.', true],
    ['trailing text', '{"a":1} thanks', false],
    ['a trailing comment', '[1] /* done */', false],
    ['prose before a fence', 'Result:\n```json\n{"a":1}\n```', false],
    ['two values', '{"a":1}\n{"a":2}', false],
    ['broken JSON', '{"a":', false],
  ])('refuses %s (missing: %s)', (_name, text, missing) => {
    expect(extractAnswer(text, false)).toMatchObject({ ok: false, missing });
  });
});

describe('apiSchemaFor', () => {
  it('sends an object schema as it is, in the API subset', () => {
    const api = apiSchemaFor({ type: 'object', properties: { n: { type: 'integer', minimum: 1 } }, required: ['n'] });
    expect(api.wrapped).toBe(false);
    expect(api.constraint).toEqual({
      type: 'object',
      properties: { n: { type: 'integer', description: '{minimum: 1}' } },
      additionalProperties: false,
      required: ['n'],
    });
  });

  it('wraps any other top level, and moves its definitions to the new root', () => {
    const api = apiSchemaFor({ type: 'array', items: { $ref: '#/$defs/file' }, $defs: { file: { type: 'string' } } });
    expect(api.wrapped).toBe(true);
    expect(api.shown).toEqual({
      type: 'object',
      properties: { value: { type: 'array', items: { $ref: '#/$defs/file' } } },
      required: ['value'],
      additionalProperties: false,
      $defs: { file: { type: 'string' } },
    });
    expect(api.constraint).toMatchObject({
      $defs: { file: { type: 'string' } },
      properties: { value: { items: { $ref: '#/$defs/file' } } },
    });
  });

  it('re-points refs into the schema itself when it is wrapped, and does not constrain them', () => {
    const api = apiSchemaFor({ type: 'array', items: { type: 'string' }, contains: { $ref: '#/items' } });
    expect(JSON.stringify(api.shown)).toContain('"$ref":"#/properties/value/items"');
    expect(api.constraint).toBeUndefined();
  });

  it.each([
    ['a map', { type: 'object', additionalProperties: { type: 'string' } }, 'an object with additionalProperties'],
    [
      'an object with no properties',
      { type: 'object', properties: { inner: { type: 'object' } } },
      'an object without properties',
    ],
    ['a tuple', { type: 'array', prefixItems: [{ type: 'string' }] }, 'a tuple'],
    [
      'a nullable object',
      { type: 'object', properties: { a: { type: ['object', 'null'], properties: {} } } },
      'a type list with object or array',
    ],
    [
      'patternProperties',
      { type: 'object', properties: {}, patternProperties: { '^x': { type: 'string' } } },
      'patternProperties',
    ],
  ])('leaves %s unconstrained, rather than force every answer to {}', (_name, schema, reason) => {
    expect(apiSchemaFor(schema)).toMatchObject({ constraint: undefined, unconstrainedBecause: reason });
  });

  it('leaves a schema without a type unconstrained, with the reason the SDK gives', () => {
    expect(apiSchemaFor({ type: 'object', properties: { a: {} } }).unconstrainedBecause).toMatch(/must have a type/);
  });

  it('takes a property called additionalProperties for what it is', () => {
    const api = apiSchemaFor({ type: 'object', properties: { additionalProperties: { type: 'string' } } });
    expect(api.constraint).toBeDefined();
  });
});

describe("the loop's finish hook", () => {
  const reply = (text: string, stop: Anthropic.StopReason = 'end_turn') =>
    ({
      id: 'm',
      type: 'message',
      role: 'assistant',
      model: 't',
      content: [{ type: 'text', text, citations: null }],
      stop_reason: stop,
      stop_sequence: null,
      usage: { input_tokens: 1, output_tokens: 1 },
    }) as unknown as Anthropic.Message;

  function loop(replies: Anthropic.Message[], verdicts: FinishVerdict[], maxTurns = 10) {
    const seen: string[] = [];
    const deps: LoopDeps = {
      callModel: async () => ({ ok: true, message: replies.shift()! }),
      runTool: async () => {
        throw new Error('no tools here');
      },
      context: { fit: () => ({ ok: true, elided: 0 }), observe: () => {} },
      emit: () => {},
      maxTurns,
      signal: new AbortController().signal,
      finish: (text) => {
        seen.push(text);
        return verdicts.shift()!;
      },
    };
    const messages: Anthropic.MessageParam[] = [{ role: 'user', content: 'task' }];
    return { run: () => agentLoop(messages, deps), messages, seen };
  }

  it('sends the message back and goes on, then accepts', async () => {
    const { run, messages, seen } = loop(
      [reply('one'), reply('two')],
      [{ kind: 'retry', message: 'again' }, { kind: 'accept' }],
    );
    expect(await run()).toEqual({ kind: 'success', stopReason: 'end_turn', finalText: 'two', turns: 2 });
    expect(seen).toEqual(['one', 'two']);
    expect(messages.map((message) => message.role)).toEqual(['user', 'assistant', 'user', 'assistant']);
    expect(messages[2]).toEqual({ role: 'user', content: 'again' });
  });

  it('ends with structured_output when told to give up', async () => {
    const { run } = loop([reply('x')], [{ kind: 'fail', message: 'no good' }]);
    expect(await run()).toEqual({
      kind: 'structured_output',
      stopReason: 'end_turn',
      finalText: 'x',
      turns: 1,
      message: 'no good',
    });
  });

  it('ends with max_turns when the retry would pass --max-turns', async () => {
    const { run } = loop([reply('x')], [{ kind: 'retry', message: 'again' }], 1);
    expect(await run()).toMatchObject({ kind: 'max_turns', turns: 1 });
  });

  it('judges an answer continued after max_tokens whole, and the next answer alone', async () => {
    const { run, seen } = loop(
      [reply('{"a":', 'max_tokens'), reply('1}'), reply('{"a":2}')],
      [{ kind: 'retry', message: 'again' }, { kind: 'accept' }],
    );
    expect(await run()).toMatchObject({ kind: 'success', finalText: '{"a":2}' });
    expect(seen).toEqual(['{"a":1}', '{"a":2}']);
  });
});
