import type { RunEvent } from '../../events.js';
import type { ResultObject } from '../../result.js';

export type WriteOut = (line: string) => void;

/** stream-json: one JSON object per line on stdout: an init line, each message as it completes, the result last. */
export function createStreamJsonRenderer(write: WriteOut, init: Record<string, unknown>): (event: RunEvent) => void {
  write(`${JSON.stringify({ type: 'system', subtype: 'init', ...init })}\n`);
  return (event) => {
    if (event.type === 'response') write(`${JSON.stringify({ type: 'assistant', message: event.message })}\n`);
    else if (event.type === 'tool_results') write(`${JSON.stringify({ type: 'user', message: event.message })}\n`);
    else if (event.type === 'retry') write(`${JSON.stringify({ type: 'system', subtype: 'retry', attempt: event.attempt, max_attempts: event.maxAttempts, delay_ms: event.delayMs, reason: event.reason })}\n`);
  };
}

export function resultLine(result: ResultObject): string {
  return `${JSON.stringify(result)}\n`;
}
