// Structured outputs on the wire: `output_config.format` and strict tools, as the real API takes them (checked against
// the schema subset it accepts), or as a third-party endpoint would: refused as unknown fields, or silently ignored.

type JsonObject = Record<string, unknown>;
type Check = string | undefined;

/** How the server treats output_config and tool `strict`. */
export type StructuredOutputs = 'supported' | 'rejected' | 'ignored';

const TYPES = new Set(['object', 'array', 'string', 'integer', 'number', 'boolean', 'null']);
const FORMATS = new Set(['date-time', 'time', 'date', 'duration', 'email', 'hostname', 'uri', 'ipv4', 'ipv6', 'uuid']);
const KEYWORDS = new Set([
  'type',
  'properties',
  'required',
  'additionalProperties',
  'items',
  'minItems',
  'enum',
  'const',
  'anyOf',
  'allOf',
  '$ref',
  '$defs',
  'description',
  'title',
  'format',
]);
const OUTPUT_CONFIG_KEYS = new Set(['effort', 'format']);

function isRecord(value: unknown): value is JsonObject {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

const extra = (field: string) => `${field}: Extra inputs are not permitted`;

export function checkStructuredOutputs(body: JsonObject, mode: StructuredOutputs): Check {
  if (mode === 'ignored') return undefined;
  const tools = Array.isArray(body['tools']) ? body['tools'] : [];
  if (mode === 'rejected') {
    if ('output_config' in body) return extra('output_config');
    const strict = tools.findIndex((tool) => isRecord(tool) && 'strict' in tool);
    return strict === -1 ? undefined : extra(`tools.${strict}.strict`);
  }
  for (const [index, tool] of tools.entries()) {
    if (!isRecord(tool) || tool['strict'] === undefined) continue;
    if (typeof tool['strict'] !== 'boolean') return `tools.${index}.strict: Input should be a valid boolean`;
    if (tool['strict']) {
      const failure = checkSchema(tool['input_schema'], `tools.${index}.input_schema`, tool['input_schema']);
      if (failure) return failure;
    }
  }
  return body['output_config'] === undefined ? undefined : checkOutputConfig(body['output_config']);
}

function checkOutputConfig(config: unknown): Check {
  if (!isRecord(config)) return 'output_config: Input should be a valid dictionary';
  const unknown = Object.keys(config).find((key) => !OUTPUT_CONFIG_KEYS.has(key));
  if (unknown !== undefined) return extra(`output_config.${unknown}`);
  const format = config['format'];
  if (format === undefined || format === null) return undefined;
  if (!isRecord(format)) return 'output_config.format: Input should be a valid dictionary';
  if (format['type'] !== 'json_schema') return "output_config.format.type: Input should be 'json_schema'";
  const unknownInFormat = Object.keys(format).find((key) => key !== 'type' && key !== 'schema');
  if (unknownInFormat !== undefined) return extra(`output_config.format.${unknownInFormat}`);
  const schema = format['schema'];
  if (!isRecord(schema)) return 'output_config.format.schema: Field required';
  if (schema['type'] !== 'object') return "output_config.format.schema: the top level must be of type 'object'";
  return checkSchema(schema, 'output_config.format.schema', schema);
}

/** The subset of JSON Schema that constrained sampling compiles; anything else is a 400, as on the real API. */
function checkSchema(node: unknown, path: string, root: unknown): Check {
  if (!isRecord(node)) return `${path}: Input should be a valid dictionary`;
  const unsupported = Object.keys(node).find((key) => !KEYWORDS.has(key));
  if (unsupported !== undefined) return `${path}: '${unsupported}' is not supported in structured outputs schemas`;
  const types = node['type'] === undefined ? [] : Array.isArray(node['type']) ? node['type'] : [node['type']];
  const badType = types.find((type) => typeof type !== 'string' || !TYPES.has(type));
  if (badType !== undefined) return `${path}.type: unsupported type ${JSON.stringify(badType)}`;
  if (types.includes('object') && node['additionalProperties'] !== false) {
    return `${path}: For 'object' type, 'additionalProperties' must be explicitly set to false`;
  }
  if (node['minItems'] !== undefined && node['minItems'] !== 0 && node['minItems'] !== 1) {
    return `${path}.minItems: only 0 and 1 are supported`;
  }
  if (node['format'] !== undefined && !FORMATS.has(String(node['format'])))
    return `${path}.format: '${String(node['format'])}' is not supported`;
  if (node['enum'] !== undefined && (!Array.isArray(node['enum']) || node['enum'].length === 0))
    return `${path}.enum: must be a non-empty list`;
  if (node['$ref'] !== undefined) {
    const ref = String(node['$ref']);
    const name = /^#\/\$defs\/([^/]+)$/.exec(ref)?.[1];
    const defs = isRecord(root) && isRecord(root['$defs']) ? root['$defs'] : {};
    if (name === undefined || !(name in defs))
      return `${path}.$ref: cannot resolve '${ref}' (only '#/$defs/…' references are supported)`;
  }
  return checkChildren(node, path, root);
}

function checkChildren(node: JsonObject, path: string, root: unknown): Check {
  for (const key of ['properties', '$defs'] as const) {
    const map = node[key];
    if (map === undefined) continue;
    if (!isRecord(map)) return `${path}.${key}: Input should be a valid dictionary`;
    for (const [name, child] of Object.entries(map)) {
      const failure = checkSchema(child, `${path}.${key}.${name}`, root);
      if (failure) return failure;
    }
  }
  for (const key of ['anyOf', 'allOf'] as const) {
    const list = node[key];
    if (list === undefined) continue;
    if (!Array.isArray(list) || list.length === 0) return `${path}.${key}: must be a non-empty list`;
    for (const [index, child] of list.entries()) {
      const failure = checkSchema(child, `${path}.${key}.${index}`, root);
      if (failure) return failure;
    }
  }
  return node['items'] === undefined ? undefined : checkSchema(node['items'], `${path}.items`, root);
}
