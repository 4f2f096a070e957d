// Cost of secret masking per megabyte of command output, next to the output cleaner that every byte already goes
// through. Run: node --import tsx bench/secret-mask.ts
// Chunks of 64 KiB, as a pipe delivers them; each figure is the median of several passes over 64 MB.

import { OutputCleaner } from '../src/shell/clean-output.js';
import { SecretMasker, type SecretValue } from '../src/shell/secret-mask.js';

const CHUNK = 64 * 1024;
const TOTAL_MB = 64;
const PASSES = 7;

function secrets(count: number): SecretValue[] {
  // Token-shaped values: a prefix and 36 random characters, like ghp_…, npm_…, AKIA….
  const alphabet = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789';
  return Array.from({ length: count }, (_, i) => ({
    name: `SECRET_${i}_TOKEN`,
    value: `tok${i}_${Array.from({ length: 36 }, () => alphabet[Math.floor(Math.random() * alphabet.length)]).join('')}`,
  }));
}

const workloads: Record<string, string> = {
  // `head -c N /dev/zero | tr '\0' a`: the flood the memory figure uses.
  flood: 'a'.repeat(CHUNK),
  // Build-log lines: paths, numbers, words.
  log: Array.from(
    { length: 2_000 },
    (_, i) => `[${i}] src/module-${i % 97}/file.ts:${i % 400}:12 - compiled in ${i % 53} ms\n`,
  )
    .join('')
    .slice(0, CHUNK),
};

function mbPerSecond(run: (chunk: string) => void, chunk: string): number {
  const chunks = (TOTAL_MB * 1024 * 1024) / CHUNK;
  const rates: number[] = [];
  for (let pass = 0; pass < PASSES; pass++) {
    const started = performance.now();
    // A fresh string per chunk, as the decoder makes one: no flattened copy is reused between pushes.
    for (let i = 0; i < chunks; i++) run(chunk.slice(0, chunk.length - (i & 1)) + (i & 1 ? '\n' : ''));
    rates.push(TOTAL_MB / ((performance.now() - started) / 1000));
  }
  rates.sort((a, b) => a - b);
  return rates[Math.floor(rates.length / 2)]!;
}

const encoder = new TextEncoder();
console.log(
  `median of ${PASSES} passes over ${TOTAL_MB} MB in ${CHUNK / 1024} KiB chunks; ms/MB = milliseconds per megabyte\n`,
);
for (const [name, text] of Object.entries(workloads)) {
  const bytes = encoder.encode(text);
  const cleaner = new OutputCleaner();
  const cleanerRate = mbPerSecond(() => cleaner.push(bytes), text);
  console.log(`${name}: output cleaner alone ${(1000 / cleanerRate).toFixed(3)} ms/MB`);
  for (const count of [1, 10, 50]) {
    const masker = new SecretMasker(secrets(count));
    const rate = mbPerSecond((chunk) => masker.push(chunk), text);
    console.log(`${name}: masking ${String(count).padStart(2)} secret(s) ${(1000 / rate).toFixed(3)} ms/MB`);
  }
  console.log('');
}
