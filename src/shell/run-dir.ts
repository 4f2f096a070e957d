// The run's private directory: spill files, the shell's bookkeeping, and under --sandbox the run's home and /tmp. A
// run killed outright cannot remove it, so a later run's sweep does (mark-registry.ts), which it can only for a
// directory a record names. So the record goes into the state directory before the directory is made, and comes out
// only after the directory has gone: at no moment is there a directory without its record. mkdtemp cannot do this, as
// it chooses the name only as it makes the directory; the name is drawn here the same way, six letters or digits.
import { lstatSync, mkdirSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { randomBytesFromKernel } from '../random.js';
import { registerMark, sweepDeadRuns } from './mark-registry.js';
import { newProcessMark, type ProcessMark } from './process-mark.js';
import { RUN_DIR_PREFIX } from './run-dir-name.js';

export interface MadeRunDir {
  path: string;
  /** What the run's commands carry, so that a later run finds them by the record too. */
  mark: ProcessMark;
  /** Removes the directory, then its record. Synchronous, idempotent. */
  remove(): void;
}

const LETTERS = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789';
const NAME_LENGTH = 6;
/** One name in 62^6 is drawn: a hundred taken in a row means something else is wrong with the directory. */
const ATTEMPTS = 100;

/**
 * Sweeps what dead runs left in `records` (the state directory's record of running runs), records this run, then
 * makes its directory in `parent`. Without `records` (no state directory) there is no record, and no sweep.
 */
export function makeRunDir(parent: string, records: string | undefined): MadeRunDir {
  if (records) sweepDeadRuns(records, parent);
  const mark = newProcessMark();
  for (let attempt = 0; attempt < ATTEMPTS; attempt++) {
    const path = join(parent, RUN_DIR_PREFIX + randomName());
    // A name in use is passed by before a record names it: a record must never name another's directory.
    if (lstatSync(path, { throwIfNoEntry: false }) !== undefined) continue;
    const unregister = records ? registerMark(records, mark, path) : () => {};
    try {
      mkdirSync(path, { mode: 0o700 });
    } catch (error) {
      unregister();
      if ((error as NodeJS.ErrnoException).code === 'EEXIST') continue;
      throw error;
    }
    // Both steps are idempotent (rm with force, a quiet unlink), so the whole is.
    const remove = () => {
      rmSync(path, { recursive: true, force: true });
      unregister();
    };
    return { path, mark, remove };
  }
  throw new Error(`cannot make the run's private directory in ${parent}: every name tried was taken`);
}

/** Six letters or digits, uniform: bytes past the last whole multiple of the alphabet's size are drawn again. */
function randomName(): string {
  const limit = 256 - (256 % LETTERS.length);
  let name = '';
  while (name.length < NAME_LENGTH) {
    for (const byte of randomBytesFromKernel(NAME_LENGTH * 2)) {
      if (byte < limit && name.length < NAME_LENGTH) name += LETTERS[byte % LETTERS.length];
    }
  }
  return name;
}
