// A run killed with SIGKILL cannot kill its commands nor remove its private directory: nothing of it runs any more.
// So a run leaves its process mark and that directory's path in a small file for as long as it lives, and every run
// sweeps at start-up: a file whose run is gone has its marked processes killed and its directory removed, then goes.
// Files of live runs (many runs go at once) are left alone, and so is any file that is not a record as a run writes
// it (run-record.ts).
// Everything is best effort and synchronous: a registry that cannot be written only loses this safety net.
import { readdirSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { killMarked, processStartTicks, type ProcessMark } from './process-mark.js';
import { removeQuietly } from './remove-quietly.js';
import { isOwnDirectory, readRunRecord, recordFileName, type RunRecord } from './run-record.js';

export { RUN_DIR_PREFIX } from './run-record.js';

/** Records this process's mark under `dir`; returns the function that removes the record again. */
export function registerMark(dir: string, mark: ProcessMark, runDir: string): () => void {
  const started = startTime(process.pid);
  if (started === undefined) return () => {};
  const file = join(dir, recordFileName(process.pid, started));
  try {
    // A new file (O_EXCL): never written through a link planted under its name.
    writeFileSync(file, JSON.stringify({ pid: process.pid, started, mark, runDir } satisfies RunRecord), {
      mode: 0o600,
      flag: 'wx',
    });
  } catch {
    return () => {};
  }
  return () => removeQuietly(file);
}

/**
 * Kills what runs that are gone left running, and forgets them. `runsParent` is where runs make their private
 * directories; a record naming one elsewhere is not acted on. Returns how many processes were signalled.
 */
export function sweepDeadRuns(dir: string, runsParent: string): number {
  let names: string[];
  try {
    names = readdirSync(dir);
  } catch {
    return 0;
  }
  let killed = 0;
  for (const name of names) {
    const record = readRunRecord(join(dir, name), runsParent);
    if (record === undefined || startTime(record.pid) === record.started) continue;
    killed += killMarked(record.mark, Number(record.started));
    if (record.runDir && isOwnDirectory(record.runDir)) rmSync(record.runDir, { recursive: true, force: true });
    removeQuietly(join(dir, name));
  }
  return killed;
}

/** When the process started, as a run's record keeps it; undefined when there is no such process (or no /proc). */
function startTime(pid: number): string | undefined {
  const ticks = processStartTicks(pid);
  return ticks === undefined ? undefined : String(ticks);
}
