import { execFileSync } from 'node:child_process';
import {
  existsSync,
  mkdirSync,
  mkdtempSync,
  readFileSync,
  realpathSync,
  rmSync,
  statSync,
  symlinkSync,
  writeFileSync,
} from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { isRunning, waitUntil } from './support/processes.js';
import { Shell } from '../src/shell/exec.js';
import type { ShellOptions } from '../src/shell/exec.js';

const RAW_CONTROL = /[\x00-\x08\x0b-\x1f\x7f-\x9f]/;

let dir: string;
let shells: Shell[];

beforeEach(() => {
  // realpath: on some systems the temp dir itself is a symlink.
  dir = realpathSync(mkdtempSync(path.join(os.tmpdir(), 'exec-test-')));
  shells = [];
});

afterEach(async () => {
  for (const shell of shells) await shell.dispose();
  rmSync(dir, { recursive: true, force: true });
});

function makeShell(options: Partial<ShellOptions> = {}): Shell {
  const shell = new Shell({
    runCwd: dir,
    env: process.env,
    defaultTimeoutSec: 20,
    maxTimeoutSec: 60,
    spillDir: dir,
    ...options,
  });
  shells.push(shell);
  return shell;
}

function readPid(file: string): number {
  const pid = Number(readFileSync(path.join(dir, file), 'utf8').trim());
  expect(pid).toBeGreaterThan(1);
  return pid;
}

describe('Shell.run: finishing', () => {
  it('returns when the shell exits, even if a background child holds the output pipe', async () => {
    const shell = makeShell();
    const started = Date.now();
    const result = await shell.run('sleep 30 & echo $! > bg.pid; echo started');
    expect(Date.now() - started).toBeLessThan(2000);
    expect(result.text).toBe('started');
    expect(result.exitCode).toBe(0);
    expect(result.isError).toBe(false);
    expect(isRunning(readPid('bg.pid'))).toBe(true); // not killed at command end: killAll does that
  });

  it('gives commands that read stdin an immediate EOF', async () => {
    const shell = makeShell();
    const started = Date.now();
    expect((await shell.run('cat')).text).toBe('(no output)');
    expect((await shell.run('read x; echo "read status $?"')).text).toBe('read status 1');
    expect(Date.now() - started).toBeLessThan(2000);
  });

  it('gives python input() an immediate EOF', async () => {
    const shell = makeShell();
    const result = await shell.run(`python3 -c 'input()' || echo "python status $?"`, { timeoutSec: 10 });
    expect(result.timedOut).toBe(false);
    expect(result.text).toMatch(/EOFError|python3: command not found/);
  });

  it('runs without a controlling terminal', async () => {
    const result = await makeShell().run(': < /dev/tty && echo has-tty || echo no-tty');
    expect(result.text).toMatch(/no-tty$/);
  });

  it('keeps reading after returning, so a background writer neither blocks nor dies of SIGPIPE', async () => {
    const shell = makeShell();
    const result = await shell.run(
      '(sleep 0.4; head -c 1000000 /dev/zero | tr "\\0" x; echo; echo done > survived) & echo launched',
    );
    expect(result.text).toBe('launched');
    expect(await waitUntil(() => existsSync(path.join(dir, 'survived')), 5000)).toBe(true);
  });
});

describe('Shell.run: timeout, abort and cleanup', () => {
  it('kills the whole process group on timeout, grandchildren included', async () => {
    const shell = makeShell({ defaultTimeoutSec: 1 });
    const started = Date.now();
    const result = await shell.run(`echo before; bash -c 'sleep 300 & echo $! > grandchild.pid; wait'`);
    expect(Date.now() - started).toBeLessThan(4000);
    expect(result.timedOut).toBe(true);
    expect(result.isError).toBe(true);
    expect(result.text).toBe('before\ntimed out after 1 s (the process group was killed)');
    const pid = readPid('grandchild.pid');
    expect(await waitUntil(() => !isRunning(pid), 2000)).toBe(true);
  });

  it('SIGKILLs a grandchild that ignores SIGTERM after the grace period', async () => {
    const shell = makeShell({ defaultTimeoutSec: 1 });
    const result = await shell.run(`trap '' TERM; sleep 300 & echo $! > stubborn.pid; wait`);
    expect(result.timedOut).toBe(true);
    const pid = readPid('stubborn.pid');
    expect(await waitUntil(() => !isRunning(pid), 1000)).toBe(true);
  });

  it('clamps the requested timeout to [1, maxTimeoutSec]', async () => {
    const shell = makeShell({ defaultTimeoutSec: 30, maxTimeoutSec: 1 });
    const capped = await shell.run('sleep 10', { timeoutSec: 500 });
    expect(capped.timedOut).toBe(true);
    expect(capped.durationMs).toBeLessThan(4000);
    expect(capped.text).toContain('timed out after 1 s');
    const raised = await shell.run('sleep 0.3; echo finished', { timeoutSec: 0.01 });
    expect(raised.timedOut).toBe(false);
    expect(raised.text).toBe('finished');
  });

  it('kills a long command at once when aborted', async () => {
    const shell = makeShell();
    const controller = new AbortController();
    setTimeout(() => controller.abort(), 300);
    const started = Date.now();
    const result = await shell.run('echo working; sleep 100 & echo $! > long.pid; wait', { signal: controller.signal });
    expect(Date.now() - started).toBeLessThan(2000);
    expect(result.aborted).toBe(true);
    expect(result.isError).toBe(true);
    expect(result.text).toBe('working\naborted (the process group was killed)');
    const pid = readPid('long.pid');
    expect(await waitUntil(() => !isRunning(pid), 1000)).toBe(true);
  });

  it('does not start a command when already aborted', async () => {
    const shell = makeShell();
    const result = await shell.run('touch ran', { signal: AbortSignal.abort() });
    expect(result.aborted).toBe(true);
    expect(existsSync(path.join(dir, 'ran'))).toBe(false);
  });

  it('killAll kills detached survivors: (cmd &) and nohup stay in the group', async () => {
    const shell = makeShell();
    await shell.run('(sleep 100 & echo $! > sub.pid)');
    await shell.run('nohup sleep 100 > /dev/null 2>&1 & echo $! > nohup.pid');
    const pids = [readPid('sub.pid'), readPid('nohup.pid')];
    expect(pids.every(isRunning)).toBe(true);
    shell.killAll();
    shell.killAll(); // idempotent
    expect(await waitUntil(() => pids.every((pid) => !isRunning(pid)), 2000)).toBe(true);
  });
});

describe('Shell.run: output', () => {
  it('caps a long output as head + tail and spills all of it to a file', async () => {
    const shell = makeShell();
    const result = await shell.run('seq 1 3000000');
    expect(result.text.length).toBeLessThanOrEqual(30_000);
    expect(result.text.startsWith('1\n2\n3\n')).toBe(true);
    expect(result.text.endsWith('\n2999999\n3000000')).toBe(true);
    expect(result.outputChars).toBe(
      Number(execFileSync('bash', ['-c', 'seq 1 3000000 | wc -c'], { encoding: 'utf8' })),
    );
    expect(result.spillPath).not.toBeNull();
    const spillPath = result.spillPath!;
    expect(result.text).toMatch(
      /\[\.\.\. [\d,]+ characters \([\d,]+ lines\) omitted; the full output \([\d,]+ characters\) is in /,
    );
    expect(result.text).toContain(spillPath);
    const lines = execFileSync('bash', ['-c', `wc -l < '${spillPath}'; tail -n 1 '${spillPath}'`], {
      encoding: 'utf8',
    });
    expect(lines).toBe('3000000\n3000000\n');
    expect(statSync(spillPath).size).toBe(result.outputChars);
  });

  it('keeps memory bounded under a flood with no line breaks', async () => {
    const shell = makeShell();
    global.gc?.();
    const baseline = process.memoryUsage().rss;
    let peak = baseline;
    const sampler = setInterval(() => {
      peak = Math.max(peak, process.memoryUsage().rss);
    }, 5);
    let previews = 0;
    const result = await shell.run(`head -c 200000000 /dev/zero | tr '\\0' a`, {
      onOutput: (text) => {
        previews += text.length;
      },
    });
    clearInterval(sampler);
    peak = Math.max(peak, process.memoryUsage().rss);
    expect(result.outputChars).toBe(200_000_000);
    expect(previews).toBe(200_000_000);
    expect(result.text.length).toBeLessThanOrEqual(30_000);
    expect(statSync(result.spillPath!).size).toBe(200_000_000);
    expect((peak - baseline) / 2 ** 20).toBeLessThan(100);
  });

  it('survives binary output: no exceptions, no raw control characters', async () => {
    const result = await makeShell().run('head -c 2000 /dev/urandom; echo; echo end');
    expect(result.text).not.toMatch(RAW_CONTROL);
    expect(result.text.endsWith('\nend')).toBe(true);
    expect(result.exitCode).toBe(0);
  });

  it('strips ANSI colour codes', async () => {
    const result = await makeShell().run(`printf '\\e[31mred\\e[0m \\e]0;title\\a\\e[1mbold\\e[m\\n'`);
    expect(result.text).toBe('red bold');
  });

  it('says (no output) when there is none', async () => {
    const result = await makeShell().run('true');
    expect(result.text).toBe('(no output)');
    expect(result.outputChars).toBe(0);
  });

  it('merges stdout and stderr in arrival order', async () => {
    const shell = makeShell();
    expect((await shell.run('echo a; echo b >&2; echo c')).text).toBe('a\nb\nc');
    const interleaved = await shell.run('for i in $(seq 1 300); do echo out$i; echo err$i >&2; done');
    const expected = Array.from({ length: 300 }, (_, i) => `out${i + 1}\nerr${i + 1}`).join('\n');
    expect(interleaved.text).toBe(expected);
  });

  it('includes syntax errors, with the line numbers of the command itself', async () => {
    const result = await makeShell().run('echo fine\nif then');
    expect(result.text).toMatch(/^fine\nbash: -c: line 2: syntax error near unexpected token `then'/);
    expect(result.exitCode).toBe(2);
  });

  it('streams cleaned output to onOutput', async () => {
    const chunks: string[] = [];
    const result = await makeShell().run(`printf '\\e[32mone\\e[0m\\n'; sleep 0.1; echo two`, {
      onOutput: (text) => chunks.push(text),
    });
    expect(chunks.join('')).toBe('one\ntwo\n');
    expect(result.text).toBe('one\ntwo');
  });
});

describe('Shell.run: status', () => {
  it('reports a non-zero exit code without making it an error', async () => {
    const result = await makeShell().run('echo out; exit 3');
    expect(result.exitCode).toBe(3);
    expect(result.text).toBe('out\nexit code: 3');
    expect(result.isError).toBe(false);
  });

  it('reports a shell killed by a signal', async () => {
    const result = await makeShell().run('kill -9 $$');
    expect(result.signal).toBe('SIGKILL');
    expect(result.text).toBe('(no output)\nkilled by signal SIGKILL');
  });

  it('reports a wrapper that cannot start as an error', async () => {
    const result = await makeShell({ wrap: () => [path.join(dir, 'no-such-binary')] }).run('true');
    expect(result.isError).toBe(true);
    expect(result.text).toMatch(/^\(no output\)\nfailed to start the shell: .*ENOENT/);
  });

  it('runs commands longer than the kernel allows for one argument', async () => {
    const payload = 'p'.repeat(300_000);
    const result = await makeShell().run(`cat > big.txt <<'EOF'\n${payload}\nEOF\nwc -c < big.txt`);
    expect(result.text).toBe('300001');
  });
});

describe('Shell.run: directory and environment', () => {
  it('carries the final directory over to the next command', async () => {
    const shell = makeShell();
    mkdirSync(path.join(dir, 'sub'));
    expect((await shell.run('cd sub && pwd')).text).toBe(path.join(dir, 'sub'));
    expect(shell.cwd).toBe(path.join(dir, 'sub'));
    expect((await shell.run('pwd')).text).toBe(path.join(dir, 'sub'));
  });

  it('records the directory when the command ends with exit N', async () => {
    const shell = makeShell();
    mkdirSync(path.join(dir, 'sub'));
    const result = await shell.run('cd sub; exit 4');
    expect(result.exitCode).toBe(4);
    expect(result.cwd).toBe(path.join(dir, 'sub'));
  });

  it('keeps the path as typed through a symlink', async () => {
    const shell = makeShell();
    mkdirSync(path.join(dir, 'real'));
    symlinkSync(path.join(dir, 'real'), path.join(dir, 'link'));
    await shell.run('cd link');
    expect((await shell.run('pwd')).text).toBe(path.join(dir, 'link'));
  });

  it('falls back to the run directory, and says so, when the directory vanished', async () => {
    const shell = makeShell();
    await shell.run('mkdir gone && cd gone');
    expect(shell.cwd).toBe(path.join(dir, 'gone'));
    rmSync(path.join(dir, 'gone'), { recursive: true });
    const result = await shell.run('pwd');
    expect(result.text).toBe(
      `${dir}\nnote: the directory ${path.join(dir, 'gone')} no longer exists; this command ran in ${dir}`,
    );
    expect(result.cwd).toBe(dir);
    expect((await shell.run('pwd')).text).toBe(dir);
  });

  it('does not carry environment changes over', async () => {
    const shell = makeShell();
    await shell.run('export FOO_FROM_COMMAND=1');
    expect((await shell.run('echo "[${FOO_FROM_COMMAND:-unset}]"')).text).toBe('[unset]');
  });

  it('runs with non-interactive settings and without leaking its bookkeeping', async () => {
    const result = await makeShell().run(
      `echo "$PAGER $GIT_PAGER $GIT_TERMINAL_PROMPT $TERM $NO_COLOR [\${BASH_ENV-}]"; bash -c 'echo child-stderr >&2' 2>/dev/null; echo ok`,
    );
    expect(result.text).toBe('cat cat 0 dumb 1 []\nok');
  });

  it('sets the non-interactive settings over the values of the run, in the shell, and a BASH_ENV of the user may change them', async () => {
    const userBashEnv = path.join(dir, 'user-bash-env.sh');
    writeFileSync(userBashEnv, 'export GIT_PAGER=delta\n');
    const env = { ...process.env, PAGER: 'less', TERM: 'xterm-256color', EDITOR: 'vim' };
    const plain = await makeShell({ env }).run('echo "$PAGER $TERM $EDITOR"; bash -c \'echo "child: $PAGER"\'');
    expect(plain.text).toBe('cat dumb true\nchild: cat');
    const withUserFile = await makeShell({ env: { ...env, BASH_ENV: userBashEnv } }).run('echo "$PAGER $GIT_PAGER"');
    expect(withUserFile.text).toBe('cat delta');
  });

  // As plain bash has them with the same environment (its own POSIXLY_CORRECT=y is a shell variable, not exported).
  it.each([
    ['POSIXLY_CORRECT', { POSIXLY_CORRECT: '1' }, '1 unset', 'POSIXLY_CORRECT=1'],
    ['an empty POSIXLY_CORRECT', { POSIXLY_CORRECT: '' }, ' unset', 'POSIXLY_CORRECT='],
    ['POSIX_PEDANTIC', { POSIX_PEDANTIC: 'y' }, 'y y', 'POSIX_PEDANTIC=y'],
    [
      'a SHELLOPTS that names posix',
      { SHELLOPTS: 'braceexpand:hashall:interactive-comments:posix' },
      'y unset',
      'SHELLOPTS=braceexpand:hashall:interactive-comments:posix',
    ],
  ] as Array<[string, Record<string, string>, string, string]>)(
    'runs its bookkeeping when the environment asks for POSIX mode (%s), then the command in that mode',
    async (_name, posix, shown, exported) => {
      const userBashEnv = path.join(dir, 'user-bash-env.sh');
      writeFileSync(userBashEnv, 'echo "user file read"\n');
      const shell = makeShell({ env: { ...process.env, ...posix, BASH_ENV: userBashEnv } });
      const first = await shell.run(
        'echo "$PAGER ${POSIXLY_CORRECT-unset} ${POSIX_PEDANTIC-unset}"; shopt -o posix; ' +
          "env | grep -E '^(POSIX|SHELLOPTS)'; bash -c 'shopt -o posix'; mkdir -p sub && cd sub",
      );
      // No BASH_ENV of the user's is read in POSIX mode, as bash itself reads none.
      expect(first.text).toBe(`cat ${shown}\nposix          \ton\n${exported}\nposix          \ton`);
      // The directory was recorded, so the prologue ran.
      expect((await shell.run('pwd')).text).toBe(path.join(dir, 'sub'));
    },
  );

  it('runs its bookkeeping when the SHELLOPTS of the environment names privileged, then the command with it', async () => {
    const shell = makeShell({
      env: { ...process.env, SHELLOPTS: 'braceexpand:hashall:interactive-comments:privileged' },
    });
    const first = await shell.run(
      'shopt -o privileged posix; echo "$SHELLOPTS" | grep -o privileged; mkdir -p up && cd up',
    );
    expect(first.text).toBe('privileged     \ton\nposix          \toff\nprivileged');
    expect((await shell.run('pwd')).text).toBe(path.join(dir, 'up'));
  });
  it('spawns the argv returned by wrap, with a state directory that dispose removes', async () => {
    const seen: Array<{ argv: string[]; stateDir: string }> = [];
    const shell = makeShell({
      wrap: (argv, ctx) => {
        seen.push({ argv, stateDir: ctx.stateDir });
        return ['env', 'WRAPPED=yes', ...argv];
      },
    });
    const result = await shell.run('echo "wrapped=$WRAPPED"');
    expect(result.text).toBe('wrapped=yes');
    expect(seen[0]!.argv.slice(0, 4)).toEqual(['bash', '--norc', '--noprofile', '-c']);
    const stateDir = seen[0]!.stateDir;
    expect(statSync(stateDir).isDirectory()).toBe(true);
    await shell.dispose();
    expect(existsSync(stateDir)).toBe(false);
  });
});
