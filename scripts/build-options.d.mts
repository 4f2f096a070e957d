import type { BuildOptions } from 'esbuild';

export function bundleOptions(options?: {
  outdir?: string;
  minify?: boolean;
  sourcemap?: BuildOptions['sourcemap'];
}): BuildOptions & { metafile: true };
