// Target classes of the built-in rules: paths whose loss breaks the machine or the user's
// home, paths that an unset variable turned into absolute ones, and disk devices.
import type { PathShape } from './path-shape.js';
import { BLOCK_DEVICE_PREFIXES } from './rules.js';
import type { TargetClass } from './rules.js';
import { wordPaths, type GuardWord } from './words.js';

const TESTS: Readonly<Record<TargetClass, (shape: PathShape | null) => boolean>> = {
  'critical-path': isCriticalPath,
  'block-device': isBlockDevice,
  'empty-variable-root': (shape) => shape?.emptyVariable !== undefined,
};

export function isTarget(targetClass: TargetClass, word: GuardWord): boolean {
  const test = TESTS[targetClass];
  return word.morePaths === undefined ? test(word.path) : wordPaths(word).some(test);
}

/**
 * `/`, `/*`, `//`, `/..`, any top-level directory (or its contents), `~`, `~/`, `~/*`,
 * `$HOME`, `${HOME}`, and anything above the home directory (`~/..`).
 */
function isCriticalPath(shape: PathShape | null): boolean {
  if (shape === null || shape.base === 'relative') return false;
  const segments = normalizeSegments(shape.rest, shape.base === 'home');
  if (segments === 'above-base') return true;
  // `dir/*` and `dir/.*` put everything in `dir` at stake, as `dir` itself does.
  while (segments.length > 0 && /^\.?\*+$/.test(segments[segments.length - 1] as string)) segments.pop();
  if (segments.length === 0) return true;
  // Every top-level directory counts, not only the well-known system ones: /tmp, /mnt, /srv, a container's /app.
  return shape.base === 'root' && segments.length === 1;
}

function isBlockDevice(shape: PathShape | null): boolean {
  if (shape === null || shape.base !== 'root') return false;
  const segments = normalizeSegments(shape.rest, false);
  if (segments === 'above-base') return false;
  const path = `/${segments.join('/')}`;
  return BLOCK_DEVICE_PREFIXES.some((prefix) => path.startsWith(prefix));
}

/**
 * Path segments with `.`, `..` and repeated slashes resolved. `..` above `/` stays at `/`;
 * above the home directory it leaves the home directory: 'above-base'.
 */
function normalizeSegments(rest: string, baseHasParent: boolean): string[] | 'above-base' {
  const segments: string[] = [];
  for (const segment of rest.split('/')) {
    if (segment === '' || segment === '.') continue;
    if (segment !== '..') segments.push(segment);
    else if (segments.length > 0) segments.pop();
    else if (baseHasParent) return 'above-base';
  }
  return segments;
}
