// The test server's structured outputs: output_config and strict tools taken as the real API takes them, the schema
// subset it accepts, and the two ways third-party endpoints behave (refuse the field, or ignore it).
import { describe, expect, it } from 'vitest';
import type { ServerOptions } from './support/server.js';
import { useServer } from './support/use-server.js';

const serve = useServer();
const BASH_TOOL = {
  name: 'bash',
  description: 'run',
  input_schema: {
    type: 'object',
    properties: { command: { type: 'string' } },
    required: ['command'],
    additionalProperties: false,
  },
};

async function send(
  body: Record<string, unknown>,
  options: ServerOptions = {},
): Promise<{ status: number; message: string | undefined; recorded: unknown }> {
  const server = await serve([{ kind: 'message', content: [{ type: 'text', text: '{"a":1}' }] }], options);
  const response = await fetch(`${server.url}/v1/messages`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', 'anthropic-version': '2023-06-01', 'x-api-key': 'k' },
    body: JSON.stringify({
      model: 'claude-test',
      max_tokens: 100,
      messages: [{ role: 'user', content: 'hi' }],
      ...body,
    }),
  });
  const json = (await response.json()) as { error?: { message: string } };
  return { status: response.status, message: json.error?.message, recorded: server.requests[0]?.body };
}

const format = (schema: unknown) => ({ output_config: { format: { type: 'json_schema', schema } } });
const object = (properties: Record<string, unknown>, extra: Record<string, unknown> = {}) => ({
  type: 'object',
  properties,
  additionalProperties: false,
  ...extra,
});

describe('output_config on an endpoint that supports it', () => {
  it('accepts a schema in the subset, and records it', async () => {
    const schema = object(
      {
        verdict: { enum: ['a', 'b'] },
        files: { type: 'array', items: { $ref: '#/$defs/f' }, minItems: 1 },
        when: { type: 'string', format: 'date-time' },
      },
      { required: ['verdict'], $defs: { f: { type: 'string' } } },
    );
    const sent = await send(format(schema));
    expect(sent.status).toBe(200);
    expect(sent.recorded).toMatchObject(format(schema));
  });

  it.each([
    [
      'an object without additionalProperties: false',
      { type: 'object', properties: {} },
      "For 'object' type, 'additionalProperties' must be explicitly set to false",
    ],
    [
      'a keyword outside the subset',
      object({ n: { type: 'integer', minimum: 0 } }),
      "output_config.format.schema.properties.n: 'minimum' is not supported",
    ],
    ['oneOf', object({ n: { oneOf: [{ type: 'string' }, { type: 'integer' }] } }), "'oneOf' is not supported"],
    [
      'minItems above 1',
      object({ l: { type: 'array', items: { type: 'string' }, minItems: 2 } }),
      'minItems: only 0 and 1 are supported',
    ],
    ['an unsupported format', object({ s: { type: 'string', format: 'regex' } }), "format: 'regex' is not supported"],
    [
      'a remote $ref',
      object({ s: { $ref: 'https://example.com/s.json' } }),
      "cannot resolve 'https://example.com/s.json'",
    ],
    [
      'a top level that is not an object',
      { type: 'array', items: { type: 'string' } },
      "the top level must be of type 'object'",
    ],
    [
      'a format type other than json_schema',
      { type: 'object' },
      "output_config.format.type: Input should be 'json_schema'",
      { output_config: { format: { type: 'regex', schema: {} } } },
    ],
    [
      'an unknown field of output_config',
      {},
      'output_config.verbosity: Extra inputs are not permitted',
      { output_config: { verbosity: 'high' } },
    ],
  ] as Array<[string, unknown, string, Record<string, unknown>?]>)(
    'rejects %s with a 400',
    async (_name, schema, message, body) => {
      const sent = await send(body ?? format(schema));
      expect(sent.status).toBe(400);
      expect(sent.message).toContain(message);
    },
  );
});

describe('strict tools', () => {
  it('accepts strict: true with an input_schema in the subset', async () => {
    const sent = await send({ tools: [{ ...BASH_TOOL, strict: true }] });
    expect(sent.status).toBe(200);
    expect(sent.recorded).toMatchObject({ tools: [{ strict: true }] });
  });

  it('checks the input_schema of a strict tool, and only of a strict one', async () => {
    const loose = {
      ...BASH_TOOL,
      input_schema: { type: 'object', properties: { command: { type: 'string', maxLength: 10 } } },
    };
    expect((await send({ tools: [loose] })).status).toBe(200);
    const refused = await send({ tools: [{ ...loose, strict: true }] });
    expect(refused.status).toBe(400);
    expect(refused.message).toContain(
      "tools.0.input_schema: For 'object' type, 'additionalProperties' must be explicitly set to false",
    );
  });

  it('wants a boolean', async () => {
    expect((await send({ tools: [{ ...BASH_TOOL, strict: 'yes' }] })).message).toBe(
      'tools.0.strict: Input should be a valid boolean',
    );
  });
});

describe('third-party endpoints', () => {
  it("'rejected' refuses output_config and strict as unknown fields", async () => {
    expect(await send(format(object({})), { structuredOutputs: 'rejected' })).toMatchObject({
      status: 400,
      message: 'output_config: Extra inputs are not permitted',
    });
    expect(await send({ tools: [{ ...BASH_TOOL, strict: true }] }, { structuredOutputs: 'rejected' })).toMatchObject({
      status: 400,
      message: 'tools.0.strict: Extra inputs are not permitted',
    });
    expect((await send({}, { structuredOutputs: 'rejected' })).status).toBe(200);
  });

  it("'ignored' takes anything, even a schema the real API would refuse", async () => {
    const sent = await send(format({ type: 'object', properties: { n: { type: 'integer', minimum: 0 } } }), {
      structuredOutputs: 'ignored',
    });
    expect(sent.status).toBe(200);
  });
});
