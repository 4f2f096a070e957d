// Masks known secret values in a stream of command output: every occurrence becomes `[redacted: NAME]`.
//
// Values are found by plain string search (indexOf per value; V8 runs Boyer-Moore-Horspool for patterns
// this long), never by a regular expression built from a value, so any character is safe. Overlapping
// occurrences merge into one redaction, named after the occurrence that starts it (the longest one when
// several start there). A value split across chunks is still found: a push holds back the end of its text
// only when that end is the beginning of a value, so what it holds is shorter than the longest value, and
// a chunk without any of that comes out as the very same string. The streamed result equals masking the
// whole text at once.
import { cleanText } from './clean-output.js';

/** Shorter values are not masked: they would hit ordinary words and numbers all over the output. */
export const MIN_SECRET_LENGTH = 8;

export interface SecretValue {
  name: string;
  value: string;
}

/** A stream transform of text; `end` flushes what is held back. */
export interface TextFilter {
  push(text: string): string;
  end(): string;
}

interface Occurrence {
  start: number;
  end: number;
  name: string;
}

/**
 * The strings to look for, given the withheld variables: each value as it is, trimmed, as the output cleaner
 * would show it (CR LF → LF, controls dropped), and, for a value of several lines, each line (as `echo $X`
 * prints it). Only forms of at least MIN_SECRET_LENGTH characters; a string shared by two names is looked
 * for once, under the first name.
 */
export function secretPatterns(variables: readonly SecretValue[]): SecretValue[] {
  const byValue = new Map<string, string>();
  for (const { name, value } of variables) {
    for (const form of formsOf(value)) {
      if (form.length >= MIN_SECRET_LENGTH && !byValue.has(form)) byValue.set(form, name);
    }
  }
  return [...byValue].map(([value, name]) => ({ name, value }));
}

function formsOf(value: string): string[] {
  const forms = [value, value.trim(), cleanText(value), cleanText(value).trim()];
  if (/[\r\n]/.test(value)) forms.push(...value.split(/\r\n|\r|\n/).map((line) => line.trim()));
  return forms;
}

export class SecretMasker implements TextFilter {
  private readonly secrets: readonly SecretValue[];
  private readonly longest: number;
  /** The values by their first character, to find quickly where an unfinished value may begin. */
  private readonly byFirstChar = new Map<number, SecretValue[]>();
  /** Raw text not yet given out: it ends in what may be the beginning of a value. */
  private pending = '';
  /**
   * Raw text already given out inside the redaction that ends where `pending` starts, from the first place where a
   * value may begin that could still run on into new text: such a value belongs to that redaction.
   */
  private covered = '';

  constructor(secrets: readonly SecretValue[]) {
    this.secrets = secrets.filter((secret) => secret.value.length > 0);
    this.longest = Math.max(0, ...this.secrets.map((secret) => secret.value.length));
    for (const secret of this.secrets) {
      const first = secret.value.charCodeAt(0);
      this.byFirstChar.set(first, [...(this.byFirstChar.get(first) ?? []), secret]);
    }
  }

  push(text: string): string {
    if (text.length === 0 || this.secrets.length === 0) return text;
    // Most chunks: nothing held from before, no value in them, no value begun at their end. They pass as they are.
    const whole = this.covered === '' && this.pending === '' ? text : this.covered + this.pending + text;
    return this.advance(whole, false);
  }

  end(): string {
    const held = this.pending;
    if (held === '') {
      this.covered = '';
      return '';
    }
    return this.advance(this.covered + held, true);
  }

  /** Gives out what can no longer change, holds back the rest. `text` starts with `covered`. */
  private advance(text: string, final: boolean): string {
    const coveredLength = this.covered.length;
    const redactions = this.redactions(text, coveredLength);
    const unfinished = final ? text.length : this.firstUnfinished(text);
    if (redactions.length === 0 && unfinished === text.length) {
      this.pending = '';
      return text;
    }
    // Every occurrence that starts before `limit` is whole inside `text`, so that part is settled.
    const limit = Math.max(coveredLength, unfinished);
    const out: string[] = [];
    let position = coveredLength;
    let lastRedaction: Occurrence | null = null;
    for (const redaction of redactions) {
      if (redaction.start >= limit) break;
      if (redaction.start >= coveredLength)
        out.push(text.slice(position, redaction.start), `[redacted: ${redaction.name}]`);
      // A redaction that began in `covered` was given out already: its continuation is swallowed.
      position = Math.max(position, redaction.end);
      lastRedaction = redaction;
    }
    let given = position;
    if (position < limit) {
      out.push(text.slice(position, limit));
      given = limit;
      lastRedaction = null;
    }
    this.pending = text.slice(given);
    this.covered =
      lastRedaction === null || unfinished >= given ? '' : text.slice(Math.max(lastRedaction.start, unfinished), given);
    return out.join('');
  }

  /** The first position from which the rest of `text` is the beginning of a value (a value cut off); text.length if none. */
  private firstUnfinished(text: string): number {
    for (let at = Math.max(0, text.length - this.longest + 1); at < text.length; at++) {
      const candidates = this.byFirstChar.get(text.charCodeAt(at));
      if (candidates?.some((secret) => beginsWithRest(secret.value, text, at))) return at;
    }
    return text.length;
  }

  /** Occurrences merged where they overlap, in order; text before `coveredLength` counts as one redaction. */
  private redactions(text: string, coveredLength: number): Occurrence[] {
    const found = this.occurrences(text);
    const merged: Occurrence[] = coveredLength > 0 ? [{ start: 0, end: coveredLength, name: '' }] : [];
    for (const occurrence of found) {
      const last = merged.at(-1);
      if (last !== undefined && occurrence.start < last.end) last.end = Math.max(last.end, occurrence.end);
      else merged.push({ ...occurrence });
    }
    return merged;
  }

  private occurrences(text: string): Occurrence[] {
    const found: Occurrence[] = [];
    for (const { name, value } of this.secrets) {
      for (let at = text.indexOf(value); at !== -1; at = text.indexOf(value, at + 1)) {
        found.push({ start: at, end: at + value.length, name });
      }
    }
    if (found.length > 1) found.sort((a, b) => a.start - b.start || b.end - a.end);
    return found;
  }
}

/** True when text[at..] is a proper beginning of `value`: the value may go on in text not yet seen. */
function beginsWithRest(value: string, text: string, at: number): boolean {
  const rest = text.length - at;
  if (rest >= value.length) return false;
  for (let i = 0; i < rest; i++) {
    if (value.charCodeAt(i) !== text.charCodeAt(at + i)) return false;
  }
  return true;
}
