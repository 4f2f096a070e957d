// The published shapes in schema/: every line the binary prints in json and stream-json modes carries schema_version
// and validates against them; a field removed, renamed or added without being listed fails.
import { describe, expect, it } from 'vitest';
import { createOutputChecker, loadSchemas } from './support/output-schema.js';
import { answer, bash, runAgent, tempDir } from './support/run-agent.js';
import { useServer } from './support/use-server.js';

const serve = useServer();
const checker = createOutputChecker();

type Line = Record<string, unknown>;

/** Every kind of stream-json line, from a real run: init, assistant, user, retry, result. */
async function everyLineType(): Promise<Line[]> {
  const s = await serve([bash('echo hi'), { kind: 'http_error', status: 529 }, answer('{"ok":true}')]);
  const run = await runAgent(
    [
      '--output-format',
      'stream-json',
      '--json-schema',
      '{"type":"object","properties":{"ok":{"type":"boolean"}}}',
      'go',
    ],
    s.url,
    { cwd: tempDir() },
  );
  expect(run.code).toBe(0);
  return run.stdout
    .trim()
    .split('\n')
    .map((line) => JSON.parse(line) as Line);
}

const kindOf = (line: Line) => (line.type === 'system' ? `system/${String(line.subtype)}` : String(line.type));

describe('the output schema', () => {
  it('every stream-json line type validates, and carries schema_version 1', async () => {
    const lines = await everyLineType();
    expect(lines.map(kindOf)).toEqual(['system/init', 'assistant', 'user', 'system/retry', 'assistant', 'result']);
    for (const line of lines) {
      expect(line.schema_version).toBe(1);
      expect(checker.checkLine(line, 'stream-json')).toEqual([]);
    }
    expect(lines.at(-1)).toMatchObject({ structured_output: { ok: true } });
  });

  it('json mode: the result object of a success, a failure and a usage error validate', async () => {
    const s = await serve([answer('done'), { kind: 'http_error', status: 401 }]);
    const ok = await runAgent(['--output-format', 'json', 'go'], s.url, { cwd: tempDir() });
    const failed = await runAgent(['--output-format', 'json', 'go'], s.url, { cwd: tempDir() });
    const usage = await runAgent(['--output-format', 'json', '--max-turns', 'none', 'go'], s.url, { cwd: tempDir() });
    expect([ok.code, failed.code, usage.code]).toEqual([0, 3, 2]);
    for (const run of [ok, failed, usage]) {
      const [result] = checker.checkOutput(run.stdout, 'json') as Line[];
      expect(result!.schema_version).toBe(1);
    }
    // A run that never started has no session to resume, so no session id.
    expect(JSON.parse(usage.stdout)).not.toHaveProperty('session_id');
    expect(JSON.parse(failed.stdout)).toHaveProperty('session_id');
    // Also when the flags were fine and the run failed at its prompt, after its session was set up.
    const noPrompt = await runAgent(
      ['--output-format', 'stream-json', '--prompt-file', '/nonexistent/prompt.md'],
      s.url,
      { cwd: tempDir() },
    );
    expect(noPrompt.code).toBe(2);
    const result = JSON.parse(noPrompt.stdout.trim().split('\n').at(-1)!);
    expect(result).toMatchObject({ type: 'result', subtype: 'error_usage' });
    expect(result).not.toHaveProperty('session_id');
  });

  it('a removed field fails, and so does a renamed one', async () => {
    const lines = await everyLineType();
    for (const line of lines) {
      const required = requiredOf(line);
      expect(required.length).toBeGreaterThan(2);
      for (const field of required) {
        const { [field]: value, ...removed } = line;
        expect(checker.checkLine(removed, 'stream-json'), `${kindOf(line)} without ${field}`).not.toEqual([]);
        const renamed = { ...removed, [`${field}_renamed`]: value };
        expect(checker.checkLine(renamed, 'stream-json'), `${kindOf(line)} with ${field} renamed`).not.toEqual([]);
      }
    }
  });

  it('a field of the wrong type or value fails', async () => {
    const result = (await everyLineType()).at(-1)!;
    expect(checker.checkLine({ ...result, num_turns: '2' }, 'json')).not.toEqual([]);
    expect(checker.checkLine({ ...result, schema_version: 2 }, 'json')).not.toEqual([]);
    expect(checker.checkLine({ ...result, subtype: 'error_something_new' }, 'json')).not.toEqual([]);
    expect(checker.checkLine({ ...result, is_error: true }, 'json')).not.toEqual([]);
    expect(checker.checkLine({ ...result, usage: { input_tokens: 1 } }, 'json')).not.toEqual([]);
  });

  it('a field the schema does not list fails the tests, though a consumer of the published schema accepts it', async () => {
    const result = (await everyLineType()).at(-1)!;
    const added = { ...result, brand_new_field: 1 };
    expect(checker.checkLine(added, 'json')).toEqual([
      expect.stringMatching(/fields not listed: \(top level\) must NOT have additional properties \(brand_new_field\)/),
    ]);
    // What the binary prints today fails against a schema file from which one listed field was dropped.
    const schemas = loadSchemas();
    const resultSchema = structuredClone(schemas.get('result.schema.json')!) as { properties: Record<string, unknown> };
    delete resultSchema.properties.commands;
    schemas.set('result.schema.json', resultSchema);
    expect(createOutputChecker(schemas).checkLine(result, 'json')).not.toEqual([]);
  });

  it("session_id is a string of the init line and of every result but a usage error's", async () => {
    const lines = await everyLineType();
    const init = lines[0]!;
    const result = lines.at(-1)!;
    const id = '0b5c3f5e-93a4-4a0e-9a61-1f0f7d9b3c11';
    expect(checker.checkLine({ ...init, session_id: id }, 'stream-json')).toEqual([]);
    expect(checker.checkLine({ ...result, session_id: id }, 'stream-json')).toEqual([]);
    expect(checker.checkLine({ ...result, session_id: 7 }, 'stream-json')).not.toEqual([]);
    const { session_id: _, ...withoutId } = result;
    expect(checker.checkLine(withoutId, 'stream-json')).not.toEqual([]);
    const usage = {
      ...withoutId,
      subtype: 'error_usage',
      is_error: true,
      exit_code: 2,
      error: 'bad flag',
      structured_output: undefined,
    };
    delete usage.structured_output;
    expect(checker.checkLine(usage, 'stream-json')).toEqual([]);
    expect(checker.checkLine({ ...usage, session_id: id }, 'stream-json')).not.toEqual([]);
  });
});

/** The fields the line's own schema requires. */
function requiredOf(line: Line): string[] {
  const file = {
    'system/init': 'stream-init',
    'system/retry': 'stream-retry',
    assistant: 'stream-assistant',
    user: 'stream-user',
    result: 'result',
  }[kindOf(line)];
  const schema = loadSchemas().get(`${file}.schema.json`) as { required: string[] };
  return schema.required;
}
