import { Ajv, MissingRefError, type ErrorObject, type Options } from 'ajv';
import { Ajv2020 } from 'ajv/dist/2020.js';
import formatsModule from 'ajv-formats';
import { UsageError } from '../outcome.js';
import type { SchemaSource } from './schema-source.js';

/** The problems of a value against the schema, one line each, empty when it is valid; `at` prefixes the paths named. */
type CheckAnswer = (value: unknown, at?: string) => string[];

const MAX_PROBLEMS = 12;
const DIALECTS = {
  '2020-12': {
    match: /^https?:\/\/json-schema\.org\/draft\/2020-12\/schema#?$/,
    create: (options: Options) => new Ajv2020(options),
  },
  'draft-07': {
    match: /^https?:\/\/json-schema\.org\/draft-07\/schema#?$/,
    create: (options: Options) => new Ajv(options),
  },
} as const;

/**
 * Compiles the schema with ajv, in the dialect its `$schema` names (draft 2020-12 when it names none). Anything that
 * makes it unusable is a UsageError with the validator's message; unknown keywords (typos, vendor extensions) are
 * only warned about, since JSON Schema ignores them.
 */
export function compileSchema({ schema, label }: SchemaSource, warn: (message: string) => void): CheckAnswer {
  const dialect = dialectOf(schema, label);
  const ajv = DIALECTS[dialect].create({
    allErrors: true,
    strictSchema: 'log',
    strictTypes: false,
    strictTuples: false,
    strictRequired: false,
    logger: {
      log: () => {},
      warn: (message: unknown) => warn(`--json-schema: ${String(message)}`),
      error: (message: unknown) => warn(`--json-schema: ${String(message)}`),
    },
  });
  formatsModule.default(ajv);
  let validate: ReturnType<typeof ajv.compile>;
  try {
    validate = ajv.compile(withoutDialect(schema));
  } catch (error) {
    throw compileError(error, label, dialect);
  }
  return (value, at = '') => (validate(value) ? [] : describeErrors(validate.errors ?? [], at));
}

function dialectOf(schema: SchemaSource['schema'], label: string): keyof typeof DIALECTS {
  const named = typeof schema === 'object' ? schema.$schema : undefined;
  if (named === undefined) return '2020-12';
  for (const [name, dialect] of Object.entries(DIALECTS)) {
    if (typeof named === 'string' && dialect.match.test(named)) return name as keyof typeof DIALECTS;
  }
  throw new UsageError(
    `--json-schema: ${label} names $schema ${JSON.stringify(named)}; use draft 2020-12 or draft-07.`,
  );
}

/** The dialect is chosen by class; ajv would look the `$schema` URL up among its meta-schemas, by exact spelling. */
function withoutDialect(schema: SchemaSource['schema']): SchemaSource['schema'] {
  if (typeof schema !== 'object' || !('$schema' in schema)) return schema;
  const { $schema: _dialect, ...rest } = schema;
  return rest;
}

function compileError(error: unknown, label: string, dialect: string): UsageError {
  if (error instanceof MissingRefError) {
    const ref = error.missingRef;
    if (!ref.startsWith('#')) {
      return new UsageError(
        `--json-schema: ${label} refers to ${JSON.stringify(ref)}, outside the schema; references are never fetched (no network access): put the definition under $defs.`,
      );
    }
    return new UsageError(`--json-schema: ${label} has a $ref to ${JSON.stringify(ref)}, which is not in the schema.`);
  }
  return new UsageError(
    `--json-schema: ${label} is not a valid JSON Schema (${dialect}): ${(error as Error).message}.`,
  );
}

function describeErrors(errors: ErrorObject[], at: string): string[] {
  const lines = [...new Set(errors.map((error) => describeError(error, at)))];
  return lines.length > MAX_PROBLEMS
    ? [...lines.slice(0, MAX_PROBLEMS), `… and ${lines.length - MAX_PROBLEMS} more`]
    : lines;
}

function describeError(error: ErrorObject, at: string): string {
  const where = `${at}${error.instancePath}` || 'the answer';
  const params = error.params as Record<string, unknown>;
  let detail = '';
  if (error.keyword === 'enum')
    detail = `: ${(params.allowedValues as unknown[]).map((value) => JSON.stringify(value)).join(', ')}`;
  else if (error.keyword === 'const') detail = `: ${JSON.stringify(params.allowedValue)}`;
  else if (error.keyword === 'additionalProperties') detail = `: ${JSON.stringify(params.additionalProperty)}`;
  return `${where} ${error.message ?? 'is not valid'}${detail}`;
}
