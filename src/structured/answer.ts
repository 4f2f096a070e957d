import { WRAP_KEY } from './api-schema.js';
import { parseJson } from './json-text.js';

type Extracted =
  | { ok: true; value: unknown /** Where the value sat in the reply, for messages: '' or '/value'. */; at: string }
  /** `missing`: the reply holds no attempt at a JSON value at all (prose, or nothing). */
  | { ok: false; missing: boolean; problem: string };

/** One fenced code block and nothing else around it, as models without constrained output like to answer. */
const WHOLE_FENCE = /^(`{3,}|~{3,})[\w-]*[ \t]*\n([\s\S]*?)\n?\1[ \t]*$/;
const JSON_START = /^[{["\d-]|^(true|false|null)\b/;

/**
 * The JSON value of the model's final reply. The reply must be that value alone; a single code fence around it is
 * taken off, since the value is then unambiguous, but text before or after it is not (it could be part of the answer).
 * A wrapped answer (`{"value": …}`) is unwrapped; the bare value is taken too.
 */
export function extractAnswer(text: string, wrapped: boolean): Extracted {
  const trimmed = text.trim();
  if (trimmed === '') return { ok: false, missing: true, problem: 'the reply has no text' };
  const body = WHOLE_FENCE.exec(trimmed)?.[2]?.trim() ?? trimmed;
  const parsed = parseJson(body);
  if (!parsed.ok) {
    const missing = !JSON_START.test(body) && !/[{[]/.test(body);
    return {
      ok: false,
      missing,
      problem: missing ? 'the reply holds no JSON value' : `the reply is not a JSON value alone: ${parsed.problem}`,
    };
  }
  const value = parsed.value;
  if (wrapped && isWrapper(value)) return { ok: true, value: value[WRAP_KEY], at: `/${WRAP_KEY}` };
  return { ok: true, value, at: '' };
}

function isWrapper(value: unknown): value is Record<string, unknown> {
  return (
    typeof value === 'object' &&
    value !== null &&
    !Array.isArray(value) &&
    Object.keys(value).length === 1 &&
    WRAP_KEY in value
  );
}
