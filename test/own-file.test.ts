// Reading a file others may have planted (the shell's directory record, the state directory's files): only a regular
// file of this user's, never through a link, never waiting on a FIFO, bounded, and nothing of an earlier read in it.
import { spawnSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, realpathSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { readOwnFile } from '../src/own-file.js';

const dirs: string[] = [];
function scratch(): string {
  const dir = realpathSync(mkdtempSync(join(tmpdir(), 'agent-own-file-')));
  dirs.push(dir);
  return dir;
}
afterEach(() => {
  for (const dir of dirs.splice(0)) rmSync(dir, { recursive: true, force: true });
});

describe('readOwnFile', () => {
  it('reads each file as it is: a short one after a long one holds none of the long one', () => {
    const dir = scratch();
    writeFileSync(join(dir, 'long'), `${'x'.repeat(5_000)}\0tail`);
    writeFileSync(join(dir, 'short'), '/a\0');
    writeFileSync(join(dir, 'empty'), '');
    expect(readOwnFile(join(dir, 'long'), 64 * 1024)).toBe(`${'x'.repeat(5_000)}\0tail`);
    expect(readOwnFile(join(dir, 'short'), 64 * 1024)).toBe('/a\0');
    expect(readOwnFile(join(dir, 'empty'), 64 * 1024)).toBe('');
    expect(readOwnFile(join(dir, 'long'), 10)).toBe('xxxxxxxxxx');
    expect(readOwnFile(join(dir, 'short'))).toBe('/a\0');
  });

  it('reads nothing through a link, from a FIFO (without waiting) or a directory', () => {
    const dir = scratch();
    writeFileSync(join(dir, 'real'), '/real\0');
    symlinkSync(join(dir, 'real'), join(dir, 'link'));
    expect(spawnSync('mkfifo', [join(dir, 'fifo')]).status).toBe(0);
    mkdirSync(join(dir, 'dir'));
    for (const name of ['link', 'fifo', 'dir', 'missing'])
      expect(readOwnFile(join(dir, name), 64 * 1024)).toBeUndefined();
  });
});
