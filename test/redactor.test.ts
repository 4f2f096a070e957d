// The redactor that every sink writes through: text made plain then masked, streams, and JSON.
import { describe, expect, it } from 'vitest';
import { secretPatterns } from '../src/shell/secret-mask.js';
import { createRedactor } from '../src/sinks/redactor.js';

const TOKEN = 'ghp_redactorSecret0123456789';
const redactor = createRedactor(
  secretPatterns([
    { name: 'GITHUB_TOKEN', value: TOKEN },
    { name: 'ODD_SECRET', value: 'quote"back\\slash' },
  ]),
);
const SPLIT = `${TOKEN.slice(0, 9)}\u001b[0m${TOKEN.slice(9)}`;

describe('plain text', () => {
  it('drops escape sequences first, then masks, so a value split by one is masked', () => {
    expect(redactor.plain(`a ${SPLIT} b\u001b]52;c;eA==\u0007 c`)).toBe('a [redacted: GITHUB_TOKEN] b c');
  });

  it('makes a bare carriage return a line break, and keeps tabs and newlines', () => {
    expect(redactor.plain('one\rtwo\r\nthree\tfour\n')).toBe('one\ntwo\nthree\tfour\n');
  });

  it('streams: a value and a sequence cut across pieces', () => {
    const stream = redactor.plainStream();
    const pieces = ['x ', SPLIT.slice(0, 5), SPLIT.slice(5, 11), SPLIT.slice(11), ' \u001b]0;ti', 'tle\u0007y'];
    expect(pieces.map((piece) => stream.push(piece)).join('') + stream.end()).toBe('x [redacted: GITHUB_TOKEN] y');
  });

  it('without secrets still drops controls', () => {
    // The 8-bit CSI itself goes; what follows it is plain text then.
    expect(createRedactor([]).plain('a\u009b2Jb\u0007')).toBe('a2Jb');
  });
});

describe('JSON', () => {
  it('masks every string, keys too, and values that JSON escapes', () => {
    const text = redactor.json({ [TOKEN]: [`say ${TOKEN}`, 'quote"back\\slash', 3, null, true] });
    expect(JSON.parse(text)).toEqual({
      '[redacted: GITHUB_TOKEN]': ['say [redacted: GITHUB_TOKEN]', '[redacted: ODD_SECRET]', 3, null, true],
    });
  });

  it('writes a string in which a value shows once its controls are dropped cleaned and masked', () => {
    expect(JSON.parse(redactor.json({ text: `a ${SPLIT} b` }))).toEqual({ text: 'a [redacted: GITHUB_TOKEN] b' });
    // Other controls are kept, escaped.
    expect(JSON.parse(redactor.json({ text: 'bold \u001b[1mword' }))).toEqual({ text: 'bold \u001b[1mword' });
  });

  it('escapes C1 controls and DEL, which JSON.stringify leaves raw, and the value stays the same', () => {
    for (const r of [redactor, createRedactor([])]) {
      const text = r.json({ csi: '\u009b2J\u007f' }, 2);
      expect(text).not.toMatch(/[\u007f-\u009f]/);
      expect(JSON.parse(text)).toEqual({ csi: '\u009b2J\u007f' });
    }
  });

  it('keeps a key named __proto__ a key', () => {
    const value = JSON.parse(`{"__proto__": "${TOKEN}", "a": 1}`);
    expect(JSON.parse(redactor.json(value))).toEqual(JSON.parse('{"__proto__": "[redacted: GITHUB_TOKEN]", "a": 1}'));
  });

  it('leaves JSON with nothing to mask as JSON.stringify writes it', () => {
    const value = { type: 'result', nested: [{ text: 'plain\ttext\n' }], n: 1.5 };
    expect(redactor.json(value)).toBe(JSON.stringify(value));
  });
});
