// Bundles the CLI into dist/ with esbuild (options: scripts/build-options.mjs).
// The bundled packages' licences go to dist/THIRD-PARTY-LICENSES.txt, since the bundle keeps none of their comments.
import { build } from 'esbuild';
import { rmSync, writeFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { bundleOptions } from './build-options.mjs';
import { thirdPartyNotices } from './notices.mjs';

rmSync(new URL('../dist', import.meta.url), { recursive: true, force: true });
const { metafile } = await build(bundleOptions({ minify: !process.env.AGENT_BUILD_DEBUG }));
const root = fileURLToPath(new URL('..', import.meta.url));
writeFileSync(new URL('../dist/THIRD-PARTY-LICENSES.txt', import.meta.url), thirdPartyNotices(metafile, root));
