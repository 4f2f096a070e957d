// killAll finds the processes a shell's commands started even after they left the process group, cleared their
// environment and lost their parent; and it leaves every other process alone, those older than the run first of all.
import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync, readFileSync, realpathSync, rmSync, symlinkSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { isRunning, pidIn, waitUntil } from './support/processes.js';
import { Shell, type ShellOptions } from '../src/shell/exec.js';
import { killMarked, newProcessMark, processStartTicks } from '../src/shell/process-mark.js';

let dir: string;
let shells: Shell[];
let strangers: ChildProcess[];
let started: number[];

beforeEach(() => {
  dir = realpathSync(mkdtempSync(path.join(os.tmpdir(), 'process-mark-test-')));
  shells = [];
  strangers = [];
  started = [];
});

afterEach(async () => {
  for (const shell of shells) await shell.dispose();
  for (const child of strangers) child.kill('SIGKILL');
  // Should killAll have failed, leave nothing behind either.
  for (const pid of started) if (pid > 1 && isRunning(pid)) process.kill(pid, 'SIGKILL');
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

/** Starts `sleep 300` the way `how` says, writes its pid to `file`, and returns once the file is there. */
async function startSleep(shell: Shell, file: string, how: string): Promise<number> {
  const result = await shell.run(`${how}\nwhile [ ! -s ${file} ]; do sleep 0.02; done`);
  expect(result.exitCode).toBe(0);
  const pid = pidIn(path.join(dir, file));
  started.push(pid);
  expect(isRunning(pid)).toBe(true);
  return pid;
}

const gone = (pids: number[]) => waitUntil(() => pids.every((pid) => !isRunning(pid)), 2000);

describe('killAll', () => {
  it('kills a process with an empty environment in its own session, and one that init adopted', async () => {
    const shell = makeShell();
    const pids = [
      await startSleep(shell, 'p1', `env -i setsid nohup sh -c 'echo $$ > p1; exec sleep 300' > /dev/null 2>&1 &`),
      await startSleep(shell, 'p2', `env -i setsid sh -c 'sleep 300 & echo $! > p2' > /dev/null 2>&1 &`),
    ];
    expect(readFileSync(`/proc/${pids[1]}/stat`, 'utf8').split(') ')[1]!.split(' ')[1]).toBe('1');
    shell.killAll();
    expect(await gone(pids)).toBe(true);
  });

  it('still finds, by its environment, a process that reset the limit', async () => {
    const shell = makeShell();
    const pid = await startSleep(
      shell,
      'p',
      `ulimit -S -x unlimited; setsid sh -c 'echo $$ > p; exec sleep 300' > /dev/null 2>&1 &`,
    );
    shell.killAll();
    expect(await gone([pid])).toBe(true);
  });

  it('still finds, by its environment, what a shell started where the hard limit is too low for the mark', async () => {
    const shell = makeShell({ wrap: (argv) => ['prlimit', '--locks=1000:1000', ...argv] });
    const result = await shell.run('ulimit -x');
    expect(result.text).toBe('1000');
    const pid = await startSleep(shell, 'p', `setsid sh -c 'echo $$ > p; exec sleep 300' > /dev/null 2>&1 &`);
    shell.killAll();
    expect(await gone([pid])).toBe(true);
  });

  it("leaves alone another shell's processes and a stranger's, even one with a limit of its own", async () => {
    const [mine, other] = [makeShell(), makeShell()];
    const ours = await startSleep(
      mine,
      'ours',
      `env -i setsid sh -c 'echo $$ > ours; exec sleep 300' > /dev/null 2>&1 &`,
    );
    const theirs = await startSleep(
      other,
      'theirs',
      `env -i setsid sh -c 'echo $$ > theirs; exec sleep 300' > /dev/null 2>&1 &`,
    );
    const stranger = spawn('bash', ['-c', 'ulimit -S -x 281474976710700; exec sleep 300'], {
      detached: true,
      stdio: 'ignore',
    });
    strangers.push(stranger);
    mine.killAll();
    expect(await gone([ours])).toBe(true);
    expect(isRunning(theirs)).toBe(true);
    expect(isRunning(stranger.pid!)).toBe(true);
    other.killAll();
    expect(await gone([theirs])).toBe(true);
  });
});

describe('the sweep by start time', () => {
  const clockTicksNow = () => Math.floor(Number(readFileSync('/proc/uptime', 'utf8').split(' ')[0]) * 100);

  it('reads when a process started, whatever its command name holds', async () => {
    const strange = path.join(dir, 'a) b (c 1 2 3');
    symlinkSync('/bin/sleep', strange);
    const before = clockTicksNow();
    const child = spawn(strange, ['300'], { stdio: 'ignore' });
    strangers.push(child);
    await waitUntil(() => readFileSync(`/proc/${child.pid}/stat`, 'latin1').includes('a) b (c'), 2000);
    const ticks = processStartTicks(child.pid!);
    expect(ticks).toBeGreaterThanOrEqual(before - 1);
    expect(ticks).toBeLessThanOrEqual(clockTicksNow() + 1);
    expect(processStartTicks(2 ** 22 + 1)).toBeUndefined();
  });

  it('passes by a marked process that started before the given time, and kills one that did not', async () => {
    const mark = newProcessMark();
    const marked = spawn('sleep', ['300'], { stdio: 'ignore', env: { ...process.env, [mark.envName]: mark.envValue } });
    strangers.push(marked);
    await waitUntil(() => readFileSync(`/proc/${marked.pid}/environ`, 'latin1').includes(mark.envValue), 2000);
    const born = processStartTicks(marked.pid!)!;
    expect(killMarked(mark, born + 1)).toBe(0);
    expect(isRunning(marked.pid!)).toBe(true);
    expect(killMarked(mark, born)).toBe(1);
    expect(await gone([marked.pid!])).toBe(true);
  });
});
