// The working directory's repository under --sandbox. Git run on the host after the run (by the user, by the next CI
// step) runs programs that .git names: hooks, core.fsmonitor, core.hooksPath, filters, a gitdir or commondir file that
// points at another directory's config. So everything there that names a program or another git directory is shown
// read-only, and .git itself cannot be replaced (it is a mount point); objects, refs, the index and logs stay writable,
// so `git add` and `git commit` work. Such a name that does not exist yet (a repository without hooks) cannot be held
// by a mount without creating it: it is checked after every command instead, when nothing inside runs any more, and
// whatever appeared there is removed. A link (.git/hooks pointing elsewhere) is kept as it was in the same way. The
// directory that the repository's core.hooksPath names (often in the work tree) is held like .git/hooks.
import { lstatSync, readFileSync, readlinkSync, realpathSync, rmSync, symlinkSync } from 'node:fs';
import { dirname, isAbsolute, join, resolve } from 'node:path';
import type { Mount } from './sandbox-mount.js';

/**
 * What git reads in a git directory that can make it run a program, or look for its config elsewhere. Not info/:
 * git writes there (`git gc` updates info/refs), and its attributes only choose among the drivers a config defines.
 */
const GUARDED = ['config', 'config.worktree', 'hooks', 'modules', 'worktrees', 'commondir', 'gitdir'];

interface GitProtection {
  mounts: Mount[];
  /** Undoes what a command planted where no mount could hold; returns a note for each thing removed or restored. */
  afterCommand(): string[];
}

type Watch = { path: string; link: string | null };

/** The protection of the repository whose .git lies in `workDir` itself; none outside a repository. */
export function protectGitDir(workDir: string, home: string): GitProtection {
  const root = realpathSync(workDir);
  const entry = join(root, '.git');
  const kind = lstatSync(entry, { throwIfNoEntry: false });
  if (kind === undefined) return { mounts: [], afterCommand: () => [] };
  const mounts: Mount[] = [];
  let gitDir = entry;
  if (kind.isFile()) {
    // A worktree or a submodule: the file that says where the git directory is stays as it is.
    mounts.push(readOnly(entry));
    const pointed = pointedGitDir(entry);
    if (pointed === undefined) return { mounts, afterCommand: () => [] };
    gitDir = pointed;
  } else if (!kind.isDirectory()) {
    return { mounts: [], afterCommand: () => [] };
  }
  const watches: Watch[] = [];
  const commonDir = commonDirOf(gitDir);
  for (const dir of commonDir === gitDir ? [gitDir] : [commonDir, gitDir]) {
    mounts.push({ at: dir, flags: ['--bind', dir, dir] });
    for (const name of GUARDED) guard(join(dir, name), mounts, watches);
  }
  // Hooks kept in the working tree (core.hooksPath = .husky, say) run on the host as surely as .git/hooks.
  const hooksPath = configuredHooksPath(join(commonDir, 'config'), root, home);
  if (hooksPath !== undefined) guard(hooksPath, mounts, watches);
  return { mounts, afterCommand: () => watches.flatMap(restore) };
}

/** The repository's own core.hooksPath, resolved from the top of the work tree, as git resolves it. */
function configuredHooksPath(config: string, workTree: string, home: string): string | undefined {
  const match = /^\s*hookspath\s*=\s*("?)(.+?)\1\s*$/im.exec(readText(config) ?? '');
  if (!match) return undefined;
  const value = match[2]!;
  const expanded = value.startsWith('~/') ? join(home, value.slice(2)) : value;
  return isAbsolute(expanded) ? expanded : resolve(workTree, expanded);
}

function guard(path: string, mounts: Mount[], watches: Watch[]): void {
  const stat = lstatSync(path, { throwIfNoEntry: false });
  if (stat === undefined) {
    watches.push({ path, link: null });
  } else if (stat.isSymbolicLink()) {
    watches.push({ path, link: readlinkSync(path) });
    const target = realpathOr(path);
    if (target !== undefined) mounts.push(readOnly(target));
  } else {
    mounts.push(readOnly(path));
  }
}

/** Puts a watched name back as it was: removes what appeared, or the link's replacement, and makes the link again. */
function restore(watch: Watch): string[] {
  const stat = lstatSync(watch.path, { throwIfNoEntry: false });
  if (watch.link === null) {
    if (stat === undefined) return [];
    rmSync(watch.path, { recursive: true, force: true });
    return [`note: removed ${watch.path}, which the sandbox does not let a command create`];
  }
  if (stat?.isSymbolicLink() && readlinkSync(watch.path) === watch.link) return [];
  rmSync(watch.path, { recursive: true, force: true });
  symlinkSync(watch.link, watch.path);
  return [`note: restored the link ${watch.path}, which the sandbox does not let a command change`];
}

function pointedGitDir(file: string): string | undefined {
  const match = /^gitdir: (.+)$/m.exec(readText(file) ?? '');
  if (!match) return undefined;
  return realpathOr(resolve(dirname(file), match[1]!.trim()));
}

function commonDirOf(gitDir: string): string {
  const pointer = readText(join(gitDir, 'commondir'))?.trim();
  if (!pointer) return gitDir;
  return realpathOr(isAbsolute(pointer) ? pointer : resolve(gitDir, pointer)) ?? gitDir;
}

function readOnly(path: string): Mount {
  return { at: path, flags: ['--ro-bind', path, path] };
}

function readText(file: string): string | undefined {
  try {
    return readFileSync(file, 'utf8');
  } catch {
    return undefined;
  }
}

function realpathOr(path: string): string | undefined {
  try {
    return realpathSync(path);
  } catch {
    return undefined;
  }
}
