import { transformJSONSchema } from '@anthropic-ai/sdk/lib/transform-json-schema';
import type { JsonSchema } from './schema-source.js';

type SchemaObject = Record<string, unknown>;

/** The key a non-object answer is wrapped under: the API takes only objects as the answer's top level. */
export const WRAP_KEY = 'value';

interface ApiSchema {
  /** Whether the answer travels as `{"value": …}`. */
  wrapped: boolean;
  /** The schema the model is shown: the user's, wrapped when its top level is not an object. */
  shown: JsonSchema;
  /** The same, in the subset the API's constrained output accepts; undefined when it cannot be expressed there. */
  constraint: SchemaObject | undefined;
  /** Why there is no constraint. */
  unconstrainedBecause?: string;
}

export function apiSchemaFor(schema: JsonSchema): ApiSchema {
  const wrapped = !(isObject(schema) && schema.type === 'object');
  const shown = wrapped ? wrap(schema) : schema;
  const normalised = isObject(shown) ? withDefsUnderOneName(shown) : shown;
  const problem = unconstrainable(normalised);
  if (problem !== undefined) return { wrapped, shown, constraint: undefined, unconstrainedBecause: problem };
  try {
    return { wrapped, shown, constraint: transformJSONSchema(normalised as SchemaObject) };
  } catch (error) {
    return { wrapped, shown, constraint: undefined, unconstrainedBecause: (error as Error).message };
  }
}

/** `{"type":"object","properties":{"value": schema},…}`, with the definitions moved to the new root and refs re-pointed. */
function wrap(schema: JsonSchema): SchemaObject {
  const { $defs, definitions, $schema: _dialect, ...inner } = isObject(schema) ? schema : {};
  const value = isObject(schema) ? rebaseRefs(inner) : schema;
  return {
    type: 'object',
    properties: { [WRAP_KEY]: value },
    required: [WRAP_KEY],
    additionalProperties: false,
    ...($defs === undefined ? {} : { $defs }),
    ...(definitions === undefined ? {} : { definitions }),
  };
}

/** Refs into the schema itself (`#`, `#/properties/…`) now start one level down; refs to definitions stay. */
function rebaseRefs(node: unknown): unknown {
  return mapRefs(node, (ref) =>
    ref.startsWith('#') && !/^#\/(\$defs|definitions)\//.test(ref) ? `#/properties/${WRAP_KEY}${ref.slice(1)}` : ref,
  );
}

/** Draft-07 keeps definitions under `definitions`; the API knows only `$defs`. */
function withDefsUnderOneName(schema: SchemaObject): SchemaObject {
  const { definitions, ...rest } = schema;
  if (!isObject(definitions)) return schema;
  const moved = mapRefs(rest, (ref) => ref.replace(/^#\/definitions\//, '#/$defs/')) as SchemaObject;
  const defs = mapRefs(definitions, (ref) => ref.replace(/^#\/definitions\//, '#/$defs/')) as SchemaObject;
  return { ...moved, $defs: { ...defs, ...(isObject(rest.$defs) ? rest.$defs : {}) } };
}

/**
 * The API's output constraint allows no extra object properties, so an object schema that means a map (its content in
 * additionalProperties, or no declared properties at all) would constrain every answer to `{}`. Such a schema, tuples,
 * and refs other than to `$defs`, are left unconstrained; the answer is still checked locally.
 */
function unconstrainable(node: unknown): string | undefined {
  if (!isObject(node)) return undefined;
  const types = Array.isArray(node.type) ? node.type : [node.type];
  if (Array.isArray(node.type) && types.some((type) => type === 'object' || type === 'array'))
    return 'a type list with object or array';
  const extra = node.additionalProperties;
  if (types.includes('object') || node.properties !== undefined) {
    if (extra !== undefined && extra !== false) return 'an object with additionalProperties';
    if (node.properties === undefined && extra !== false) return 'an object without properties';
  }
  if (node.patternProperties !== undefined) return 'patternProperties';
  if (Array.isArray(node.items) || node.prefixItems !== undefined) return 'a tuple';
  if (typeof node.$ref === 'string' && !node.$ref.startsWith('#/$defs/')) return `the $ref ${node.$ref}`;
  return firstOf(subschemas(node).map(unconstrainable));
}

const SCHEMA_MAPS = ['properties', '$defs', 'definitions', 'dependentSchemas', 'patternProperties'];
const SCHEMA_LISTS = ['anyOf', 'allOf', 'oneOf', 'prefixItems'];
const SCHEMA_ONES = [
  'items',
  'additionalProperties',
  'not',
  'if',
  'then',
  'else',
  'contains',
  'propertyNames',
  'additionalItems',
  'unevaluatedItems',
  'unevaluatedProperties',
];
/** Keywords whose values are data, not schemas: a `$ref` key inside them is not a reference. */
const DATA_KEYWORDS = new Set(['enum', 'const', 'default', 'examples']);

function subschemas(node: SchemaObject): unknown[] {
  const found: unknown[] = [];
  for (const key of SCHEMA_MAPS) if (isObject(node[key])) found.push(...Object.values(node[key]));
  for (const key of SCHEMA_LISTS) if (Array.isArray(node[key])) found.push(...node[key]);
  for (const key of SCHEMA_ONES)
    if (node[key] !== undefined) found.push(...(Array.isArray(node[key]) ? node[key] : [node[key]]));
  return found;
}

function mapRefs(node: unknown, change: (ref: string) => string): unknown {
  if (Array.isArray(node)) return node.map((child) => mapRefs(child, change));
  if (!isObject(node)) return node;
  return Object.fromEntries(
    Object.entries(node).map(([key, child]) => {
      if (key === '$ref' && typeof child === 'string') return [key, change(child)];
      return [key, DATA_KEYWORDS.has(key) ? child : mapRefs(child, change)];
    }),
  );
}

function firstOf(problems: Array<string | undefined>): string | undefined {
  return problems.find((problem) => problem !== undefined);
}

function isObject(value: unknown): value is SchemaObject {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}
