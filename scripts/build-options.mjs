// The esbuild options of the CLI's bundle, shared by the build and by the benchmark's profiled build.
import { readFileSync } from 'node:fs';

const { version } = JSON.parse(readFileSync(new URL('../package.json', import.meta.url), 'utf8'));

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
    inject: ['./scripts/fetch-globals.mjs'],
    // The proxy agents' debug output can carry credentials: see scripts/silent-debug.mjs.
    alias: { debug: './scripts/silent-debug.mjs' },
    // Some bundled CommonJS dependencies call require(); give the ESM bundle one.
    banner: { js: "import { createRequire as __cr } from 'node:module'; const require = __cr(import.meta.url);" },
    logLevel: 'warning',
    metafile: true,
  };
}
