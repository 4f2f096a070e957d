// Builds the standalone binary: the CLI bundled into one CommonJS file, turned into a Node.js single executable
// application with its code cache, for the platform of the Node.js that builds it (linux-x64 in the release).
//
//   node scripts/build-binary.mjs [--node /path/to/node] [--out dir]
//
// It writes <out>/agent-<platform>-<arch> and <out>/agent-<platform>-<arch>.sha256 (default out: dist-binary/).
// A failed build leaves neither: a half-made binary must never pass for a release.
import { execFileSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { chmodSync, copyFileSync, mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { parseArgs } from 'node:util';
import { build } from 'esbuild';
import { bundleOptions } from './build-options.mjs';

const SEA_FUSE = 'NODE_SEA_FUSE_fce680ab2cc467b6e072b8b5df1996b2';
const root = resolve(import.meta.dirname, '..');
const { values } = parseArgs({ options: { node: { type: 'string' }, out: { type: 'string' } } });
const node = resolve(values.node ?? process.execPath);
const out = resolve(values.out ?? join(root, 'dist-binary'));

function nodeFacts() {
  try {
    const script = 'process.stdout.write(JSON.stringify([process.version, process.platform, process.arch]))';
    return JSON.parse(execFileSync(node, ['-e', script], { encoding: 'utf8', stdio: ['ignore', 'pipe', 'pipe'] }));
  } catch {
    throw new Error(`${node} is not a Node.js that can run: give --node the path of a Node.js binary`);
  }
}

// The binary is named for the platform it runs on; the old one goes first, whatever happens next.
const binary = join(out, `agent-${process.platform}-${process.arch}`);
const work = join(out, '.build');
const removeOutputs = () => {
  for (const path of [binary, `${binary}.sha256`, work]) rmSync(path, { recursive: true, force: true });
};
removeOutputs();
const [version, platform, arch] = nodeFacts();
if (platform !== process.platform || arch !== process.arch) throw new Error(`${node} is for ${platform}-${arch}; build on that platform`);
if (Number(version.slice(1).split('.')[0]) < 20) throw new Error(`${node} is Node.js ${version}; single executables need Node.js 20 or later`);
mkdirSync(work, { recursive: true });
try {
  const bundle = join(work, 'agent.cjs');
  const options = bundleOptions({ outdir: work });
  await build({
    ...options,
    entryPoints: [join(root, 'src/cli/standalone.ts')],
    outdir: undefined,
    outfile: bundle,
    splitting: false,
    format: 'cjs',
    absWorkingDir: root,
    metafile: false,
    // A single executable's require() loads Node's own modules only, which is all the bundle asks of it.
    banner: { js: "const __agent_url = require('node:url').pathToFileURL(__filename).href;" },
    define: { ...options.define, 'import.meta.url': '__agent_url' },
  });
  const blob = join(work, 'agent.blob');
  const config = join(work, 'sea-config.json');
  writeFileSync(config, JSON.stringify({ main: bundle, output: blob, disableExperimentalSEAWarning: true, useCodeCache: true }));
  execFileSync(node, ['--experimental-sea-config', config], { stdio: ['ignore', 'ignore', 'inherit'] });
  copyFileSync(node, binary);
  chmodSync(binary, 0o755);
  const { inject } = await import('postject');
  await inject(binary, 'NODE_SEA_BLOB', readFileSync(blob), { sentinelFuse: SEA_FUSE });
  const digest = createHash('sha256').update(readFileSync(binary)).digest('hex');
  writeFileSync(`${binary}.sha256`, `${digest}  agent-${platform}-${arch}\n`);
  rmSync(work, { recursive: true, force: true });
  process.stdout.write(`${binary} (Node.js ${version}, ${(readFileSync(binary).length / 1e6).toFixed(1)} MB)\n`);
} catch (error) {
  removeOutputs();
  throw error;
}
