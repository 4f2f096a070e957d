// --json-schema's own input: read and checked at start-up; anything wrong with it is exit 2 before any request.
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { answer, runAgent, tempDir } from './support/run-agent.js';
import { useServer } from './support/use-server.js';

const serve = useServer();

/** A 2 MB schema: a valid one, padded with many properties. */
function hugeSchema(): string {
  const properties: Record<string, object> = {};
  for (let i = 0; JSON.stringify(properties).length < 2 * 1024 * 1024; i++) {
    for (let j = 0; j < 1000; j++)
      properties[`field_${i}_${j}`] = { type: 'string', description: 'padding padding padding' };
  }
  return JSON.stringify({ type: 'object', properties });
}

describe('a schema that cannot be used: exit 2, one plain message, no request', () => {
  const cases: Array<[string, (dir: string) => string, RegExp]> = [
    [
      'a file that does not exist',
      (dir) => join(dir, 'missing.json'),
      /--json-schema: cannot read .*missing\.json: no such file\.$/m,
    ],
    ['a directory', (dir) => dir, /--json-schema: cannot read .*: EISDIR/],
    [
      'a file that is not JSON',
      (dir) => file(dir, 's.json', '{\n  "type": "object",\n  properties: {}\n}'),
      /--json-schema: .*s\.json is not JSON: Expected double-quoted property name at line 3, column 3\./,
    ],
    [
      'inline text that is not JSON',
      () => '{"type": "object",}',
      /--json-schema: the inline schema is not JSON: Expected double-quoted property name at line 1, column 19\./,
    ],
    [
      'words that are neither a file nor JSON',
      () => 'type: object',
      /cannot read .*type: object: no such file \(an inline schema starts with \{\)/,
    ],
    [
      '{"type": "nonsense"}',
      () => '{"type": "nonsense"}',
      /--json-schema: the inline schema is not a valid JSON Schema \(2020-12\): schema is invalid: data\/type must be equal to one of the allowed values/,
    ],
    [
      'a pattern that is not a regular expression',
      () => '{"type":"string","pattern":"(unclosed"}',
      /not a valid JSON Schema \(2020-12\): Invalid regular expression/,
    ],
    [
      'a schema that is an array',
      (dir) => file(dir, 'a.json', '[{"type":"string"}]'),
      /is not a JSON Schema: a schema is a JSON object; got an array/,
    ],
    [
      'a $ref to a remote URL',
      () => '{"type":"object","properties":{"a":{"$ref":"https://example.com/schemas/a.json"}}}',
      /refers to "https:\/\/example\.com\/schemas\/a\.json", outside the schema; references are never fetched \(no network access\): put the definition under \$defs/,
    ],
    [
      'a $ref to another file',
      () => '{"$ref":"common.json#/$defs/a"}',
      /refers to "common\.json#\/\$defs\/a", outside the schema; references are never fetched/,
    ],
    [
      'a $ref to nothing in the schema',
      () => '{"type":"object","properties":{"a":{"$ref":"#/$defs/missing"}}}',
      /has a \$ref to "#\/\$defs\/missing", which is not in the schema/,
    ],
    [
      'an unsupported $schema (draft-04)',
      () => '{"$schema":"http://json-schema.org/draft-04/schema#","type":"object"}',
      /names \$schema "http:\/\/json-schema\.org\/draft-04\/schema#"; use draft 2020-12 or draft-07/,
    ],
    [
      'a 2 MB schema file',
      (dir) => file(dir, 'huge.json', hugeSchema()),
      /--json-schema: .*huge\.json is 2\.\d MB; at most 256 KB is accepted, since the schema goes into every request\./,
    ],
    ['an empty value', () => ' ', /--json-schema needs a value/],
  ];

  it.each(cases)('%s', async (_name, schemaFor, message) => {
    const dir = tempDir();
    const s = await serve([answer('never')]);
    const run = await runAgent(['--json-schema', schemaFor(dir), 'go'], s.url, { cwd: dir });
    expect(run.code).toBe(2);
    expect(run.stderr).toMatch(message);
    expect(run.stderr.trim().split('\n').length).toBeLessThanOrEqual(2);
    expect(run.stderr).not.toMatch(/\n\s+at /);
    expect(run.stdout).toBe('');
    expect(s.requests).toHaveLength(0);
  });

  it('json modes still print the result object, error_usage, with the message', async () => {
    const s = await serve([answer('never')]);
    for (const format of ['json', 'stream-json']) {
      const run = await runAgent(['--output-format', format, '--json-schema', '{"type":"nonsense"}', 'go'], s.url, {
        cwd: tempDir(),
      });
      expect(run.code).toBe(2);
      const last = JSON.parse(run.stdout.trim().split('\n').at(-1)!);
      expect(last).toMatchObject({ type: 'result', subtype: 'error_usage', exit_code: 2, schema_version: 1 });
      expect(last.error).toMatch(/not a valid JSON Schema/);
    }
    expect(s.requests).toHaveLength(0);
  });

  it('is found before the prompt is read from stdin', async () => {
    const s = await serve([answer('never')]);
    const run = await runAgent(['--json-schema', '{"type":"nonsense"}'], s.url, { cwd: tempDir(), stdin: 'open' });
    expect(run.code).toBe(2);
    expect(run.durationMs).toBeLessThan(2_500);
  });
});

describe('schemas that are accepted', () => {
  it.each([
    [
      'draft 2020-12 (the default), from a file',
      'schema.json',
      { type: 'object', properties: { a: { type: 'string', format: 'email' } }, required: ['a'] },
    ],
    [
      'draft 2020-12, named',
      'named.json',
      {
        $schema: 'https://json-schema.org/draft/2020-12/schema',
        type: 'object',
        properties: { a: { $ref: '#/$defs/x' } },
        $defs: { x: { type: 'string' } },
      },
    ],
    [
      'draft-07, named',
      'seven.json',
      {
        $schema: 'http://json-schema.org/draft-07/schema#',
        type: 'object',
        properties: { a: { type: 'string' } },
        dependencies: { a: ['a'] },
      },
    ],
  ])('%s', async (_name, fileName, schema) => {
    const dir = tempDir();
    const s = await serve([answer('{"a":"x@example.com"}')]);
    const run = await runAgent(['--json-schema', file(dir, fileName, JSON.stringify(schema)), 'go'], s.url, {
      cwd: dir,
    });
    expect(run.code).toBe(0);
    expect(run.stdout).toBe('{"a":"x@example.com"}\n');
    expect(s.rejections()).toEqual([]);
  });

  it('a relative path is read from the current directory', async () => {
    const dir = tempDir();
    mkdirSync(join(dir, 'schemas'));
    file(dir, 'schemas/v.json', '{"type":"object","properties":{"ok":{"type":"boolean"}},"required":["ok"]}');
    const s = await serve([answer('{"ok":true}')]);
    const run = await runAgent(['--json-schema', 'schemas/v.json', 'go'], s.url, { cwd: dir });
    expect(run.stdout).toBe('{"ok":true}\n');
  });

  it('a keyword the validator does not know (a typo) is a warning, not an error', async () => {
    const s = await serve([answer('{}')]);
    const run = await runAgent(['--json-schema', '{"type":"object","properties":{},"requried":["a"]}', 'go'], s.url, {
      cwd: tempDir(),
    });
    expect(run.code).toBe(0);
    expect(run.stderr).toMatch(/warning: --json-schema: strict mode: unknown keyword: "requried"/);
  });

  it('a string format is checked (ajv-formats)', async () => {
    const schema = '{"type":"object","properties":{"when":{"type":"string","format":"date"}},"required":["when"]}';
    const s = await serve([answer('{"when":"next tuesday"}'), answer('{"when":"2025-01-31"}')]);
    const run = await runAgent(['--json-schema', schema, 'go'], s.url, { cwd: tempDir() });
    expect(run.stdout).toBe('{"when":"2025-01-31"}\n');
    expect(JSON.stringify(s.validRequests()[1]!.body.messages.at(-1))).toContain('/when must match format \\"date\\"');
  });
});

function file(dir: string, name: string, text: string): string {
  const path = join(dir, name);
  writeFileSync(path, text);
  return path;
}
