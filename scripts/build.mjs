// Bundles the CLI into dist/ with esbuild. The entry chunk holds only what every run needs;
// the SDK, the spinner, the guard's parser and the executor are split into chunks that load on first use.
// The bundled packages' licences go to dist/THIRD-PARTY-LICENSES.txt, since the bundle keeps none of their comments.
import { build } from 'esbuild';
import { readFileSync, rmSync, writeFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { thirdPartyNotices } from './notices.mjs';

const { version } = JSON.parse(readFileSync(new URL('../package.json', import.meta.url), 'utf8'));

rmSync(new URL('../dist', import.meta.url), { recursive: true, force: true });
const { metafile } = await build({
  entryPoints: { cli: 'src/cli/main.ts' },
  outdir: 'dist',
  bundle: true,
  splitting: true,
  format: 'esm',
  platform: 'node',
  target: 'node20',
  minify: process.env.AGENT_BUILD_DEBUG ? false : true,
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
});
const root = fileURLToPath(new URL('..', import.meta.url));
writeFileSync(new URL('../dist/THIRD-PARTY-LICENSES.txt', import.meta.url), thirdPartyNotices(metafile, root));
