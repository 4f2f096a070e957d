import type { RequestExtras } from '../api/model.js';
import type { EventSink } from '../events.js';
import type { FinishVerdict } from '../loop.js';
import { apiSchemaFor } from './api-schema.js';
import { extractAnswer } from './answer.js';
import {
  answerFormatSection,
  gaveUpMessage,
  MAX_ANSWER_ATTEMPTS,
  mismatch,
  reminder,
  retryWarning,
  unconstrainedWarning,
} from './messages.js';
import { outputConfigExtras } from './output-config.js';
import { readSchemaSource } from './schema-source.js';
import { compileSchema } from './validator.js';

/** What a run with --json-schema adds: a system prompt section, the request's constraint, and the judge of answers. */
export interface StructuredAnswer {
  systemSection: string;
  extras: RequestExtras | undefined;
  /** The loop's hook at the end of a turn: counts attempts, and keeps the value it accepts. */
  finish(text: string): FinishVerdict;
  /** The accepted answer, once there is one. */
  accepted(): { value: unknown } | undefined;
}

/** Reads and checks the schema (a UsageError for anything wrong with it), before any request. */
export function prepareStructuredAnswer(flag: string, emit: EventSink): StructuredAnswer {
  const warn = (message: string) => emit({ type: 'warning', message });
  const source = readSchemaSource(flag);
  const check = compileSchema(source, warn);
  const api = apiSchemaFor(source.schema);
  if (api.constraint === undefined) warn(unconstrainedWarning(api.unconstrainedBecause ?? 'unknown'));
  let attempts = 0;
  let answer: { value: unknown } | undefined;

  const judge = (text: string): { ok: true; value: unknown } | { ok: false; missing: boolean; problems: string[] } => {
    const extracted = extractAnswer(text, api.wrapped);
    if (!extracted.ok) return { ok: false, missing: extracted.missing, problems: [extracted.problem] };
    const problems = check(extracted.value, extracted.at);
    return problems.length === 0 ? { ok: true, value: extracted.value } : { ok: false, missing: false, problems };
  };

  return {
    systemSection: answerFormatSection(api.shown),
    extras: api.constraint === undefined ? undefined : outputConfigExtras(api.constraint, warn),
    finish(text) {
      attempts++;
      const verdict = judge(text);
      if (verdict.ok) {
        answer = { value: verdict.value };
        emit({ type: 'structured_answer', value: verdict.value });
        return { kind: 'accept' };
      }
      if (attempts >= MAX_ANSWER_ATTEMPTS) return { kind: 'fail', message: gaveUpMessage(verdict.problems) };
      warn(retryWarning(attempts, verdict.problems.slice(0, 3)));
      return { kind: 'retry', message: verdict.missing ? reminder() : mismatch(verdict.problems) };
    },
    accepted: () => answer,
  };
}
