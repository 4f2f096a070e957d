// The suite cleans up after itself: its own temporary directory, tempDir()'s directories removed after each file,
// and a failed run when anything is left over.
import { existsSync, mkdirSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { basename, join } from 'node:path';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { baseEnv, removeTempDirs, tempDir } from './support/run-agent.js';
import { setup, teardown } from './support/temp-root.js';

describe('temporary directories of the tests', () => {
  const savedTmp = process.env.TMPDIR;
  afterEach(() => {
    process.env.TMPDIR = savedTmp;
    process.exitCode = undefined;
    vi.restoreAllMocks();
  });

  it('live under a directory of the suite, which the runs the tests start use too', () => {
    expect(basename(tmpdir())).toMatch(/^agent-tests-/);
    expect(tempDir().startsWith(`${tmpdir()}/`)).toBe(true);
    expect(baseEnv('http://127.0.0.1:1').TMPDIR).toBe(tmpdir());
  });

  it('made by tempDir() are removed, with what is in them', () => {
    const dir = tempDir();
    mkdirSync(join(dir, 'sub'));
    writeFileSync(join(dir, 'sub', 'file'), 'x');
    removeTempDirs();
    expect(existsSync(dir)).toBe(false);
  });

  it('left over at the end fail the run, by name', () => {
    const messages: string[] = [];
    vi.spyOn(process.stderr, 'write').mockImplementation((text) => (messages.push(String(text)), true));
    setup();
    const root = tmpdir();
    mkdirSync(join(root, 'agent-run-leaked'));
    teardown();
    expect(process.exitCode).toBe(1);
    expect(messages.join('')).toContain('temporary directories left behind by the tests (1): agent-run-leaked');
    expect(existsSync(root)).toBe(false);
  });

  it('none left over: the run stays green', () => {
    setup();
    const root = tmpdir();
    teardown();
    expect(process.exitCode).toBeUndefined();
    expect(existsSync(root)).toBe(false);
  });
});
