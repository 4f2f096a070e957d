// The one filter between the run and everything it writes: the model's tool results, stderr, stdout, the session file
// and the transcript. Whatever produced a text (a command, the executor's own notes, the model, an API error), it is
// passed through here on its way out, so no producer has to remember to mask.
//
// - Text for people and for the model (`plain`): control characters and escape sequences are dropped first, then the
//   secrets are masked, in that order, so that a value split by an escape sequence is masked once joined.
// - Text a person checks (`visible`): controls are shown escaped instead, secrets masked. Where a secret shows up
//   only once the controls are dropped, the text is not shown at all: neither the secret's halves nor a text that hides
//   what it does.
// - JSON (`json`): every string is masked; a string that holds control characters is also looked at as a reader that
//   drops them would see it, and if a value shows up that way, the string is written cleaned and masked. JSON escapes
//   C0 controls by itself; C1 controls (which JSON.stringify leaves raw) are escaped too.
import { cleanString, OutputCleaner } from '../shell/clean-output.js';
import { SecretMasker, type SecretValue, type TextFilter } from '../shell/secret-mask.js';
import { showControls } from './visible-controls.js';

export interface Redactor {
  /** Text for a terminal, a log, stdout or the model: controls dropped, then secrets masked. */
  plain(text: string): string;
  /** The same for text that arrives in pieces (the model's narration, a command's live output); one per stream. */
  plainStream(): TextFilter;
  /**
   * Text a person must see exactly as it acts (a command about to run): controls shown escaped (`\e]0;…\a`), not
   * dropped, then secrets masked.
   */
  visible(text: string): string;
  /** A value as one JSON text (pretty with `space`), every string in it masked, with no raw control character. */
  json(value: unknown, space?: number): string;
}

/** Any control character but newline and tab: what cleanString drops. */
const CONTROL = /[\x00-\x08\x0b-\x1f\x7f-\x9f]/;
const RAW_C1 = /[\x7f-\x9f]/;
const RAW_C1_GLOBAL = /[\x7f-\x9f]/g;

const SPLIT_SECRET = '[not shown: control characters split a secret in it]';

export function createRedactor(secrets: readonly SecretValue[]): Redactor {
  const patterns = secrets.filter((secret) => secret.value.length > 0);
  if (patterns.length === 0) return controlsOnly;
  const masker = new SecretMasker(patterns);
  // As each value appears inside JSON text, to tell at a glance whether a value needs the slower, exact walk.
  const needles = [...new Set(patterns.map((secret) => JSON.stringify(secret.value).slice(1, -1)))];
  const mask = (text: string) => masker.push(text) + masker.end();
  const maskJsonString = (text: string): string => {
    const masked = mask(text);
    if (!CONTROL.test(masked)) return masked;
    const joined = cleanString(masked);
    const joinedMasked = mask(joined);
    return joinedMasked === joined ? masked : joinedMasked;
  };
  return {
    plain: (text) => mask(cleanString(text)),
    visible(text) {
      const masked = mask(text);
      const joined = cleanString(masked);
      return mask(joined) === joined ? showControls(masked) : SPLIT_SECRET;
    },
    plainStream: () => cleaningStream(new SecretMasker(patterns)),
    json(value, space) {
      const text = JSON.stringify(value, null, space);
      if (text === undefined) return 'null';
      // One look for raw C1 controls serves both questions: could a value hide behind one, and is there one to escape.
      const rawC1 = RAW_C1.test(text);
      const suspect = rawC1 || hasEscapedControl(text) || needles.some((needle) => text.includes(needle));
      if (suspect) return escapeC1(JSON.stringify(mapStrings(JSON.parse(text), maskJsonString), null, space));
      return rawC1 ? escapeC1(text) : text;
    },
  };
}

/** With no secret to mask: controls are still dropped from text, and escaped in JSON. */
const controlsOnly: Redactor = {
  plain: cleanString,
  visible: showControls,
  plainStream: () => cleaningStream(undefined),
  json: (value, space) => escapeC1(JSON.stringify(value, null, space) ?? 'null'),
};

function cleaningStream(masker: SecretMasker | undefined): TextFilter {
  const cleaner = new OutputCleaner();
  return {
    push: (text) => (masker ? masker.push(cleaner.pushText(text)) : cleaner.pushText(text)),
    end: () => (masker ? masker.push(cleaner.end()) + masker.end() : cleaner.end()),
  };
}

/**
 * Whether JSON text holds a control character that cleaning drops, and so could join the two halves of a value, as
 * JSON escapes them: C0 ones as \u00XX, \b or \f (\r becomes a line break and \n and \t stay, so none of those joins
 * anything). C1 ones and DEL stay raw, and are looked for apart. Plain searches: this runs on every line written.
 */
function hasEscapedControl(text: string): boolean {
  return text.includes('\\u00') || text.includes('\\b') || text.includes('\\f');
}

/** Parsed JSON with every string, keys included, passed through `map`. */
function mapStrings(value: unknown, map: (text: string) => string): unknown {
  if (typeof value === 'string') return map(value);
  if (Array.isArray(value)) return value.map((item) => mapStrings(item, map));
  if (value === null || typeof value !== 'object') return value;
  // No prototype: a key such as `__proto__` stays a key.
  const mapped = Object.create(null) as Record<string, unknown>;
  for (const [key, inner] of Object.entries(value)) mapped[map(key)] = mapStrings(inner, map);
  return mapped;
}

/** JSON text with DEL and the C1 controls as \u escapes: the same value, and nothing a terminal acts on. */
function escapeC1(text: string): string {
  if (!RAW_C1.test(text)) return text;
  return text.replace(RAW_C1_GLOBAL, (char) => `\\u${char.charCodeAt(0).toString(16).padStart(4, '0')}`);
}
