import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { OutputCapture } from '../src/shell/output-capture.js';
import { secretPatterns, SecretMasker, type SecretValue } from '../src/shell/secret-mask.js';
import { seededRandom } from './support/seeded-random.js';

/** A whole text at once, through the streaming masker the executor uses. */
function maskText(text: string, secrets: readonly SecretValue[]): string {
  const masker = new SecretMasker(secrets);
  return masker.push(text) + masker.end();
}

/** The same rules written the slow, obvious way: every position, every value, then merge overlaps. */
function referenceMask(text: string, secrets: SecretValue[]): string {
  const found: Array<{ start: number; end: number; name: string }> = [];
  for (let at = 0; at < text.length; at++) {
    for (const { name, value } of secrets) {
      if (text.startsWith(value, at)) found.push({ start: at, end: at + value.length, name });
    }
  }
  found.sort((a, b) => a.start - b.start || b.end - a.end);
  let out = '';
  let position = 0;
  let current: { start: number; end: number; name: string } | null = null;
  const close = () => {
    if (current) out += `${text.slice(position, current.start)}[redacted: ${current.name}]`;
    if (current) position = current.end;
  };
  for (const occurrence of found) {
    if (current && occurrence.start < current.end) current.end = Math.max(current.end, occurrence.end);
    else {
      close();
      current = { ...occurrence };
    }
  }
  close();
  return out + text.slice(position);
}

function streamed(text: string, secrets: SecretValue[], cuts: number[]): string {
  const masker = new SecretMasker(secrets);
  let out = '';
  let from = 0;
  for (const cut of [...cuts, text.length]) {
    out += masker.push(text.slice(from, cut));
    from = cut;
  }
  return out + masker.end();
}

describe('maskText', () => {
  it('replaces every occurrence of a value with its name', () => {
    const secrets = [{ name: 'GITHUB_TOKEN', value: 'ghp_abcdef123456' }];
    expect(maskText('token ghp_abcdef123456 and again ghp_abcdef123456.\n', secrets)).toBe(
      'token [redacted: GITHUB_TOKEN] and again [redacted: GITHUB_TOKEN].\n',
    );
    expect(maskText('nothing here\n', secrets)).toBe('nothing here\n');
  });

  it('searches values as plain strings: regex characters mean themselves', () => {
    const value = 'a.b*c+(d)[e]$^|\\{2}?';
    const secrets = [{ name: 'WEIRD_SECRET', value }];
    expect(maskText(`x ${value} y`, secrets)).toBe('x [redacted: WEIRD_SECRET] y');
    // What a regex built from the value would have matched is left alone.
    expect(maskText('aXbbbbc+(d)e$^|\\{2}?', secrets)).toBe('aXbbbbc+(d)e$^|\\{2}?');
  });

  it('merges overlapping occurrences into one redaction named after the first', () => {
    const secrets = [
      { name: 'A_TOKEN', value: 'abcdefgh' },
      { name: 'B_TOKEN', value: 'efghijkl' },
    ];
    expect(maskText('xxabcdefghijklyy', secrets)).toBe('xx[redacted: A_TOKEN]yy');
    // Adjacent occurrences stay two redactions.
    expect(maskText('abcdefghefghijkl', secrets)).toBe('[redacted: A_TOKEN][redacted: B_TOKEN]');
    // A value that overlaps itself: the whole run goes.
    expect(maskText('-aaaaaaaaaaaa-', [{ name: 'A_KEY', value: 'aaaaaaaa' }])).toBe('-[redacted: A_KEY]-');
  });

  it('prefers the longest value where several start at the same place', () => {
    const secrets = [
      { name: 'SHORT_KEY', value: 'prefix12' },
      { name: 'LONG_KEY', value: 'prefix1234567' },
    ];
    expect(maskText('=prefix1234567=', secrets)).toBe('=[redacted: LONG_KEY]=');
    expect(maskText('=prefix12=', secrets)).toBe('=[redacted: SHORT_KEY]=');
  });
});

describe('secretPatterns', () => {
  it('drops values under 8 characters and looks for a shared value once, under the first name', () => {
    const patterns = secretPatterns([
      { name: 'A_TOKEN', value: 'shared-value-1' },
      { name: 'B_TOKEN', value: 'shared-value-1' },
      { name: 'C_TOKEN', value: 'short' },
      { name: 'D_TOKEN', value: '1234567' },
      { name: 'E_TOKEN', value: '12345678' },
    ]);
    expect(patterns).toEqual([
      { name: 'A_TOKEN', value: 'shared-value-1' },
      { name: 'E_TOKEN', value: '12345678' },
    ]);
  });

  it('covers a value of several lines whole, line by line, and as the output cleaner shows it', () => {
    const value = '-----BEGIN KEY-----\r\nMIIEabcdefgh1234\r\nshort\r\n-----END KEY-----\r\n';
    const patterns = secretPatterns([{ name: 'DEPLOY_PRIVATE_KEY', value }]).map((pattern) => pattern.value);
    expect(patterns).toEqual(
      expect.arrayContaining([
        value,
        value.trim(),
        value.replace(/\r\n/g, '\n'),
        'MIIEabcdefgh1234',
        '-----BEGIN KEY-----',
        '-----END KEY-----',
      ]),
    );
    expect(patterns).not.toContain('short');
    const printed = `key:\n${value.replace(/\r\n/g, '\n')}done\n`;
    expect(maskText(printed, secretPatterns([{ name: 'DEPLOY_PRIVATE_KEY', value }]))).toBe(
      'key:\n[redacted: DEPLOY_PRIVATE_KEY]done\n',
    );
    // `echo $KEY` joins the lines with spaces: each line is still hidden.
    const echoed = value.split('\r\n').join(' ');
    expect(maskText(echoed, secretPatterns([{ name: 'DEPLOY_PRIVATE_KEY', value }]))).not.toContain('MIIEabcdefgh1234');
  });

  it('finds a value that carries surrounding white space, as a shell would print it trimmed', () => {
    const patterns = secretPatterns([{ name: 'NPM_TOKEN', value: '  npm_0123456789\n' }]);
    expect(maskText('token: npm_0123456789\n', patterns)).toBe('token: [redacted: NPM_TOKEN]\n');
  });
});

describe('SecretMasker as a stream', () => {
  const secret = { name: 'GITHUB_TOKEN', value: 'ghp_0123456789abcdef' };

  it('finds a value split across chunks at every possible place', () => {
    const text = `before ${secret.value} after`;
    for (let cut = 0; cut <= text.length; cut++) {
      expect(streamed(text, [secret], [cut])).toBe('before [redacted: GITHUB_TOKEN] after');
    }
    // One character at a time.
    expect(
      streamed(
        text,
        [secret],
        [...text].map((_, i) => i),
      ),
    ).toBe('before [redacted: GITHUB_TOKEN] after');
  });

  it('holds back only an end that begins a value, and gives it out once it turns out otherwise', () => {
    const masker = new SecretMasker([secret]);
    expect(masker.push('plain text, nothing held\n')).toBe('plain text, nothing held\n');
    expect(masker.push('then ghp_01')).toBe('then ');
    expect(masker.push('2345 is not it\n')).toBe('ghp_012345 is not it\n');
    expect(masker.push('ends in g')).toBe('ends in ');
    expect(masker.end()).toBe('g');
  });

  it('holds back less than the longest value, so memory stays bounded', () => {
    const masker = new SecretMasker([secret]);
    let given = 0;
    let pushed = 0;
    for (let i = 0; i < 200; i++) {
      const chunk = 'x'.repeat(5_000);
      pushed += chunk.length;
      given += masker.push(chunk).length;
      expect(pushed - given).toBeLessThan(secret.value.length);
    }
    expect(given + masker.end().length).toBe(pushed);
  });

  it('gives the same text as the reference for random values, texts and chunkings', () => {
    const next = seededRandom(1234);
    const below = (n: number) => Math.floor(next() * n);
    const pick = (alphabet: string, length: number) =>
      Array.from({ length }, () => alphabet[below(alphabet.length)]).join('');
    let redacted = 0;
    for (let round = 0; round < 3_000; round++) {
      const secrets = Array.from({ length: 1 + below(3) }, (_, i) => ({
        name: `S${i}_TOKEN`,
        value: pick(round % 2 ? 'ab' : 'abc', 8 + below(5)),
      }));
      // Texts made of whole values, pieces of values and filler, so that occurrences overlap, chain and straddle cuts.
      const pieces = Array.from({ length: below(14) }, () => {
        const { value } = secrets[below(secrets.length)]!;
        const kind = below(4);
        if (kind === 0) return value;
        if (kind === 1) return value.slice(below(value.length));
        if (kind === 2) return value.slice(0, below(value.length));
        return pick('abc', below(4));
      });
      const text = pieces.join('');
      const cuts = Array.from({ length: below(10) }, () => below(text.length + 1)).sort((a, b) => a - b);
      const expected = referenceMask(text, secrets);
      const got = streamed(text, secrets, cuts);
      if (got !== expected)
        throw new Error(`round ${round}: ${JSON.stringify({ secrets, text, cuts, got, expected })}`);
      for (const { value } of secrets) expect(got).not.toContain(value);
      if (got !== text) redacted++;
    }
    // The texts did exercise the masking.
    expect(redacted).toBeGreaterThan(1_500);
  });

  it('is reusable after end()', () => {
    const masker = new SecretMasker([secret]);
    expect(masker.push(`a ${secret.value.slice(0, 5)}`) + masker.end()).toBe(`a ${secret.value.slice(0, 5)}`);
    expect(masker.push(secret.value) + masker.end()).toBe('[redacted: GITHUB_TOKEN]');
  });
});

describe('OutputCapture with a mask', () => {
  const dirs: string[] = [];
  afterEach(() => {
    for (const dir of dirs.splice(0)) rmSync(dir, { recursive: true, force: true });
  });

  it('masks the head, the tail, the full-output file and the preview alike, values split across writes included', () => {
    const dir = mkdtempSync(join(tmpdir(), 'agent-mask-capture-'));
    dirs.push(dir);
    const secret = { name: 'AWS_SECRET_ACCESS_KEY', value: 'wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY' };
    const previews: string[] = [];
    const capture = new OutputCapture({
      maxChars: 1_000,
      spillDir: dir,
      onOutput: (text) => previews.push(text),
      mask: new SecretMasker([secret]),
    });
    const filler = 'line of ordinary output\n'.repeat(200);
    const whole = `${secret.value}\n${filler}${secret.value}\n${filler}end ${secret.value}`;
    for (let at = 0; at < whole.length; at += 7) capture.write(whole.slice(at, at + 7));
    const result = capture.finish();

    expect(result.spillPath).not.toBeNull();
    const spilled = readFileSync(result.spillPath!, 'utf8');
    for (const seen of [result.body, spilled, previews.join('')]) {
      expect(seen).not.toContain(secret.value);
      expect(seen).not.toContain('wJalrXUtnFEMI');
    }
    expect(result.body.startsWith('[redacted: AWS_SECRET_ACCESS_KEY]\n')).toBe(true);
    expect(result.body.endsWith('end [redacted: AWS_SECRET_ACCESS_KEY]')).toBe(true);
    expect(spilled).toBe(maskText(whole, [secret]));
    expect(previews.join('')).toBe(spilled);
  });
});
