// Every relative link in the README and docs/ leads to a file that exists and, where it names an anchor, to a
// heading of that file (GitHub's anchor rules), so that moving a section never leaves a dead link behind.

import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { describe, expect, it } from 'vitest';

const ROOT = resolve(import.meta.dirname, '..');
const PAGES = [
  'README.md',
  ...readdirSync(join(ROOT, 'docs'))
    .filter((name) => name.endsWith('.md'))
    .map((name) => `docs/${name}`),
];

/** Text outside code fences and inline code, where links live. */
function prose(markdown: string): string {
  return markdown.replace(/^```[\s\S]*?^```/gm, '').replace(/`[^`\n]*`/g, (code) => (code.includes('](') ? '' : code));
}

/** GitHub's anchors: lower case, punctuation other than - and _ dropped, spaces as -, repeats numbered. */
function anchorsOf(markdown: string): Set<string> {
  const anchors = new Set<string>();
  const seen = new Map<string, number>();
  for (const [, heading] of markdown.replace(/^```[\s\S]*?^```/gm, '').matchAll(/^#{1,6} (.+)$/gm)) {
    const slug = heading!
      .trim()
      .toLowerCase()
      .replace(/[^\p{L}\p{N}\s_-]/gu, '')
      .replace(/\s/g, '-');
    const count = seen.get(slug) ?? 0;
    seen.set(slug, count + 1);
    anchors.add(count === 0 ? slug : `${slug}-${count}`);
  }
  return anchors;
}

describe('the README and docs/', () => {
  it.each(PAGES)('%s: every relative link and anchor resolves', (page) => {
    const text = readFileSync(join(ROOT, page), 'utf8');
    const dead: string[] = [];
    for (const [, target] of prose(text).matchAll(/\]\(([^)\s]+)\)/g)) {
      if (/^[a-z]+:/i.test(target!)) continue;
      const [path, anchor] = target!.split('#') as [string, string | undefined];
      const file = path === '' ? join(ROOT, page) : resolve(ROOT, dirname(page), path);
      if (!existsSync(file)) dead.push(`${target}: no such file`);
      else if (anchor !== undefined && file.endsWith('.md') && !anchorsOf(readFileSync(file, 'utf8')).has(anchor))
        dead.push(`${target}: no such heading`);
    }
    expect(dead).toEqual([]);
  });

  it('the README stays a page a newcomer reads: about 400 lines at most', () => {
    expect(readFileSync(join(ROOT, 'README.md'), 'utf8').split('\n').length).toBeLessThanOrEqual(420);
  });
});
