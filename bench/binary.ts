// The standalone binary's figures: it is built here (with Node 24 where the benchmark has it, as the release does),
// then its start-up is measured against `node -e 0` in the same rounds.

import { execFileSync } from 'node:child_process';
import { statSync } from 'node:fs';
import { join, resolve } from 'node:path';
import type { Figure } from './figures.js';
import { measureStartup } from './startup.js';

const BINARY_TARGET = 1.5;

export async function measureBinary(options: {
  nodeBinDir: string | undefined;
  repetitions: number;
  tmp: string;
}): Promise<Figure[]> {
  const out = join(options.tmp, 'binary');
  const node = options.nodeBinDir ? join(options.nodeBinDir, 'node') : process.execPath;
  const built = execFileSync(
    process.execPath,
    [resolve(import.meta.dirname, '../scripts/build-binary.mjs'), '--node', node, '--out', out],
    {
      encoding: 'utf8',
      stdio: ['ignore', 'pipe', 'ignore'],
    },
  );
  const path = built.trim().split('\n').at(-1)!.split(' ')[0]!;
  const figures = await measureStartup({
    repetitions: options.repetitions,
    warmups: 1,
    tmp: options.tmp,
    agent: { path, name: 'standalone binary', firstRequestTarget: BINARY_TARGET },
    // The floor is the `node -e 0` of the Node.js inside the binary.
    ...(options.nodeBinDir
      ? { node: { binDir: options.nodeBinDir, name: 'Node 24', firstRequestTarget: BINARY_TARGET } }
      : {}),
  });
  const sizeMb = statSync(path).size / 1e6;
  return [
    ...figures.filter((figure) => !figure.id.startsWith('node_floor')),
    {
      id: 'binary_size',
      label: 'standalone binary: size',
      value: sizeMb,
      unit: 'MB',
      target: '(context)',
      pass: undefined,
      detail: `${path.split('/').at(-1)}, built by scripts/build-binary.mjs with ${execFileSync(node, ['--version'], { encoding: 'utf8' }).trim()}`,
      data: { bytes: statSync(path).size },
    },
  ];
}
