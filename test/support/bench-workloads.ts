// Command workloads shared by the end-to-end budget tests and `npm run bench`, so both
// exercise the same conversations.

import type { TestServer, Turn, Usage } from './server.js';

/** Lines of a numbered-lines output; each line is 20 characters with its newline. */
const LINES_PER_OUTPUT = 1_400;
const FIRST_NUMBER = 100_001;

function label(turn: number): string {
  return String(turn).padStart(2, '0');
}

/**
 * A command printing 1,400 lines of 20 characters (28,000 characters, under the executor's
 * 30,000 cap), different for each turn so that no two results are alike.
 */
export function numberedLinesCommand(turn: number): string {
  return `seq ${FIRST_NUMBER} ${FIRST_NUMBER + LINES_PER_OUTPUT - 1} | sed 's/^/turn ${label(turn)} line /'`;
}

/** What the model sees for numberedLinesCommand(turn): the output without its final newline. */
export function numberedLinesResult(turn: number): string {
  return Array.from({ length: LINES_PER_OUTPUT }, (_, i) => `turn ${label(turn)} line ${FIRST_NUMBER + i}`).join('\n');
}

/** Usage as the server reported it for each request, in order; see `withUsageSnapshots`. */
export type PerRequestUsage = Usage[];

/**
 * Wraps a script so that the server's running usage totals are recorded as each request
 * arrives (before that request is accounted). `perRequest()` then gives each request's own usage.
 */
export function withUsageSnapshots(
  script: Turn[],
  server: () => TestServer,
): { script: Turn[]; perRequest: () => PerRequestUsage } {
  const snapshots: Usage[] = [];
  const wrapped: Turn[] = script.map((turn) => (request) => {
    snapshots.push(server().totals());
    return typeof turn === 'function' ? turn(request) : turn;
  });
  const perRequest = (): PerRequestUsage => {
    const marks = [...snapshots, server().totals()];
    return snapshots.map((before, i) => difference(marks[i + 1]!, before));
  };
  return { script: wrapped, perRequest };
}

function difference(after: Usage, before: Usage): Usage {
  return {
    input_tokens: after.input_tokens - before.input_tokens,
    output_tokens: after.output_tokens - before.output_tokens,
    cache_creation_input_tokens: after.cache_creation_input_tokens - before.cache_creation_input_tokens,
    cache_read_input_tokens: after.cache_read_input_tokens - before.cache_read_input_tokens,
  };
}

/** The whole prompt of a request: input_tokens counts only the uncached part. */
export function promptOf(usage: Usage): number {
  return usage.input_tokens + usage.cache_creation_input_tokens + usage.cache_read_input_tokens;
}
