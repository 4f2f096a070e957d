// How the executor follows the shell's directory: every cd, pushd and popd of the shell itself is recorded at once,
// so neither the command's own traps, nor exec, nor a kill loses it; and the bookkeeping does not show.
import { spawnSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, readdirSync, realpathSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { Shell } from '../src/shell/exec.js';

let dir: string;
let shell: Shell;

beforeEach(() => {
  dir = realpathSync(mkdtempSync(path.join(os.tmpdir(), 'directory-test-')));
  for (const name of ['a', 'b', 'c']) mkdirSync(path.join(dir, name));
  shell = new Shell({ runCwd: dir, env: process.env, defaultTimeoutSec: 20, maxTimeoutSec: 60, spillDir: dir });
});

afterEach(async () => {
  await shell.dispose();
  rmSync(dir, { recursive: true, force: true });
});

/** What plain `bash -c command` prints, stdout and stderr merged. */
function plainBash(command: string): string {
  const merged = ['-c', 'exec bash -c "$0" 2>&1', command];
  return spawnSync('sh', merged, { cwd: dir, encoding: 'utf8', stdio: ['ignore', 'pipe', 'ignore'], env: {} }).stdout;
}

describe('the directory', () => {
  it('follows cd, pushd and popd of the shell, under set -euo pipefail and noclobber', async () => {
    await shell.run(
      'set -euo pipefail -o noclobber; cd a; pushd ../b > /dev/null; pushd ../c > /dev/null; popd > /dev/null; exec true',
    );
    expect(shell.cwd).toBe(path.join(dir, 'b'));
  });

  it('stays where the shell was, not where a subshell, a pipeline stage or a command substitution went', async () => {
    await shell.run('cd a; (cd ../b); : $(cd ../c); echo | cd ../b; trap "" EXIT');
    expect(shell.cwd).toBe(path.join(dir, 'a'));
  });

  it("follows a cd in a function, in eval and in the command's own EXIT trap", async () => {
    await shell.run(`go() { cd "$1"; }; go a; eval 'cd ../b'; trap 'cd ../c' EXIT`);
    expect(shell.cwd).toBe(path.join(dir, 'c'));
  });

  it('is what a `builtin cd` left, as long as the EXIT trap runs', async () => {
    await shell.run('builtin cd a');
    expect(shell.cwd).toBe(path.join(dir, 'a'));
  });

  it('follows a command long enough to go through a file', async () => {
    await shell.run(`: ${'x'.repeat(150_000)}\ncd b; exec true`);
    expect(shell.cwd).toBe(path.join(dir, 'b'));
  });

  it('is the last one known when the command is killed', async () => {
    const result = await shell.run(`cd a; trap '' TERM; sleep 30`, { timeoutSec: 1 });
    expect(result.timedOut).toBe(true);
    expect(shell.cwd).toBe(path.join(dir, 'a'));
  });
});

describe('the bookkeeping does not show', () => {
  it.each([
    ['a missing directory, on the line it is on', 'echo first\ncd ./missing'],
    ['pushd and popd errors', 'pushd ./missing; popd'],
    ['cd with too many arguments, inside a function', 'f() {\n  cd a b\n}\nf'],
    ['a missing directory, in a sourced script', "printf 'true\\ncd ./missing\\n' > s.sh; . ./s.sh"],
  ])('%s: the same message as plain bash', async (_case, command) => {
    const result = await shell.run(command);
    expect(result.text).toBe(`${plainBash(command).replace(/\n$/, '')}\nexit code: 1`);
  });

  it('under set -e, a failed cd still stops the command with its message', async () => {
    const result = await shell.run('set -e; cd ./missing; echo never');
    expect(result.text).toBe('bash: line 1: cd: ./missing: No such file or directory\nexit code: 1');
  });

  it('leaves set -x traces as plain bash has them', async () => {
    const command = 'set -x; cd a; cd ../missing; true';
    const result = await shell.run(command);
    expect(result.text).toBe(plainBash(command).replace(/\n$/, ''));
  });

  it('keeps `cd -` printing, and $? of cd', async () => {
    const result = await shell.run('cd a; cd b 2>/dev/null; echo "status $?"; cd -');
    expect(result.text).toBe(`status 1\n${dir}`);
    expect(shell.cwd).toBe(dir);
  });

  it('makes its bookkeeping again for the next command when a command removed it', async () => {
    await shell.run('true');
    const [stateDir] = readdirSync(dir).filter((name) => name.startsWith('agent-shell-'));
    await shell.run(`rm ${path.join(dir, stateDir!, 'prologue.sh')}`);
    await shell.run('cd a; exec true');
    expect(shell.cwd).toBe(path.join(dir, 'a'));
    await shell.run(`rm -r ${path.join(dir, stateDir!)}`);
    const result = await shell.run('cd ../b; echo merged >&2; exec true');
    expect(result.text).toBe('merged');
    expect(shell.cwd).toBe(path.join(dir, 'b'));
  });

  it('still changes directory, silently, after the bookkeeping directory was removed', async () => {
    await shell.run('true');
    const [stateDir] = readdirSync(dir).filter((name) => name.startsWith('agent-shell-'));
    const result = await shell.run(`rm -rf ${path.join(dir, stateDir!)}; cd a && pwd`);
    expect(result.text).toBe(path.join(dir, 'a'));
  });
});
