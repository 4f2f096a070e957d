import { readFileSync, statSync } from 'node:fs';
import { resolve } from 'node:path';
import { UsageError } from '../outcome.js';
import { parseJson } from './json-text.js';

/**
 * The schema goes into every request (the system prompt, and the API's output format), so one this large would already
 * take tens of thousands of tokens a call; a larger file is a mistake (the wrong path, a data file).
 */
const MAX_SCHEMA_BYTES = 256 * 1024;

export type JsonSchema = Record<string, unknown> | boolean;

export interface SchemaSource {
  schema: JsonSchema;
  /** Where it came from, for messages: "the inline schema" or the file's path. */
  label: string;
}

/** --json-schema's value: inline JSON text when it starts with `{`, otherwise a path (relative to the current directory). */
export function readSchemaSource(value: string): SchemaSource {
  const inline = value.trimStart().startsWith('{');
  const label = inline ? 'the inline schema' : resolve(value);
  const text = inline ? value : readSchemaFile(label, value);
  const bytes = Buffer.byteLength(text);
  if (bytes > MAX_SCHEMA_BYTES) throw tooLarge(label, bytes);
  const parsed = parseJson(text);
  if (!parsed.ok) throw new UsageError(`--json-schema: ${label} is not JSON: ${parsed.problem}.`);
  const schema = parsed.value;
  if (typeof schema === 'boolean' || (typeof schema === 'object' && schema !== null && !Array.isArray(schema))) {
    return { schema: schema as JsonSchema, label };
  }
  throw new UsageError(
    `--json-schema: ${label} is not a JSON Schema: a schema is a JSON object; got ${Array.isArray(schema) ? 'an array' : typeof schema}.`,
  );
}

function readSchemaFile(path: string, given: string): string {
  try {
    const size = statSync(path).size;
    if (size > MAX_SCHEMA_BYTES) throw tooLarge(path, size);
    return readFileSync(path, 'utf8');
  } catch (error) {
    if (error instanceof UsageError) throw error;
    const reason = (error as NodeJS.ErrnoException).code === 'ENOENT' ? 'no such file' : (error as Error).message;
    const hint = /[\s:"]/.test(given) ? ' (an inline schema starts with {)' : '';
    throw new UsageError(`--json-schema: cannot read ${path}: ${reason}${hint}.`);
  }
}

function tooLarge(label: string, bytes: number): UsageError {
  const size = (n: number) => (n >= 1024 * 1024 ? `${(n / (1024 * 1024)).toFixed(1)} MB` : `${Math.ceil(n / 1024)} KB`);
  return new UsageError(
    `--json-schema: ${label} is ${size(bytes)}; at most ${size(MAX_SCHEMA_BYTES)} is accepted, since the schema goes into every request.`,
  );
}
