// The esbuild options of the CLI's bundle, shared by the build and by the benchmark's profiled build.
import { readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { sdkStreamCheck } from './sdk-stream-check.mjs';

const { version } = JSON.parse(readFileSync(new URL('../package.json', import.meta.url), 'utf8'));
const SRC = fileURLToPath(new URL('../src/', import.meta.url));

/**
 * In the bundle, src/'s `import { … } from 'node:fs'` reads node:fs through require(). Node 24's ES-module wrapper of
 * node:fs reads every export, and its lazy ones (fs.promises, the streams) load about a dozen modules that a run does
 * not need at start-up, readline among them. The stand-in exports just the names src/ imports.
 */
const fsThroughRequire = {
  name: 'fs-through-require',
  setup(build) {
    const ours = ({ kind, importer }) => kind === 'import-statement' && importer.startsWith(SRC);
    const standIn = { path: 'node:fs', namespace: 'fs-through-require' };
    build.onResolve({ filter: /^(node:)?fs$/ }, (args) => (ours(args) ? standIn : undefined));
    build.onLoad({ filter: /.*/, namespace: 'fs-through-require' }, () => ({
      contents:
        "import { createRequire } from 'node:module';\n" +
        // process.getBuiltinModule (Node 20.16 and later) makes no require function, which costs a path's resolution.
        "const fs = process.getBuiltinModule?.('node:fs') ?? createRequire(import.meta.url)('node:fs');\n" +
        `export const { ${[...fsNamesImportedBySrc()].join(', ')} } = fs;\n`,
      loader: 'js',
      resolveDir: SRC,
    }));
  },
};

/**
 * commander requires node:child_process at load, for subcommands that are programs of their own; this CLI has none,
 * and a run needs child_process only for its first command, after the first request. The stand-in loads it on use.
 */
const commanderChildProcessOnUse = {
  name: 'commander-child-process-on-use',
  setup(build) {
    const fromCommander = ({ kind, importer }) =>
      kind === 'require-call' && importer.includes('/node_modules/commander/');
    const standIn = { path: 'node:child_process', namespace: 'child-process-on-use' };
    build.onResolve({ filter: /^(node:)?child_process$/ }, (args) => (fromCommander(args) ? standIn : undefined));
    build.onLoad({ filter: /.*/, namespace: 'child-process-on-use' }, () => ({
      contents: "module.exports = new Proxy({}, { get: (_, name) => require('node:child_process')[name] });\n",
      loader: 'js',
    }));
  },
};

/** Some bundled CommonJS dependencies call require(); the ESM bundle gives them one, in the chunks that name it. */
const REQUIRE_BANNER = "import { createRequire as __cr } from 'node:module'; const require = __cr(import.meta.url);";

/**
 * esbuild puts the banner on every chunk, but only a few use require() (the one with esbuild's require shim, say);
 * a run loads about twenty chunks before its first request, and each banner costs a resolution and a createRequire.
 * The banner stays where the chunk's code names require, and becomes an empty line elsewhere, so that source maps
 * still fit.
 */
const requireOnlyWhereUsed = {
  name: 'require-only-where-used',
  setup(build) {
    build.onEnd((result) => {
      // Only for a build written to disk; one kept in memory keeps its banners.
      if (result.errors.length > 0 || !result.metafile || build.initialOptions.write === false) return;
      const root = build.initialOptions.absWorkingDir ?? process.cwd();
      for (const output of Object.keys(result.metafile.outputs)) {
        if (!output.endsWith('.js')) continue;
        const path = resolve(root, output);
        const text = readFileSync(path, 'utf8');
        if (!text.startsWith(`${REQUIRE_BANNER}\n`)) continue;
        const code = text.slice(REQUIRE_BANNER.length);
        if (!/\brequire\b/.test(code)) writeFileSync(path, code);
      }
    });
  },
};

function fsNamesImportedBySrc() {
  const names = new Set();
  for (const file of readdirSync(SRC, { recursive: true })) {
    if (!String(file).endsWith('.ts')) continue;
    const text = readFileSync(join(SRC, String(file)), 'utf8');
    for (const [, list] of text.matchAll(/import\s*\{([^}]*)\}\s*from\s*'node:fs'/g)) {
      for (const item of list.split(',').map((part) => part.trim())) {
        if (item !== '' && !item.startsWith('type ')) names.add(item.split(/\s+/)[0]);
      }
    }
  }
  return names;
}

/** The entry chunk holds only what every run needs; the SDK, the spinner, the guard's parser and the executor are
 *  split into chunks that load on first use. */
export function bundleOptions({ outdir = 'dist', minify = true, sourcemap = false } = {}) {
  return {
    entryPoints: { cli: 'src/cli/main.ts' },
    outdir,
    bundle: true,
    splitting: true,
    format: 'esm',
    platform: 'node',
    target: 'node20',
    minify,
    sourcemap,
    legalComments: 'none',
    define: { AGENT_VERSION: JSON.stringify(version) },
    // The SDK's Headers, Response and FormData: light stand-ins, so that no run loads Node's fetch (undici).
    inject: ['./scripts/fetch-globals.mjs', './scripts/common-chunk.mjs'],
    // The proxy agents' debug output can carry credentials: see scripts/silent-debug.mjs.
    alias: { debug: './scripts/silent-debug.mjs' },
    banner: { js: REQUIRE_BANNER },
    plugins: [fsThroughRequire, commanderChildProcessOnUse, sdkStreamCheck, requireOnlyWhereUsed],
    logLevel: 'warning',
    metafile: true,
  };
}
