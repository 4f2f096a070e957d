// Builds the standalone binary: a Node.js single executable application, for the platform of the Node.js that builds
// it (linux-x64 in the release). Inside: the CLI bundled into one CommonJS function (an asset), V8's code cache for it
// made by one run of that bundle with that Node.js (scripts/sea-train.mjs), and a small entry point that answers
// --version and otherwise compiles the CLI with the cache (src/cli/standalone.ts).
//
//   node scripts/build-binary.mjs [--node /path/to/node] [--out dir]
//
// It writes <out>/agent-<platform>-<arch> and <out>/agent-<platform>-<arch>.sha256 (default out: dist-binary/).
// A failed build leaves neither: a half-made binary must never pass for a release.
import { execFileSync, spawnSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { chmodSync, copyFileSync, existsSync, mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
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
if (platform !== process.platform || arch !== process.arch)
  throw new Error(`${node} is for ${platform}-${arch}; build on that platform`);
const [major, minor] = version.slice(1).split('.').map(Number);
if (major < 20 || (major === 20 && minor < 12)) {
  throw new Error(`${node} is Node.js ${version}; single executables with assets need Node.js 20.12 or later`);
}
mkdirSync(work, { recursive: true });
try {
  const cli = await bundleCli();
  const cache = trainCodeCache(cli);
  const entry = await bundleEntry();
  const blob = join(work, 'agent.blob');
  const config = join(work, 'sea-config.json');
  const assets = { 'cli.js': cli, 'cli.cache': cache };
  // Semi-spaces of 8 MB from the start: the young generation is no longer collected twice before the first request.
  // (Node.js 24 reads execArgv; Node.js 20 ignores it.)
  const execArgv = ['--min-semi-space-size=8'];
  const seaConfig = { main: entry, output: blob, useCodeCache: true, assets, execArgv };
  writeFileSync(config, JSON.stringify({ ...seaConfig, disableExperimentalSEAWarning: true }));
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

/** The CLI as the body of a CommonJS module function, so that the entry point can compile it as a script of its own. */
async function bundleCli() {
  const bundle = join(work, 'cli.cjs');
  const options = bundleOptions({ outdir: work });
  await build({
    ...options,
    entryPoints: [join(root, 'src/cli/main.ts')],
    outdir: undefined,
    outfile: bundle,
    splitting: false,
    format: 'cjs',
    // import() of Node's own modules (node:https) as require(): the compiled script has no module loader to ask.
    supported: { 'dynamic-import': false },
    absWorkingDir: root,
    metafile: false,
    banner: { js: "const __agent_url = require('node:url').pathToFileURL(__filename).href;" },
    define: { ...options.define, 'import.meta.url': '__agent_url' },
  });
  const source = readFileSync(bundle, 'utf8');
  // ASCII, so that the entry point reads it as latin1, a plain copy, where UTF-8 decoding would cost milliseconds.
  const nonAscii = /[^\x00-\x7f]/.exec(source);
  if (nonAscii) {
    const around = source.slice(Math.max(0, nonAscii.index - 40), nonAscii.index + 40);
    const character = JSON.stringify(nonAscii[0]);
    throw new Error(`the CLI's bundle holds ${character}, left unescaped by esbuild, in: ${around}\nwrite it as \\u`);
  }
  const wrapped = join(work, 'cli.js');
  writeFileSync(wrapped, `(function (require, module, exports, __filename, __dirname) {${source}\n})`);
  return wrapped;
}

/** One run of the CLI in an empty home, with nothing of the builder's environment but PATH. */
function trainCodeCache(cli) {
  const cache = join(work, 'cli.cache');
  const home = join(work, 'home');
  mkdirSync(home);
  const env = {
    PATH: process.env.PATH ?? '/usr/bin:/bin',
    HOME: home,
    TMPDIR: home,
    XDG_STATE_HOME: join(home, 'state'),
    XDG_CACHE_HOME: join(home, 'cache'),
    LANG: 'C.UTF-8',
    ANTHROPIC_API_KEY: 'sk-ant-train',
  };
  const train = join(root, 'scripts/sea-train.mjs');
  const stdio = ['ignore', 'ignore', 'pipe'];
  const run = spawnSync(node, [train, cli, cache], { cwd: home, env, stdio, encoding: 'utf8', timeout: 60_000 });
  if (run.status !== 0 || !existsSync(cache)) {
    throw new Error(`the training run of the CLI failed (exit ${run.status ?? run.signal}):\n${run.stderr}`);
  }
  // The cache must fit this Node.js and this source, or the binary would silently run without it.
  const check =
    "const vm = require('node:vm'), fs = require('node:fs');" +
    "const source = fs.readFileSync(process.argv[1], 'latin1'), cachedData = fs.readFileSync(process.argv[2]);" +
    'const script = new vm.Script(source, { cachedData });' +
    'process.exit(script.cachedDataRejected ? 1 : 0);';
  try {
    execFileSync(node, ['-e', check, cli, cache], { stdio: 'ignore' });
  } catch {
    throw new Error(`${node} refused the code cache it made`);
  }
  return cache;
}

/** The binary's entry point: the --version answer and the loader of the CLI. */
async function bundleEntry() {
  const entry = join(work, 'entry.cjs');
  const options = bundleOptions({ outdir: work });
  await build({
    entryPoints: [join(root, 'src/cli/standalone.ts')],
    outfile: entry,
    bundle: true,
    format: 'cjs',
    platform: 'node',
    target: options.target,
    minify: true,
    define: options.define,
    absWorkingDir: root,
    logLevel: 'warning',
  });
  return entry;
}
