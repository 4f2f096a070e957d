// Head + tail truncation of command output.
//
// `HeadTailBuffer` accumulates a stream of text in bounded memory: it keeps the first
// `capacity` characters and (in a ring of chunks) the last `capacity` characters, and counts
// characters and line breaks of everything that passed through. `headTail` is a pure function
// that turns such a snapshot into the text a model sees: everything when it fits, otherwise a
// head, a marker saying what was left out and where the full output is, and a tail.

interface HeadTailSnapshot {
  /** The first characters of the stream (all of it when the stream fits the capacity). */
  head: string;
  /** The last characters of the stream; may overlap `head` when the stream is short. */
  tail: string;
  totalChars: number;
  /** Number of '\n' characters in the whole stream. */
  totalNewlines: number;
}

export interface HeadTailOptions {
  maxChars: number;
  /** File that holds the full output, named in the marker. */
  spillPath: string | null;
  /** Why the full output could not be saved, when it could not. */
  spillError?: string | null;
  /** Share of the characters given to the head; the rest goes to the tail (errors tend to be last). */
  headShare?: number;
}

interface HeadTailResult {
  text: string;
  truncated: boolean;
  omittedChars: number;
  omittedLines: number;
}

const DEFAULT_HEAD_SHARE = 0.4;

export function countNewlines(text: string): number {
  // A plain charCodeAt loop beats indexOf when lines are short (e.g. `yes` floods).
  let count = 0;
  for (let i = 0; i < text.length; i++) {
    if (text.charCodeAt(i) === 10) count++;
  }
  return count;
}

function isHighSurrogate(code: number): boolean {
  return code >= 0xd800 && code <= 0xdbff;
}

function isLowSurrogate(code: number): boolean {
  return code >= 0xdc00 && code <= 0xdfff;
}

export class HeadTailBuffer {
  private head = '';
  private readonly tailChunks: string[] = [];
  private tailLength = 0;
  private totalChars = 0;
  private totalNewlines = 0;

  constructor(private readonly capacity: number) {
    if (!Number.isInteger(capacity) || capacity < 1) {
      throw new RangeError(`capacity must be a positive integer, got ${capacity}`);
    }
  }

  push(text: string): void {
    if (text.length === 0) return;
    this.totalChars += text.length;
    this.totalNewlines += countNewlines(text);
    if (this.head.length < this.capacity) {
      this.head += text.slice(0, this.capacity - this.head.length);
    }
    const kept = text.length > this.capacity ? text.slice(text.length - this.capacity) : text;
    this.tailChunks.push(kept);
    this.tailLength += kept.length;
    // Drop whole chunks from the front while the rest still covers the capacity.
    while (this.tailChunks.length > 1 && this.tailLength - this.tailChunks[0]!.length >= this.capacity) {
      this.tailLength -= this.tailChunks.shift()!.length;
    }
  }

  get chars(): number {
    return this.totalChars;
  }

  /** Everything pushed so far, when it all fits the capacity; null otherwise. */
  get whole(): string | null {
    return this.totalChars <= this.capacity ? this.head : null;
  }

  snapshot(): HeadTailSnapshot {
    let tail = this.tailChunks.join('');
    if (tail.length > this.capacity) tail = tail.slice(tail.length - this.capacity);
    this.tailChunks.splice(0, this.tailChunks.length, tail);
    this.tailLength = tail.length;
    return { head: this.head, tail, totalChars: this.totalChars, totalNewlines: this.totalNewlines };
  }
}

function formatCount(n: number): string {
  return n.toLocaleString('en-US');
}

export function formatMarker(
  omittedChars: number,
  omittedLines: number,
  totalChars: number,
  spillPath: string | null,
  spillError?: string | null,
): string {
  const where = spillPath
    ? `the full output (${formatCount(totalChars)} characters) is in ${spillPath}`
    : `the full output could not be saved${spillError ? ` (${spillError})` : ''}`;
  const lines = omittedLines === 1 ? '1 line' : `${formatCount(omittedLines)} lines`;
  return `[... ${formatCount(omittedChars)} characters (${lines}) omitted; ${where} ...]`;
}

/** Where the head ends: within budget, never splitting a surrogate pair, at a line end when one is near. */
function headCut(head: string, budget: number): number {
  let cut = Math.min(budget, head.length);
  if (cut > 0 && cut < head.length && isHighSurrogate(head.charCodeAt(cut - 1))) cut--;
  if (cut < head.length) {
    const lastNewline = head.lastIndexOf('\n', cut - 1);
    if (lastNewline >= 0 && lastNewline + 1 >= cut / 2) cut = lastNewline + 1;
  }
  return Math.max(cut, 0);
}

/** Where the tail starts: within budget, never splitting a surrogate pair, at a line start when one is near. */
function tailStart(tail: string, budget: number): number {
  let start = tail.length - Math.min(budget, tail.length);
  if (start > 0 && start < tail.length && isLowSurrogate(tail.charCodeAt(start))) start++;
  if (start > 0 && tail.charCodeAt(start - 1) !== 10) {
    const nextNewline = tail.indexOf('\n', start);
    if (nextNewline >= 0 && nextNewline + 1 < tail.length && nextNewline + 1 - start <= budget / 2) {
      start = nextNewline + 1;
    }
  }
  return start;
}

/**
 * The text a model sees for a captured stream: unchanged when it fits `maxChars`, otherwise
 * head + marker + tail, all within `maxChars` characters.
 */
export function headTail(snapshot: HeadTailSnapshot, options: HeadTailOptions): HeadTailResult {
  const { maxChars, spillPath, spillError } = options;
  const { head, tail, totalChars, totalNewlines } = snapshot;
  if (totalChars <= maxChars) {
    if (head.length !== totalChars) {
      throw new RangeError('head holds less than the whole stream although it fits maxChars');
    }
    return { text: head, truncated: false, omittedChars: 0, omittedLines: 0 };
  }
  // Size the marker with the largest numbers it can show; its real text is never longer.
  const markerBound = formatMarker(totalChars, totalNewlines, totalChars, spillPath, spillError).length + 2;
  const bodyBudget = Math.max(0, maxChars - markerBound);
  const headShare = options.headShare ?? DEFAULT_HEAD_SHARE;
  const headBudget = Math.floor(bodyBudget * headShare);
  const tailBudget = bodyBudget - headBudget;

  const headPart = head.slice(0, headCut(head, headBudget));
  const tailPart = tail.slice(tailStart(tail, tailBudget));
  const omittedChars = totalChars - headPart.length - tailPart.length;
  const omittedLines = totalNewlines - countNewlines(headPart) - countNewlines(tailPart);
  const marker = formatMarker(omittedChars, omittedLines, totalChars, spillPath, spillError);
  const beforeMarker = headPart.length === 0 || headPart.endsWith('\n') ? '' : '\n';
  const text = `${headPart}${beforeMarker}${marker}\n${tailPart}`;
  return { text, truncated: true, omittedChars, omittedLines };
}
