// esbuild plugin: the SDK client's `globalThis.ReadableStream && x instanceof globalThis.ReadableStream` becomes
// isWebReadableStream(x) (src/api/web-stream-check.ts), which gives the same answer without loading Node's web
// streams for the plain bodies a run sends.
import { readFileSync } from 'node:fs';
import { dirname } from 'node:path';
import { fileURLToPath } from 'node:url';

const HELPER = fileURLToPath(new URL('../src/api/web-stream-check.ts', import.meta.url));
const CHECK = /globalThis\.ReadableStream\s*&&\s*([\w.]+)\s+instanceof\s+globalThis\.ReadableStream/g;
/** The checks in the SDK's client: a new SDK with more or fewer fails the build, to be looked at, not guessed. */
const EXPECTED_CHECKS = 4;

export const sdkStreamCheck = {
  name: 'sdk-stream-check',
  setup(build) {
    build.onLoad({ filter: /[\\/]@anthropic-ai[\\/]sdk[\\/]client\.mjs$/ }, ({ path }) => {
      const source = readFileSync(path, 'utf8');
      const found = source.match(CHECK)?.length ?? 0;
      if (found !== EXPECTED_CHECKS) {
        throw new Error(`sdk-stream-check: ${path} has ${found} ReadableStream checks, not ${EXPECTED_CHECKS}`);
      }
      const contents =
        `import { isWebReadableStream as __isWebReadableStream } from ${JSON.stringify(HELPER)};\n` +
        source.replace(CHECK, (_, value) => `__isWebReadableStream(${value})`);
      return { contents, loader: 'js', resolveDir: dirname(path) };
    });
  },
};
