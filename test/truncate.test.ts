import { describe, expect, it } from 'vitest';
import { HeadTailBuffer, countNewlines, formatMarker, headTail, type HeadTailOptions } from '../src/shell/truncate.js';

/** A string already in memory, through the buffer and the cut the executor uses. */
function truncateText(text: string, options: HeadTailOptions) {
  const buffer = new HeadTailBuffer(Math.max(1, options.maxChars));
  buffer.push(text);
  return headTail(buffer.snapshot(), options);
}

const SPILL = '/tmp/agent-output-test.txt';
const LONE_SURROGATE = /[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/;

/**
 * Splits a truncated text back into head, marker and tail. The marker sits on its own line: a
 * line break is added before it only when the head does not end with one.
 */
function parts(text: string, original: string): { head: string; marker: string; tail: string } {
  const match = /^([\s\S]*?)(\[\.\.\. [^\n]* \.\.\.\])\n([\s\S]*)$/.exec(text);
  if (!match) throw new Error(`no marker in: ${text.slice(0, 200)}`);
  let head = match[1]!;
  if (head.endsWith('\n') && !original.startsWith(head)) head = head.slice(0, -1);
  return { head, marker: match[2]!, tail: match[3]! };
}

describe('headTail', () => {
  it('returns output exactly at the cap unchanged, without a marker', () => {
    const text = 'x'.repeat(999) + '\n';
    const result = truncateText(text, { maxChars: 1000, spillPath: SPILL });
    expect(result.truncated).toBe(false);
    expect(result.text).toBe(text);
    expect(result.omittedChars).toBe(0);
  });

  it('truncates one character over the cap into head + marker + tail within the cap', () => {
    const text = 'x'.repeat(1001);
    const result = truncateText(text, { maxChars: 1000, spillPath: SPILL });
    expect(result.truncated).toBe(true);
    expect(result.text.length).toBeLessThanOrEqual(1000);
    const { head, marker, tail } = parts(result.text, text);
    expect(marker).toContain(SPILL);
    expect(marker).toContain('1,001 characters');
    // 40 % of the budget to the head, the rest to the tail, and together they fill it.
    expect(head.length).toBeGreaterThan(0);
    expect(tail.length).toBeGreaterThan(head.length);
    expect(head.length / (head.length + tail.length)).toBeCloseTo(0.4, 1);
    expect(head.length + tail.length + marker.length + 2).toBeGreaterThan(900);
    expect(result.omittedChars).toBe(1001 - head.length - tail.length);
    expect(marker).toContain(`[... ${result.omittedChars} characters (0 lines) omitted`);
  });

  it('keeps the head a prefix and the tail a suffix of the output', () => {
    const text = Array.from({ length: 5000 }, (_, i) => `line ${i + 1}`).join('\n') + '\n';
    const result = truncateText(text, { maxChars: 2000, spillPath: SPILL });
    const { head, tail } = parts(result.text, text);
    expect(text.startsWith(head)).toBe(true);
    expect(text.endsWith(tail)).toBe(true);
    expect(head.startsWith('line 1\nline 2\n')).toBe(true);
    expect(tail.endsWith('line 5000\n')).toBe(true);
  });

  it('cuts at line boundaries and counts the omitted lines exactly', () => {
    const lines = Array.from({ length: 10_000 }, (_, i) => `row ${String(i + 1).padStart(5, '0')}`);
    const text = lines.join('\n') + '\n';
    const result = truncateText(text, { maxChars: 3000, spillPath: SPILL });
    const { head, marker, tail } = parts(result.text, text);
    expect(head.endsWith('\n')).toBe(true);
    expect(tail.startsWith('row ')).toBe(true);
    const shownLines = countNewlines(head) + countNewlines(tail);
    expect(result.omittedLines).toBe(10_000 - shownLines);
    expect(result.omittedChars).toBe(text.length - head.length - tail.length);
    expect(marker).toContain(`${result.omittedLines.toLocaleString('en-US')} lines`);
    expect(marker).toContain(`${result.omittedChars.toLocaleString('en-US')} characters`);
    // The first omitted line follows the last shown one.
    const lastHeadRow = Number(/row (\d+)\n$/.exec(head)![1]);
    const firstTailRow = Number(/^row (\d+)/.exec(tail)![1]);
    expect(firstTailRow - lastHeadRow - 1).toBe(result.omittedLines);
  });

  it('never splits a surrogate pair or introduces U+FFFD at either cut', () => {
    const text = '😀é€'.repeat(3000);
    for (let maxChars = 1000; maxChars < 1040; maxChars++) {
      const result = truncateText(text, { maxChars, spillPath: SPILL });
      expect(result.truncated).toBe(true);
      expect(result.text).not.toMatch(LONE_SURROGATE);
      expect(result.text).not.toContain('\uFFFD');
      expect(result.text.length).toBeLessThanOrEqual(maxChars);
    }
  });

  it('handles a very long single line: no line snapping, sizes close to the budget, 0 lines omitted', () => {
    const text = 'a'.repeat(2_000_000);
    const result = truncateText(text, { maxChars: 30_000, spillPath: SPILL });
    const { head, tail } = parts(result.text, text);
    expect(result.text.length).toBeLessThanOrEqual(30_000);
    expect(head.length + tail.length).toBeGreaterThan(29_700);
    expect(result.omittedLines).toBe(0);
    expect(result.omittedChars).toBe(2_000_000 - head.length - tail.length);
  });

  it('says when the full output could not be saved', () => {
    const result = truncateText('z'.repeat(5000), { maxChars: 1000, spillPath: null, spillError: 'ENOSPC: no space' });
    expect(result.text).toContain('the full output could not be saved (ENOSPC: no space)');
    expect(result.text.length).toBeLessThanOrEqual(1000);
  });

  it('formats a marker with grouped numbers and the singular line', () => {
    expect(formatMarker(12345, 1, 99999, '/tmp/f.txt')).toBe(
      '[... 12,345 characters (1 line) omitted; the full output (99,999 characters) is in /tmp/f.txt ...]',
    );
  });
});

describe('HeadTailBuffer', () => {
  it('gives the same result whether output arrives whole or in random chunks', () => {
    const text = Array.from({ length: 20_000 }, (_, i) => `${i}: ${'é'.repeat(i % 7)}😀`).join('\n');
    let seed = 42;
    const random = (): number => {
      seed = (seed * 1103515245 + 12345) % 2 ** 31;
      return seed / 2 ** 31;
    };
    const chunked = new HeadTailBuffer(5000);
    for (let i = 0; i < text.length; ) {
      const size = 1 + Math.floor(random() * 3000);
      chunked.push(text.slice(i, i + size));
      i += size;
    }
    const whole = new HeadTailBuffer(5000);
    whole.push(text);
    expect(chunked.snapshot()).toEqual(whole.snapshot());
    const options = { maxChars: 5000, spillPath: SPILL };
    expect(headTail(chunked.snapshot(), options)).toEqual(truncateText(text, options));
  });

  it('holds at most the capacity in head and tail, however much passes through', () => {
    const buffer = new HeadTailBuffer(1000);
    const chunk = 'q'.repeat(777) + '\n';
    for (let i = 0; i < 10_000; i++) buffer.push(chunk);
    const snapshot = buffer.snapshot();
    expect(snapshot.head.length).toBe(1000);
    expect(snapshot.tail.length).toBe(1000);
    expect(snapshot.totalChars).toBe(778 * 10_000);
    expect(snapshot.totalNewlines).toBe(10_000);
    expect(buffer.whole).toBeNull();
  });

  it('keeps short output whole', () => {
    const buffer = new HeadTailBuffer(100);
    buffer.push('abc');
    buffer.push('def\n');
    expect(buffer.whole).toBe('abcdef\n');
    expect(headTail(buffer.snapshot(), { maxChars: 100, spillPath: null }).text).toBe('abcdef\n');
  });
});
