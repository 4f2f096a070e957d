// Checks what the binary prints in json and stream-json modes against the published JSON Schema files in schema/.
// Each line is checked twice: against the published schemas as a consumer would (unknown fields allowed), and against
// a strict copy in which the top level may hold only the fields the schema lists, so that the schema files always
// document every field printed.

import { readdirSync, readFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { Ajv2020, type ErrorObject, type ValidateFunction } from 'ajv/dist/2020.js';
import formatsModule from 'ajv-formats';

export const SCHEMA_DIR = resolve(import.meta.dirname, '../../schema');

type Schema = Record<string, unknown>;

/** The file that describes a line, by its `type` and `subtype`. */
const LINE_SCHEMAS: Record<string, string> = {
  'system/init': 'stream-init.schema.json',
  'system/retry': 'stream-retry.schema.json',
  assistant: 'stream-assistant.schema.json',
  user: 'stream-user.schema.json',
  result: 'result.schema.json',
};

export function loadSchemas(): Map<string, Schema> {
  const files = readdirSync(SCHEMA_DIR).filter((name) => name.endsWith('.schema.json'));
  return new Map(files.map((name) => [name, JSON.parse(readFileSync(join(SCHEMA_DIR, name), 'utf8')) as Schema]));
}

function newAjv(): Ajv2020 {
  // Strict, to keep the schema files free of mistakes; `required` in a conditional branch names fields listed elsewhere.
  const ajv = new Ajv2020({ allErrors: true, strict: true, strictRequired: false });
  formatsModule.default(ajv);
  return ajv;
}

/** Validators built from the given schema files (the published ones by default, or altered copies in tests). */
export function createOutputChecker(schemas: Map<string, Schema> = loadSchemas()) {
  const published = newAjv();
  for (const schema of schemas.values()) published.addSchema(schema);
  const anyLine = published.getSchema('stream-json.schema.json');
  if (!anyLine) throw new Error('schema/stream-json.schema.json is missing');
  const strictAjv = newAjv();
  const strict = new Map<string, ValidateFunction>();
  for (const [name, schema] of schemas) {
    if (name === 'stream-json.schema.json') continue;
    const { $id: _id, ...rest } = schema;
    strict.set(name, strictAjv.compile({ ...rest, additionalProperties: false }));
  }

  /** The problems of one printed line, empty when it is valid. */
  const checkLine = (line: unknown, mode: 'json' | 'stream-json'): string[] => {
    const record = line as { type?: unknown; subtype?: unknown };
    const key = record.type === 'system' ? `system/${String(record.subtype)}` : String(record.type);
    const file = mode === 'json' ? 'result.schema.json' : LINE_SCHEMAS[key];
    if (file === undefined) return [`no schema describes a line of type ${key}`];
    const strictCheck = strict.get(file)!;
    const problems: string[] = [];
    if (!published.validate(file, line)) problems.push(...describe(file, published.errors));
    if (mode === 'stream-json' && !anyLine(line)) problems.push(`not valid against stream-json.schema.json`);
    if (!strictCheck(line)) problems.push(...describe(`${file}, fields not listed`, strictCheck.errors));
    return [...new Set(problems)];
  };

  /** Parses stdout as the mode prints it and checks every line; throws with every problem found. */
  const checkOutput = (stdout: string, mode: 'json' | 'stream-json'): unknown[] => {
    const lines = stdout.split('\n').filter((text, index, all) => text !== '' || index < all.length - 1);
    if (mode === 'json' && lines.length > 1) throw new Error(`json mode printed ${lines.length} lines:\n${stdout}`);
    const problems: string[] = [];
    const parsed = lines.map((text, index) => {
      let value: unknown;
      try {
        value = JSON.parse(text);
      } catch (error) {
        problems.push(`line ${index + 1} is not JSON (${(error as Error).message}): ${text.slice(0, 200)}`);
        return undefined;
      }
      for (const problem of checkLine(value, mode)) problems.push(`line ${index + 1}: ${problem}`);
      return value;
    });
    if (problems.length > 0)
      throw new Error(`output does not match schema/:\n${problems.join('\n')}\n--- stdout ---\n${stdout}`);
    return parsed;
  };
  return { checkLine, checkOutput };
}

function describe(file: string, errors: ErrorObject[] | null | undefined): string[] {
  return (errors ?? []).map(
    (error) => `${file}: ${error.instancePath || '(top level)'} ${error.message ?? ''}${paramsText(error)}`,
  );
}

function paramsText(error: ErrorObject): string {
  const params = error.params as Record<string, unknown>;
  if (typeof params.additionalProperty === 'string') return ` (${params.additionalProperty})`;
  if (Array.isArray(params.allowedValues))
    return ` (${params.allowedValues.map((value) => JSON.stringify(value)).join(', ')})`;
  return '';
}

let shared: ReturnType<typeof createOutputChecker> | undefined;

/** Every line the binary printed in json or stream-json mode, parsed, each checked against schema/. */
export function checkedOutput(stdout: string, mode: 'json' | 'stream-json'): unknown[] {
  shared ??= createOutputChecker();
  return shared.checkOutput(stdout, mode);
}

/** The --output-format the arguments ask for, when it prints JSON. */
export function jsonModeOf(args: string[]): 'json' | 'stream-json' | undefined {
  let format: string | undefined;
  for (let i = 0; i < args.length && args[i] !== '--'; i++) {
    const word = args[i]!;
    if (word === '--output-format') format = args[i + 1];
    else if (word.startsWith('--output-format=')) format = word.slice('--output-format='.length);
  }
  return format === 'json' || format === 'stream-json' ? format : undefined;
}
