import { lstatSync, statSync, type Stats } from 'node:fs';
import { dirname, join, relative, sep } from 'node:path';

/**
 * The top of the git work tree holding `cwd` (a real, absolute path): the nearest directory, `cwd` included, that
 * has a `.git` directory or file (a linked work tree or a submodule has a file). Found without running git, which
 * would cost a process at every start. Undefined outside any work tree.
 *
 * When `cwd` is inside `home`, the search stops at `home`: a `.git` above the home directory (one at `/`, say) is
 * not the user's project, and the files beside it may belong to anyone. As git's safe.directory does, a `.git` is
 * taken only when the user owns it, and the search never climbs into a directory another user owns or that others
 * may write to (`/tmp`): a `.git` and an AGENTS.md planted there by someone else would otherwise be read.
 */
export function findWorkTreeRoot(cwd: string, home: string | undefined): string | undefined {
  const ceiling = home && home !== sep && isInside(cwd, home) ? home : undefined;
  for (let dir = cwd; ; dir = dirname(dir)) {
    if (hasOwnGitEntry(dir)) return dir;
    if (dir === ceiling || dirname(dir) === dir || !isOwnDirectory(dirname(dir))) return undefined;
  }
}

const uid = process.getuid?.();

/** Owned by the user (always true where there are no user ids). */
export function ownedByUser(stats: Stats): boolean {
  return uid === undefined || stats.uid === uid;
}

function hasOwnGitEntry(dir: string): boolean {
  try {
    const stats = lstatSync(join(dir, '.git'), { throwIfNoEntry: false });
    return stats !== undefined && (stats.isDirectory() || stats.isFile()) && ownedByUser(stats);
  } catch {
    // A directory that cannot be searched holds no work tree we could read from.
    return false;
  }
}

/** A directory the user owns and others may not write to. */
function isOwnDirectory(dir: string): boolean {
  try {
    const stats = statSync(dir);
    return ownedByUser(stats) && (stats.mode & 0o002) === 0;
  } catch {
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
