import type { JsonSchema } from './schema-source.js';

/** How many final answers the model may give before the run ends with error_structured_output. */
export const MAX_ANSWER_ATTEMPTS = 3;

/**
 * Appended to the system prompt. Endpoints without constrained output (or that ignore it) learn the format only here,
 * so the schema is always spelled out.
 */
export function answerFormatSection(shown: JsonSchema): string {
  return (
    'Final answer format: when the task is done, your final reply must be a single JSON value that matches the JSON ' +
    'Schema below, and nothing else: no prose before or after it, no code fence. Until then, work as usual; the run ' +
    'ends only once such an answer is given.\n\n' +
    `JSON Schema of the final answer:\n${JSON.stringify(shown)}`
  );
}

/** Back to the model when its turn ended without any JSON value. */
export function reminder(): string {
  return (
    'Your turn ended without the final answer. Reply now with only the JSON value that matches the JSON Schema of the ' +
    'final answer in the system prompt: no prose, no code fence.'
  );
}

/** Back to the model when its answer is not JSON, or does not validate. */
export function mismatch(problems: string[]): string {
  return (
    `Your final answer does not match the required format:\n${problems.map((problem) => `- ${problem}`).join('\n')}\n\n` +
    'Reply with only the corrected JSON value: no prose, no code fence.'
  );
}

/** For people (stderr, transcript): an answer is sent back. */
export function retryWarning(attempt: number, problems: string[]): string {
  return `the answer does not match --json-schema (attempt ${attempt} of ${MAX_ANSWER_ATTEMPTS}): ${problems.join('; ')}; asking the model again`;
}

/** The run's error when no attempt gave a valid answer. */
export function gaveUpMessage(problems: string[]): string {
  return `No answer matching --json-schema after ${MAX_ANSWER_ATTEMPTS} attempts; the last one: ${problems.join('; ')}.`;
}

export function unconstrainedWarning(reason: string): string {
  return `--json-schema: the schema cannot be sent as the API's output constraint (${reason}); answers are checked locally only`;
}

export function fallbackWarning(apiMessage: string): string {
  return `the endpoint refused the constrained-output field (${apiMessage}); going on without it, answers are still checked against --json-schema`;
}
