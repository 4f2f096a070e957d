// The licence notices of every package bundled into dist/, gathered from esbuild's metafile: the bundle keeps none
// of their comments, so their licences ship beside it in one file.
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';

// LICENSE, LICENCE.txt, COPYING.md, and the suffixed names of dual licences (LICENSE-MIT, LICENSE-APACHE, LICENSE.BSD).
const LICENSE_FILE = /^(licen[cs]e|copying|notice)([-._][\w-]+)*$/i;
const CODE_FILE = /\.(c|m)?(js|ts)$|\.json$|\.map$/i;

/** The package directories (node_modules/<name> or node_modules/@scope/<name>) that the bundle's inputs came from. */
function bundledPackages(metafile) {
  const dirs = new Set();
  for (const output of Object.values(metafile.outputs)) {
    for (const [input, { bytesInOutput }] of Object.entries(output.inputs)) {
      const match = /^(.*node_modules\/(?:@[^/]+\/)?[^/]+)\//.exec(input);
      if (match && bytesInOutput > 0) dirs.add(match[1]);
    }
  }
  return [...dirs];
}

function noticeOf(dir) {
  const pkg = JSON.parse(readFileSync(join(dir, 'package.json'), 'utf8'));
  const files = readdirSync(dir)
    .filter((name) => LICENSE_FILE.test(name) && !CODE_FILE.test(name))
    .sort();
  const texts = files.map((name) => readFileSync(join(dir, name), 'utf8').trim());
  const licence = typeof pkg.license === 'string' ? pkg.license : (pkg.license?.type ?? 'see below');
  if (texts.length === 0) {
    const author = typeof pkg.author === 'string' ? pkg.author : (pkg.author?.name ?? 'its authors');
    texts.push(
      `The package ships no licence file. Its package.json declares the ${licence} licence, copyright ${author}.`,
    );
  }
  return { name: pkg.name, version: pkg.version, licence, text: texts.join('\n\n') };
}

/** The text of THIRD-PARTY-LICENSES.txt for a build's metafile. */
export function thirdPartyNotices(metafile, root) {
  const notices = bundledPackages(metafile)
    .filter((dir) => existsSync(join(root, dir, 'package.json')))
    .map((dir) => noticeOf(join(root, dir)))
    .sort((a, b) => a.name.localeCompare(b.name));
  const seen = new Set();
  const unique = notices.filter((notice) => !seen.has(notice.name) && seen.add(notice.name));
  const header =
    'dist/ bundles the following packages. Their licences and copyright notices follow.\n\n' +
    unique.map((notice) => `- ${notice.name} ${notice.version} (${notice.licence})`).join('\n');
  const bodies = unique.map(
    (notice) =>
      `${'='.repeat(78)}\n${notice.name} ${notice.version} (${notice.licence})\n${'='.repeat(78)}\n\n${notice.text}`,
  );
  return `${header}\n\n${bodies.join('\n\n')}\n`;
}
