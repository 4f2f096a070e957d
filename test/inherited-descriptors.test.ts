// Which descriptors the agent hands down to the shells it starts, read from /proc, and the prologue that closes them:
// exactly those when they are known, every one the shell finds when they are not.
import { spawnSync } from 'node:child_process';
import { closeSync, mkdirSync, openSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { descriptorsWithoutCloseOnExec } from '../src/shell/inherited-descriptors.js';
import { shellFiles, writePrologue } from '../src/shell/prologue.js';
import { tempDir } from './support/run-agent.js';

/** A /proc/self look-alike: one fd entry and one fdinfo file per descriptor; null flags leaves the fdinfo out. */
function fakeProc(descriptors: Record<string, string | null>): string {
  const self = tempDir('agent-proc-');
  mkdirSync(join(self, 'fd'));
  mkdirSync(join(self, 'fdinfo'));
  for (const [name, flags] of Object.entries(descriptors)) {
    writeFileSync(join(self, 'fd', name), '');
    if (flags !== null) writeFileSync(join(self, 'fdinfo', name), `pos:\t0\nflags:\t${flags}\nmnt_id:\t25\n`);
  }
  return self;
}

describe('descriptorsWithoutCloseOnExec', () => {
  it('lists those above 2 without O_CLOEXEC, ascending, and skips those closed since the listing', () => {
    const self = fakeProc({
      0: '02',
      1: '01',
      2: '01',
      3: '02100000',
      200: '0100002',
      30: '00',
      7: null,
      12: '02004002',
    });
    expect(descriptorsWithoutCloseOnExec(self)).toEqual([30, 200]);
  });

  it('knows nothing where /proc cannot tell', () => {
    expect(descriptorsWithoutCloseOnExec(join(tempDir(), 'no-proc'))).toBeUndefined();
    expect(descriptorsWithoutCloseOnExec(fakeProc({ 3: '02', self: '02' }))).toBeUndefined();
    expect(descriptorsWithoutCloseOnExec(fakeProc({ 3: 'none' }))).toBeUndefined();
  });

  it('reads this process: a descriptor opened here is close-on-exec', () => {
    const fd = openSync(join(tempDir(), 'file'), 'w');
    try {
      const found = descriptorsWithoutCloseOnExec();
      expect(found).toBeDefined();
      expect(found).not.toContain(fd);
    } finally {
      closeSync(fd);
    }
  });
});

describe('the prologue closes inherited descriptors', () => {
  /** Which of `open` (numbers above 2), open when it starts, `bash -c` still has when the command runs. */
  function openInShell(inheritedDescriptors: readonly number[] | undefined, open: number[]): number[] {
    const files = shellFiles(tempDir('agent-state-'));
    writePrologue(files, { exports: {}, mark: ':', userBashEnv: undefined, inheritedDescriptors });
    const target = openSync(join(tempDir(), 'target'), 'w');
    try {
      const stdio = Array.from({ length: Math.max(...open) + 1 }, (_, fd) =>
        fd < 3 ? 'pipe' : open.includes(fd) ? target : 'ignore',
      );
      const shell = spawnSync('bash', ['--norc', '--noprofile', '-c', 'ls /proc/$$/fd > fds; cat fds'], {
        cwd: files.writableDir,
        env: { PATH: process.env.PATH, BASH_ENV: files.prologue },
        stdio,
        encoding: 'utf8',
      });
      return shell.stdout
        .split('\n')
        .map(Number)
        .filter((fd) => open.includes(fd));
    } finally {
      closeSync(target);
    }
  }

  it('closes exactly the known ones', () => {
    expect(openInShell([30, 200], [30, 200])).toEqual([]);
    expect(openInShell([30], [30, 200])).toEqual([200]);
  });

  it('closes every one it finds when they are not known', () => {
    expect(openInShell(undefined, [3, 30, 200, 255])).toEqual([]);
  });

  it('closes none for nothing inherited, and the command runs as usual', () => {
    expect(openInShell([], [30])).toEqual([30]);
    const files = shellFiles(tempDir('agent-state-'));
    writePrologue(files, { exports: {}, mark: ':', userBashEnv: undefined, inheritedDescriptors: [] });
    const shell = spawnSync('bash', ['--norc', '--noprofile', '-c', 'echo ran'], {
      env: { PATH: process.env.PATH, BASH_ENV: files.prologue },
      encoding: 'utf8',
    });
    expect(shell.stdout).toBe('ran\n');
  });
});
