import { statSync } from 'node:fs';
import { dirname, join, relative, sep } from 'node:path';

/**
 * The top of the git work tree holding `cwd` (a real, absolute path): the nearest directory, `cwd` included, that
 * has a `.git` directory or file (a linked work tree or a submodule has a file). Found without running git, which
 * would cost a process at every start. Undefined outside any work tree.
 *
 * When `cwd` is inside `home`, the search stops at `home`: a `.git` above the home directory (one at `/`, say) is
 * not the user's project, and the files beside it may belong to anyone.
 */
export function findWorkTreeRoot(cwd: string, home: string | undefined): string | undefined {
  const ceiling = home && home !== sep && isInside(cwd, home) ? home : undefined;
  for (let dir = cwd; ; dir = dirname(dir)) {
    if (hasGitEntry(dir)) return dir;
    if (dir === ceiling || dirname(dir) === dir) return undefined;
  }
}

function hasGitEntry(dir: string): boolean {
  try {
    const stats = statSync(join(dir, '.git'), { throwIfNoEntry: false });
    return stats !== undefined && (stats.isDirectory() || stats.isFile());
  } catch {
    // A directory that cannot be searched holds no work tree we could read from.
    return false;
  }
}

/** `path` is `dir` or below it; both absolute and normalised. */
export function isInside(path: string, dir: string): boolean {
  const rel = relative(dir, path);
  return rel === '' || (!rel.startsWith(`..${sep}`) && rel !== '..' && !rel.startsWith(sep));
}

/** The directories from `root` down to `cwd`, root first; `cwd` must be inside `root`. */
export function directoriesDown(root: string, cwd: string): string[] {
  const dirs: string[] = [];
  for (let dir = cwd; ; dir = dirname(dir)) {
    dirs.unshift(dir);
    if (dir === root || dirname(dir) === dir) return dirs;
  }
}
