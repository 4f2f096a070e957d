import type { RunEvent } from '../../events.js';
import type { ResultObject } from '../../result.js';

export type WriteOut = (line: string) => void;

/**
 * The version of the shapes printed in json and stream-json modes, published as JSON Schema files in schema/. Within
 * a version fields are only ever added; a field removed, renamed or changed in meaning makes a new version.
 */
export const OUTPUT_SCHEMA_VERSION = 1;

/** One JSON line, `type` first and `schema_version` next. */
function line(type: string, fields: object): string {
  return `${JSON.stringify({ type, schema_version: OUTPUT_SCHEMA_VERSION, ...fields })}\n`;
}

/** stream-json: one JSON object per line on stdout: an init line, each message as it completes, the result last. */
export function createStreamJsonRenderer(write: WriteOut, init: Record<string, unknown>): (event: RunEvent) => void {
  write(line('system', { subtype: 'init', ...init }));
  return (event) => {
    if (event.type === 'response') write(line('assistant', { message: event.message }));
    else if (event.type === 'tool_results') write(line('user', { message: event.message }));
    else if (event.type === 'retry') write(line('system', { subtype: 'retry', attempt: event.attempt, max_attempts: event.maxAttempts, delay_ms: event.delayMs, reason: event.reason }));
  };
}

export function resultLine(result: ResultObject): string {
  return line(result.type, result);
}

/** The answer in text mode: the final text, or with --json-schema the JSON value on one line. */
export function textAnswer(result: ResultObject): string {
  return 'structured_output' in result ? JSON.stringify(result.structured_output) : result.result;
}
