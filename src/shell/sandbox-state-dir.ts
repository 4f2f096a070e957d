// The state directory steers later runs (sessions to resume, records of processes to kill), so the host never trusts
// what a command could write there. When it lies inside a directory the sandbox shows writable at its own place (the
// working directory is the home, or XDG_STATE_HOME points into the checkout), it is shown read-only on top.
import { lstatSync, mkdirSync, realpathSync } from 'node:fs';
import { basename, dirname, join } from 'node:path';
import type { Mount } from './sandbox-mount.js';

/** The read-only mount that keeps the commands out of the state directory `root`, or none when they cannot reach it. */
export function protectStateDir(root: string, writableDirs: readonly string[]): Mount[] {
  const writable = writableDirs.map(realpathOr);
  const place = placeOf(root);
  if (place === undefined || !writable.some((dir) => isWithin(place, dir))) return [];
  makeIfMissing(place);
  const stat = lstatSync(place, { throwIfNoEntry: false });
  if (stat === undefined) return [];
  // A link or a file is not used by the host; a mount would land on what a link points to and leave the entry free
  // to be swapped for a directory the next run would trust, so the directory holding it is the one made read-only.
  const at = stat.isDirectory() ? place : dirname(place);
  return [{ at, flags: ['--ro-bind', at, at] }];
}

/** Where the state directory really is: its nearest existing parent resolved, the rest (its own name too) kept. */
function placeOf(root: string): string | undefined {
  let parent = dirname(root);
  const rest = [basename(root)];
  try {
    while (lstatSync(parent, { throwIfNoEntry: false }) === undefined && dirname(parent) !== parent) {
      rest.unshift(basename(parent));
      parent = dirname(parent);
    }
    return join(realpathSync(parent), ...rest);
  } catch {
    return undefined;
  }
}

/** Made as the host would make it (mode 0700, missing parents too), so that the mount has somewhere to land. */
function makeIfMissing(dir: string): void {
  try {
    mkdirSync(dir, { recursive: true, mode: 0o700 });
  } catch {
    // there already, or not to be made: lstat tells which
  }
}

function isWithin(path: string, dir: string): boolean {
  return path === dir || path.startsWith(dir === '/' ? '/' : `${dir}/`);
}

function realpathOr(path: string): string {
  try {
    return realpathSync(path);
  } catch {
    return path;
  }
}
