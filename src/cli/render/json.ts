import type { RunEvent } from '../../events.js';
import type { ResultObject } from '../../result.js';
import type { Redactor } from '../../sinks/redactor.js';

type WriteOut = (line: string) => void;

/**
 * The version of the shapes printed in json and stream-json modes, published as JSON Schema files in schema/. Within
 * a version fields are only ever added; a field removed, renamed or changed in meaning makes a new version.
 */
const OUTPUT_SCHEMA_VERSION = 1;

/** One JSON line, `type` first and `schema_version` next, masked and with no raw control character. */
function line(type: string, fields: object, redactor: Redactor): string {
  return `${redactor.json({ type, schema_version: OUTPUT_SCHEMA_VERSION, ...fields })}\n`;
}

/** stream-json: one JSON object per line on stdout: an init line, each message as it completes, the result last. */
export function createStreamJsonRenderer(
  write: WriteOut,
  init: Record<string, unknown>,
  redactor: Redactor,
): (event: RunEvent) => void {
  write(line('system', { subtype: 'init', ...init }, redactor));
  return (event) => {
    if (event.type === 'response') write(line('assistant', { message: event.message }, redactor));
    else if (event.type === 'tool_results') write(line('user', { message: event.message }, redactor));
    else if (event.type === 'retry') {
      const { attempt, maxAttempts, delayMs, reason } = event;
      const fields = { subtype: 'retry', attempt, max_attempts: maxAttempts, delay_ms: delayMs, reason };
      write(line('system', fields, redactor));
    }
  };
}

export function resultLine(result: ResultObject, redactor: Redactor): string {
  return line(result.type, result, redactor);
}

/** The answer in text mode: the final text, or with --json-schema the JSON value on one line. */
export function textAnswer(result: ResultObject, redactor: Redactor): string {
  return 'structured_output' in result ? redactor.json(result.structured_output) : redactor.plain(result.result);
}
