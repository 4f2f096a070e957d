// Relative paths judged where they will land. The guard is told the directory a command starts in,
// and follows literal `cd` commands through the command line, so `cd / && rm -rf *` reads as `rm -rf /*`.
import { posix } from 'node:path';
import type { Finding } from './walk.js';
import { wordPaths, type GuardWord, type PathShape } from './words.js';
import { commandName } from './wrappers.js';

/**
 * The finding with every relative path resolved against `cwd`, the directory it runs in, as far as that is known
 * (null: not known).
 */
export function placeFinding(finding: Finding, cwd: string | null, home: string): Finding {
  if (finding.kind === 'redirect') return { ...finding, target: resolveWord(finding.target, cwd, home) };
  if (finding.kind !== 'invocation') return finding;
  return { ...finding, layers: finding.layers.map((words) => words.map((word) => resolveWord(word, cwd, home))) };
}

/**
 * The directory the commands after the finding run in: a `cd` to something the guard cannot read (`cd "$DIR"`,
 * `cd -`) makes later relative paths unknowable again.
 */
export function directoryAfter(finding: Finding, cwd: string | null, home: string): string | null {
  if (finding.kind !== 'invocation') return cwd;
  const innermost = finding.layers.at(-1) ?? [];
  const name = commandName(innermost[0]);
  return name === 'cd' || name === 'pushd' ? afterCd(innermost.slice(1), cwd, home) : cwd;
}

function resolveWord(word: GuardWord, cwd: string | null, home: string): GuardWord {
  if (cwd === null) return word;
  if (word.morePaths !== undefined) {
    const [path = null, ...morePaths] = wordPaths(word).map((shape) => resolveShape(shape, cwd, home));
    return { ...word, path, morePaths };
  }
  if (word.path?.base !== 'relative') return word;
  return { ...word, path: resolveShape(word.path, cwd, home) };
}

function resolveShape(shape: PathShape | null, cwd: string, home: string): PathShape | null {
  return shape?.base === 'relative' ? shapeOf(posix.join(cwd, shape.rest), home) : shape;
}

/** `absolute` and `home` are normalized, so a prefix test tells whether the path lies in the home directory. */
function shapeOf(absolute: string, home: string): PathShape {
  if (home !== '/' && (absolute === home || absolute.startsWith(`${home}/`))) {
    const rest = absolute.slice(home.length);
    return { base: 'home', rest: rest === '/' ? '' : rest };
  }
  return { base: 'root', rest: absolute };
}

function afterCd(args: readonly GuardWord[], cwd: string | null, home: string): string | null {
  const operand = args.find((word) => !word.value.startsWith('-') || word.value === '-');
  if (operand === undefined) return home;
  const shape = operand.path;
  if (shape === null || operand.value === '-' || /[*?[]/.test(shape.rest)) return null;
  if (shape.base === 'home') return posix.join(home, shape.rest);
  if (shape.base === 'root') return posix.normalize(shape.rest);
  return cwd === null ? null : posix.join(cwd, shape.rest);
}
