// Start-up: the files of the bundle that a run loads before its first request. Each costs a resolution, a read and a
// compile-cache lookup (about 0.3 ms on Node 24), so the small modules that several chunks share sit in the one
// chunk that every chunk loads (scripts/common-chunk.mjs), not in chunks of their own.
import { readdirSync, readFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { expect, it } from 'vitest';

const DIST = resolve(import.meta.dirname, '../dist');

/** The chunk and every chunk it imports statically, transitively. */
function staticClosure(start: string, into: Set<string>): Set<string> {
  if (into.has(start)) return into;
  into.add(start);
  const code = readFileSync(join(DIST, start), 'utf8');
  for (const [, file] of code.matchAll(/(?:import|export)\s*(?:[^'"();]*?from\s*)?"\.\/([\w-]+\.js)"/g)) {
    staticClosure(file!, into);
  }
  return into;
}

it('a run loads five files of the bundle before its first request: the entry with the output, the shared chunk, the agent with the SDK', () => {
  const files = readdirSync(DIST);
  const lazy = (prefix: string) => files.find((file) => file.startsWith(prefix) && file.endsWith('.js'))!;
  expect(lazy('output-')).toBeUndefined();
  const loaded = new Set<string>();
  for (const entry of ['cli.js', lazy('run-')]) staticClosure(entry, loaded);
  expect([...loaded].length, [...loaded].join(' ')).toBeLessThanOrEqual(5);
  // The shared chunk holds the small modules, so the entry imports it alone.
  expect(staticClosure('cli.js', new Set()).size).toBe(2);
});
