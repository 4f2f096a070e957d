// --json-schema through the binary: the constraint sent, the answer checked locally, sent back when it does not match,
// and printed as one JSON line; on endpoints that support output_config, refuse it, or ignore it.
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { answer, bash, messageText, runAgent, type AgentOptions, tempDir } from './support/run-agent.js';
import type { RecordedRequest, ServerOptions, TestServer, Turn } from './support/server.js';
import { useServer } from './support/use-server.js';

const serve = useServer();

const VERDICT = {
  type: 'object',
  properties: { verdict: { enum: ['approve', 'reject'] }, reasons: { type: 'array', items: { type: 'string' } } },
  required: ['verdict', 'reasons'],
  additionalProperties: false,
};
const FILE_LIST = { type: 'array', items: { type: 'string' }, minItems: 1 };

function run(s: TestServer, schema: object | string, args: string[] = [], options: AgentOptions = {}) {
  const text = typeof schema === 'string' ? schema : JSON.stringify(schema);
  return runAgent(['--json-schema', text, ...args, 'go'], s.url, { cwd: tempDir(), ...options });
}
const lastUserText = (request: RecordedRequest) =>
  messageText((request.body.messages as Array<{ content: unknown }>).at(-1)!.content);
const systemText = (request: RecordedRequest) =>
  (request.body.system as Array<{ text: string }>).map((block) => block.text).join('\n');
const serveWith = (turns: Turn[], structuredOutputs: ServerOptions['structuredOutputs']) =>
  serve(turns, { structuredOutputs });

describe('a structured answer', () => {
  it('text mode prints the JSON value on one line; the request carries output_config and the schema in the system prompt', async () => {
    const s = await serve([answer('{\n  "verdict": "approve",\n  "reasons": ["tests pass"]\n}')]);
    const result = await run(s, VERDICT);
    expect(result.code).toBe(0);
    expect(result.stdout).toBe('{"verdict":"approve","reasons":["tests pass"]}\n');
    expect(s.rejections()).toEqual([]);
    const request = s.validRequests()[0]!;
    expect(request.body.output_config).toEqual({
      format: {
        type: 'json_schema',
        schema: {
          ...VERDICT,
          properties: {
            verdict: { enum: ['approve', 'reject'] },
            reasons: { type: 'array', items: { type: 'string' } },
          },
        },
      },
    });
    expect(systemText(request)).toContain(JSON.stringify(VERDICT));
  });

  it('json mode carries the value as structured_output, and result keeps the final text', async () => {
    const s = await serve([bash('echo checked'), answer('{"verdict":"reject","reasons":["no tests"]}')]);
    const result = await run(s, VERDICT, ['--output-format', 'json']);
    expect(result.code).toBe(0);
    expect(JSON.parse(result.stdout)).toMatchObject({
      subtype: 'success',
      structured_output: { verdict: 'reject', reasons: ['no tests'] },
      result: '{"verdict":"reject","reasons":["no tests"]}',
      commands: 1,
      num_turns: 2,
    });
    expect(s.validRequests().every((request) => request.body.output_config !== undefined)).toBe(true);
  });

  it('a list at the top level is wrapped for the API and unwrapped for the user', async () => {
    const s = await serve([answer('{"value":["src/a.ts","src/b.ts"]}')]);
    const result = await run(s, FILE_LIST);
    expect(result.stdout).toBe('["src/a.ts","src/b.ts"]\n');
    const sent = s.validRequests()[0]!.body.output_config.format.schema;
    expect(sent).toEqual({
      type: 'object',
      properties: { value: { type: 'array', items: { type: 'string' }, minItems: 1 } },
      required: ['value'],
      additionalProperties: false,
    });
  });

  it('an enum at the top level prints the bare string; a bare value is taken as well as a wrapped one', async () => {
    const schema = { enum: ['approve', 'reject'] };
    const s = await serve([answer('{"value":"approve"}'), answer('"reject"')]);
    expect((await run(s, schema)).stdout).toBe('"approve"\n');
    expect((await run(s, schema)).stdout).toBe('"reject"\n');
  });

  it('draft-07 definitions are sent as $defs, and the refs follow them', async () => {
    const schema = {
      $schema: 'http://json-schema.org/draft-07/schema#',
      type: 'object',
      definitions: { file: { type: 'string' } },
      properties: { files: { type: 'array', items: { $ref: '#/definitions/file' } } },
      required: ['files'],
    };
    const s = await serve([answer('{"files":["x"]}')]);
    const result = await run(s, schema);
    expect(result.stdout).toBe('{"files":["x"]}\n');
    expect(s.rejections()).toEqual([]);
    const sent = s.validRequests()[0]!.body.output_config.format.schema;
    expect(sent.$defs).toEqual({ file: { type: 'string' } });
    expect(sent.properties.files.items).toEqual({ $ref: '#/$defs/file' });
  });

  it('a schema the API cannot express (a map) is checked locally only, with a warning', async () => {
    const schema = { type: 'object', additionalProperties: { type: 'integer' } };
    const s = await serve([answer('{"a.ts":3,"b.ts":"many"}'), answer('{"a.ts":3,"b.ts":7}')]);
    const result = await run(s, schema);
    expect(result.code).toBe(0);
    expect(result.stdout).toBe('{"a.ts":3,"b.ts":7}\n');
    expect(result.stderr).toMatch(
      /cannot be sent as the API's output constraint \(an object with additionalProperties\)/,
    );
    expect(s.validRequests().map((request) => request.body.output_config)).toEqual([undefined, undefined]);
    expect(lastUserText(s.validRequests()[1]!)).toContain('/b.ts must be integer');
  });
});

describe('an answer that does not match', () => {
  it('goes back to the model with the validator messages, and the next one is taken', async () => {
    const s = await serve([answer('{"verdict":"maybe","reasons":[]}'), answer('{"verdict":"approve","reasons":[]}')]);
    const result = await run(s, VERDICT, ['--output-format', 'json']);
    expect(result.code).toBe(0);
    expect(JSON.parse(result.stdout)).toMatchObject({
      num_turns: 2,
      structured_output: { verdict: 'approve', reasons: [] },
    });
    const feedback = lastUserText(s.validRequests()[1]!);
    expect(feedback).toContain('/verdict must be equal to one of the allowed values: "approve", "reject"');
    expect(result.stderr).toMatch(/warning: the answer does not match --json-schema \(attempt 1 of 3\)/);
  });

  it('checks what the API does not enforce (minimum, maxLength) locally', async () => {
    const schema = {
      type: 'object',
      properties: { score: { type: 'integer', minimum: 0, maximum: 10 } },
      required: ['score'],
    };
    const s = await serve([answer('{"score":11}'), answer('{"score":7}')]);
    const result = await run(s, schema);
    expect(result.stdout).toBe('{"score":7}\n');
    expect(s.validRequests()[0]!.body.output_config.format.schema.properties.score.description).toMatch(/maximum: 10/);
    expect(lastUserText(s.validRequests()[1]!)).toContain('/score must be <= 10');
  });

  it('after 3 failed attempts: error_structured_output, exit 1, and every reply kept in the transcript', async () => {
    const dir = tempDir();
    const transcript = join(dir, 'run.jsonl');
    const s = await serve([
      answer('{"verdict":"maybe","reasons":[]}'),
      answer('{"verdict":"yes","reasons":[]}'),
      answer('{"verdict":"ok","reasons":[]}'),
    ]);
    const result = await run(s, VERDICT, ['--output-format', 'json', '--transcript', transcript]);
    expect(result.code).toBe(1);
    const object = JSON.parse(result.stdout);
    expect(object).toMatchObject({
      subtype: 'error_structured_output',
      is_error: true,
      exit_code: 1,
      num_turns: 3,
      result: '{"verdict":"ok","reasons":[]}',
    });
    expect(object).not.toHaveProperty('structured_output');
    expect(object.error).toMatch(
      /No answer matching --json-schema after 3 attempts; the last one: \/verdict must be equal/,
    );
    expect(result.stderr).toMatch(/agent: No answer matching --json-schema after 3 attempts/);
    const records = readFileSync(transcript, 'utf8')
      .trim()
      .split('\n')
      .map((line) => JSON.parse(line));
    expect(
      records.filter((record) => record.type === 'response').map((record) => record.message.content[0].text),
    ).toEqual(['{"verdict":"maybe","reasons":[]}', '{"verdict":"yes","reasons":[]}', '{"verdict":"ok","reasons":[]}']);
    const userMessages = records.filter((record) => record.type === 'message' && record.message.role === 'user');
    const sentBack = userMessages.slice(1).map((record) => messageText(record.message.content));
    expect(sentBack).toHaveLength(2);
    expect(sentBack.every((text: string) => text.includes('/verdict must be equal to one of the allowed values'))).toBe(
      true,
    );
  });

  it('text mode prints nothing on stdout when no attempt matched', async () => {
    const bad = answer('{"verdict":"maybe","reasons":[]}');
    const s = await serve([bad, bad, bad]);
    const result = await run(s, VERDICT);
    expect(result.code).toBe(1);
    expect(result.stdout).toBe('');
  });

  it('a mismatch on the last allowed turn ends with error_max_turns', async () => {
    const s = await serve([answer('{"verdict":"maybe","reasons":[]}')]);
    const result = await run(s, VERDICT, ['--output-format', 'json', '--max-turns', '1']);
    expect(result.code).toBe(1);
    expect(JSON.parse(result.stdout)).toMatchObject({ subtype: 'error_max_turns', num_turns: 1 });
  });
});

describe('answers that are not a JSON value alone (an endpoint without constrained output)', () => {
  const cases: Array<[string, string, RegExp]> = [
    [
      'prose: the turn ended without the answer',
      'I reviewed the change and it looks fine.',
      /Your turn ended without the final answer/,
    ],
    [
      'JSON with a trailing comment',
      '{"verdict":"approve","reasons":[]} // all good',
      /more text follows the JSON value, from line 1, column 36 \(a comment: JSON has none\)/,
    ],
    [
      'JSON with a comment inside',
      '{"verdict":"approve", // fine\n"reasons":[]}',
      /line 1, column 23 \(a comment: JSON has none\)/,
    ],
    [
      'a valid answer followed by more text',
      '{"verdict":"approve","reasons":[]}\nLet me know if you need more.',
      /more text follows the JSON value, from line 2, column 1/,
    ],
    [
      'prose around a code fence',
      'Here it is:\n```json\n{"verdict":"approve","reasons":[]}\n```',
      /not a JSON value alone/,
    ],
  ];
  it.each(cases)('%s: sent back, and a clean answer after it is taken', async (_name, reply, feedback) => {
    const s = await serveWith([answer(reply), answer('{"verdict":"approve","reasons":[]}')], 'ignored');
    const result = await run(s, VERDICT, ['--output-format', 'json']);
    expect(result.code).toBe(0);
    expect(JSON.parse(result.stdout)).toMatchObject({ num_turns: 2, structured_output: { verdict: 'approve' } });
    expect(lastUserText(s.validRequests()[1]!)).toMatch(feedback);
    // The rejected reply stays in the conversation, as the model wrote it.
    const sentAgain = s.validRequests()[1]!.body.messages as Array<{ role: string; content: unknown }>;
    expect(messageText(sentAgain.at(-2)!.content)).toBe(reply);
  });

  it('JSON inside a markdown fence, and nothing else, is taken as it is', async () => {
    const s = await serveWith([answer('```json\n{"verdict":"approve","reasons":["ok"]}\n```')], 'ignored');
    const result = await run(s, VERDICT);
    expect(result.code).toBe(0);
    expect(result.stdout).toBe('{"verdict":"approve","reasons":["ok"]}\n');
  });

  it('a model that never gives the answer is reminded, and each reminder counts as an attempt', async () => {
    const prose = answer('All done, the tests pass.');
    const s = await serveWith([prose, prose, prose], 'ignored');
    const result = await run(s, VERDICT, ['--output-format', 'json']);
    expect(result.code).toBe(1);
    expect(JSON.parse(result.stdout)).toMatchObject({ subtype: 'error_structured_output', num_turns: 3 });
    expect(s.validRequests().slice(1).map(lastUserText)).toEqual([
      expect.stringMatching(/^Your turn ended without the final answer/),
      expect.stringMatching(/^Your turn ended/),
    ]);
  });
});

describe('endpoints without constrained output', () => {
  it('one that refuses output_config with a 400: the request is sent again without it, once, with a warning, and the run goes on', async () => {
    const s = await serveWith(
      [bash('echo looked'), answer('{"verdict":"maybe","reasons":[]}'), answer('{"verdict":"approve","reasons":[]}')],
      'rejected',
    );
    const result = await run(s, VERDICT, ['--output-format', 'json']);
    expect(result.code).toBe(0);
    expect(JSON.parse(result.stdout)).toMatchObject({
      subtype: 'success',
      num_turns: 3,
      structured_output: { verdict: 'approve' },
    });
    expect(s.rejections()).toHaveLength(1);
    expect(s.rejections()[0]!.rejected).toEqual({
      status: 400,
      message: 'output_config: Extra inputs are not permitted',
    });
    expect(s.rejections()[0]!.body.output_config).toBeDefined();
    expect(s.validRequests().map((request) => request.body.output_config)).toEqual([undefined, undefined, undefined]);
    expect(s.validRequests()[0]!.body.messages).toEqual(s.rejections()[0]!.body.messages);
    expect(result.stderr).toMatch(
      /warning: the endpoint refused the constrained-output field \(400 invalid_request_error: output_config: Extra inputs are not permitted/,
    );
    expect(result.stderr.match(/refused the constrained-output field/g)).toHaveLength(1);
    // The schema still reaches the model, in the system prompt, and the answer is still checked.
    expect(systemText(s.validRequests()[0]!)).toContain(JSON.stringify(VERDICT));
    expect(lastUserText(s.validRequests()[2]!)).toContain('/verdict must be equal to one of the allowed values');
  });

  it('one that ignores output_config: the answer is checked locally all the same', async () => {
    const s = await serveWith(
      [answer('{"verdict":"approve"}'), answer('{"verdict":"approve","reasons":[]}')],
      'ignored',
    );
    const result = await run(s, VERDICT);
    expect(result.code).toBe(0);
    expect(result.stdout).toBe('{"verdict":"approve","reasons":[]}\n');
    expect(s.validRequests()[0]!.body.output_config).toBeDefined();
    expect(lastUserText(s.validRequests()[1]!)).toContain("the answer must have required property 'reasons'");
  });

  it('another 400 is still exit 3, not a fallback', async () => {
    const s = await serve([{ kind: 'http_error', status: 400, message: 'messages: something else is wrong' }]);
    const result = await run(s, VERDICT, ['--output-format', 'json']);
    expect(result.code).toBe(3);
    expect(s.requests).toHaveLength(1);
    expect(JSON.parse(result.stdout)).toMatchObject({ subtype: 'error_api' });
  });
});
