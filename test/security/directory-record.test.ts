// The shell's directory record lies where the commands can write. Whatever a command puts in its place (a link to a
// file that names another directory, a FIFO, a file moved over it), the host reads only a regular file of its user,
// never through a link, never waiting; and what it reads is the record as the shell last wrote it.
import { spawnSync } from 'node:child_process';
import { mkdtempSync, realpathSync, renameSync, rmSync, symlinkSync, unlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { DirectoryRecord } from '../../src/shell/directory-record.js';

const dirs: string[] = [];
const records: DirectoryRecord[] = [];
function setUp() {
  const dir = realpathSync(mkdtempSync(join(tmpdir(), 'agent-record-')));
  dirs.push(dir);
  const file = join(dir, 'cwd');
  const record = new DirectoryRecord(file);
  records.push(record);
  // As the shell writes it: over the start of the file, never truncating it.
  const shellWrites = (where: string) =>
    expect(spawnSync('bash', ['--norc', '-c', `builtin printf '%s\\0' "$1" 1<> "$2"`, '-', where, file]).status).toBe(
      0,
    );
  return { dir, file, record, shellWrites };
}
afterEach(() => {
  for (const record of records.splice(0)) record.close();
  for (const dir of dirs.splice(0)) rmSync(dir, { recursive: true, force: true });
});

describe('the directory record', () => {
  it('is read again after each command, as the shell wrote it over the start of the file', () => {
    const { record, shellWrites } = setUp();
    expect(record.read()).toBeNull();
    shellWrites('/a/longer/directory');
    expect(record.read()).toBe('/a/longer/directory');
    shellWrites('/b');
    expect(record.read()).toBe('/b');
  });

  it('replaced by a link to a file that names another directory: not followed', () => {
    const { dir, file, record, shellWrites } = setUp();
    shellWrites('/first');
    expect(record.read()).toBe('/first');
    writeFileSync(join(dir, 'planted'), '/etc\0');
    unlinkSync(file);
    symlinkSync(join(dir, 'planted'), file);
    expect(record.read()).toBeNull();
  });

  it('kept under another name, then a link put in its place: the record is read, never the link', () => {
    const { dir, file, record, shellWrites } = setUp();
    shellWrites('/first');
    expect(record.read()).toBe('/first');
    spawnSync('ln', [file, join(dir, 'kept')]);
    writeFileSync(join(dir, 'planted'), '/etc\0');
    unlinkSync(file);
    symlinkSync(join(dir, 'planted'), file);
    expect(record.read()).toBe('/first');
  });

  it('removed, or a file moved over it: the new file is the record, and a FIFO in its place is not waited on', () => {
    const { dir, file, record, shellWrites } = setUp();
    shellWrites('/first');
    expect(record.read()).toBe('/first');
    unlinkSync(file);
    shellWrites('/second');
    expect(record.read()).toBe('/second');
    writeFileSync(join(dir, 'moved'), '/third\0');
    renameSync(join(dir, 'moved'), file);
    expect(record.read()).toBe('/third');
    unlinkSync(file);
    expect(spawnSync('mkfifo', [file]).status).toBe(0);
    expect(record.read()).toBeNull();
  });
});
