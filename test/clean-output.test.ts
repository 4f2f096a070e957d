import { describe, expect, it } from 'vitest';
import { OutputCleaner, cleanText } from '../src/shell/clean-output.js';

const RAW_CONTROL = /[\x00-\x08\x0b-\x1f\x7f-\x9f]/;

function cleanBytes(bytes: Uint8Array, chunkSize: number): string {
  const cleaner = new OutputCleaner();
  let out = '';
  for (let i = 0; i < bytes.length; i += chunkSize) out += cleaner.push(bytes.subarray(i, i + chunkSize));
  return out + cleaner.end();
}

const encode = (text: string): Uint8Array => new TextEncoder().encode(text);

describe('OutputCleaner', () => {
  it('strips colour, cursor and title sequences', () => {
    expect(cleanText('\x1b[31mred\x1b[0m plain \x1b[1;32;48;5;200mbold\x1b[m')).toBe('red plain bold');
    expect(cleanText('\x1b]0;window title\x07after')).toBe('after');
    expect(cleanText('\x1b]8;;https://example.com\x1b\\link\x1b]8;;\x1b\\')).toBe('link');
    expect(cleanText('a\x1b[2K\x1b[1Gb\x1b(Bc\x1b=d\x1bPsixel\x1b\\e')).toBe('abcde');
  });

  it('strips sequences split at every possible chunk boundary', () => {
    const text = 'x\x1b[38;5;196mcolour\x1b[0m\x1b]2;title\x1b\\é😀\r\nend\r';
    const bytes = encode(text);
    for (let size = 1; size <= bytes.length; size++) {
      expect(cleanBytes(bytes, size)).toBe('xcolouré😀\nend\n');
    }
  });

  it('replaces invalid UTF-8 and keeps characters split across chunks', () => {
    const bytes = new Uint8Array([0x61, 0xff, 0xfe, 0x62, 0xe2, 0x82, 0xac, 0xc3]);
    expect(cleanBytes(bytes, 1)).toBe('a\uFFFD\uFFFDb€\uFFFD');
    expect(cleanBytes(bytes, 3)).toBe('a\uFFFD\uFFFDb€\uFFFD');
  });

  it('decodes ASCII chunks and the first chunk that is not ASCII as one stream, at any split', () => {
    const text = `${'plain ascii line\n'.repeat(3)}é€😀 after\n\uFEFFkept mark\n${'tail\n'.repeat(2)}`;
    const bytes = encode(text);
    for (let size = 1; size <= bytes.length; size++) expect(cleanBytes(bytes, size)).toBe(text);
    // A byte order mark at the very start is a mark, as any UTF-8 decoder reads it; after text it is a character.
    const marked = new Uint8Array([0xef, 0xbb, 0xbf, ...encode('x')]);
    expect(cleanBytes(marked, 1)).toBe('x');
    expect(cleanBytes(new Uint8Array([...encode('a'), ...marked]), 1)).toBe('a\uFEFFx');
    const cleaner = new OutputCleaner();
    expect(cleaner.push(encode('first run')) + cleaner.end()).toBe('first run');
    expect(cleaner.push(marked) + cleaner.end()).toBe('x');
  });

  it('turns \\r\\n and lone \\r into \\n, even across chunks, and keeps tabs', () => {
    expect(cleanText('a\r\nb\rc\td')).toBe('a\nb\nc\td');
    const cleaner = new OutputCleaner();
    expect(cleaner.push(encode('one\r')) + cleaner.push(encode('\ntwo'))).toBe('one\ntwo');
  });

  it('drops NUL, BEL, backspace, DEL and C1 controls', () => {
    expect(cleanText('a\x00\x00b\x07c\x08d\x7fe\u0085f\u009bg')).toBe('abcdefg');
    expect(cleanBytes(new Uint8Array(100_000), 4096)).toBe('');
  });

  it('does not let an unterminated string sequence swallow the rest of the output', () => {
    expect(cleanText('\x1b]0;never terminated\nvisible line\n')).toBe('\nvisible line\n');
    const cleaned = cleanText('\x1bP' + 'z'.repeat(10_000) + 'tail');
    expect(cleaned.endsWith('tail')).toBe(true);
    expect(cleaned.length).toBeGreaterThan(5000);
  });

  it('never emits raw control characters for random bytes', () => {
    let seed = 7;
    const bytes = new Uint8Array(50_000).map(() => {
      seed = (seed * 1103515245 + 12345) % 2 ** 31;
      return seed & 0xff;
    });
    for (const size of [1, 7, 4096]) {
      const cleaned = cleanBytes(bytes, size);
      expect(cleaned).not.toMatch(RAW_CONTROL);
      expect(cleaned.length).toBeGreaterThan(1000);
    }
  });
});
