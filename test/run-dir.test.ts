// The run's private directory and its record (src/shell/run-dir.ts): the record names the directory before it exists
// and outlives it; killed-anywhere.test.ts kills a run in each gap through the binary.
import { existsSync, mkdirSync, readdirSync, readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { makeRunDir } from '../src/shell/run-dir.js';
import { RUN_DIR_NAME } from '../src/shell/run-dir-name.js';
import { tempDir } from './support/run-agent.js';

function place(): { parent: string; records: string } {
  const root = tempDir('agent-rundir-test-');
  const records = join(root, 'running');
  mkdirSync(records);
  return { parent: root, records };
}

describe('makeRunDir', () => {
  it('makes a private directory named like mkdtemp would, which the record names with the mark', () => {
    const { parent, records } = place();
    const made = makeRunDir(parent, records);
    expect(RUN_DIR_NAME.test(made.path.slice(parent.length + 1))).toBe(true);
    expect(statSync(made.path).mode & 0o777).toBe(0o700);
    const [file] = readdirSync(records);
    expect(JSON.parse(readFileSync(join(records, file!), 'utf8'))).toMatchObject({
      pid: process.pid,
      runDir: made.path,
      mark: made.mark,
    });
    made.remove();
    expect(existsSync(made.path)).toBe(false);
    expect(readdirSync(records)).toEqual([]);
    made.remove();
  });

  it('draws a new name every time', () => {
    const { parent } = place();
    const paths = Array.from({ length: 50 }, () => makeRunDir(parent, undefined).path);
    expect(new Set(paths).size).toBe(50);
    expect(readdirSync(parent).filter((name) => RUN_DIR_NAME.test(name))).toHaveLength(50);
  });

  it('leaves no record when the directory cannot be made', () => {
    const { parent, records } = place();
    expect(() => makeRunDir(join(parent, 'missing'), records)).toThrow(/ENOENT/);
    expect(readdirSync(records)).toEqual([]);
  });
});
