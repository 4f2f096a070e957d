// The third-party licence notices (scripts/notices.mjs, run by the build): every licence file a bundled package
// ships is in them, whatever its name's suffix (LICENSE-MIT beside LICENSE-APACHE, LICENCE.txt, COPYING, …).
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { tempDir } from './support/run-agent.js';

// @ts-expect-error: a plain JavaScript build script, without type declarations
const { thirdPartyNotices } = (await import('../scripts/notices.mjs')) as {
  thirdPartyNotices: (metafile: unknown, root: string) => string;
};

function packageWith(root: string, name: string, files: Record<string, string>): string {
  const dir = join(root, 'node_modules', name);
  mkdirSync(dir, { recursive: true });
  writeFileSync(join(dir, 'package.json'), JSON.stringify({ name, version: '1.0.0', license: '(MIT OR Apache-2.0)' }));
  for (const [file, text] of Object.entries(files)) writeFileSync(join(dir, file), text);
  return `node_modules/${name}/index.js`;
}

describe('thirdPartyNotices', () => {
  it('takes in every licence file of a bundled package, LICENSE-MIT included, and no code file', () => {
    const root = tempDir();
    const inputs = {
      [packageWith(root, 'dual', {
        'LICENSE-MIT': 'MIT text of dual',
        'LICENSE-APACHE': 'Apache text of dual',
        'license.js': 'code',
      })]: { bytesInOutput: 10 },
      [packageWith(root, 'british', {
        'LICENCE.txt': 'licence text of british',
        'COPYING.md': 'copying text of british',
      })]: { bytesInOutput: 10 },
    };
    const text = thirdPartyNotices({ outputs: { 'dist/cli.js': { inputs } } }, root);
    for (const expected of [
      'MIT text of dual',
      'Apache text of dual',
      'licence text of british',
      'copying text of british',
    ])
      expect(text).toContain(expected);
    expect(text).not.toContain('code');
    expect(text).not.toContain('ships no licence file');
  });
});
