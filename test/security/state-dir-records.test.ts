// Records of running runs that no run of this agent wrote, through the real binary. A state directory may be a
// checkout (XDG_STATE_HOME pointed at it) whose committed files look like the records a run leaves while it lives.
// At start-up a run kills what a dead run's record marks and removes its directory; a forged record must get neither:
// not a mark of another shape than the agent's (it would match strangers' processes), not pid 1, not a directory
// outside the runs' own temporary parent.
import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { randomInt, randomUUID } from 'node:crypto';
import { existsSync, mkdirSync, mkdtempSync, readFileSync, realpathSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { isRunning, waitUntil } from '../support/processes.js';
import { answer } from '../support/run-agent.js';
import { agentIn, newPlace, resultOf, useScratch, type Place } from '../support/session-files.js';
import { useServer } from '../support/use-server.js';

const serve = useServer();
const scratch = useScratch();
const victims: ChildProcess[] = [];
const runDirs: string[] = [];

afterEach(() => {
  for (const victim of victims.splice(0)) victim.kill('SIGKILL');
  for (const dir of runDirs.splice(0)) rmSync(dir, { recursive: true, force: true });
});

/**
 * The value the strangers' processes carry. Only they may carry it: on today's code a forged mark kills every process
 * of the user that matches, so a common value (HOME=/root) would take down everything else on the machine.
 */
const UNIQUE = `victim-${randomUUID()}`;
/** A lock limit that no other process is likely to have set, outside the range the agent draws its marks from. */
const ODD_LIMIT = 100_000 + randomInt(900_000);
/** A mark of the agent's own shape that no process carries. */
const UNUSED_MARK = { envName: 'AGENT_SHELL_ID', envValue: '0123456789abcdef', locksLimit: 2 ** 48 + 12345 };

/** The pid of a process that has exited: what a record of a run killed with SIGKILL names. */
function deadPid(): number {
  return spawnSync('true').pid!;
}

/** A stranger's long-lived process, started with `env` and, when given, a soft RLIMIT_LOCKS of `locks`. */
async function startVictim(env: Record<string, string>, locks?: number): Promise<ChildProcess> {
  const script = locks === undefined ? 'exec sleep 300' : `ulimit -S -x ${locks} && exec sleep 300`;
  const victim = spawn('bash', ['--norc', '-c', script], {
    env: { PATH: process.env.PATH ?? '/usr/bin:/bin', ...env },
    stdio: 'ignore',
  });
  victims.push(victim);
  const ready = () => {
    try {
      return readFileSync(`/proc/${victim.pid}/cmdline`, 'latin1').startsWith('sleep');
    } catch {
      return false;
    }
  };
  expect(await waitUntil(ready, 5000)).toBe(true);
  return victim;
}

/** Commits a record into the state directory's registry of running runs, as a repository would. */
function plantRecord(where: Place, record: { pid: number; started: string; mark: object; runDir?: string }): string {
  const registry = join(where.state, 'agent', 'running');
  mkdirSync(registry, { recursive: true, mode: 0o700 });
  const file = join(registry, `${record.pid}-${record.started}.json`);
  writeFileSync(file, JSON.stringify(record), { mode: 0o600 });
  return file;
}

/** A directory named as a run's private directory, in the runs' own temporary parent, with a file in it. */
function runLikeDir(): string {
  const dir = realpathSync(mkdtempSync(join(tmpdir(), 'agent-run-')));
  writeFileSync(join(dir, 'keep'), 'keep');
  runDirs.push(dir);
  return dir;
}

async function runOnce(where: Place): Promise<void> {
  const s = await serve([answer('hello')]);
  const run = await agentIn(s, where, ['go']);
  expect(run.code).toBe(0);
  expect(resultOf(run).result).toBe('hello');
}

describe('a forged record of a dead run', () => {
  it('with a mark of another shape (any variable, any value): no process of the user is killed', async () => {
    const where = newPlace(scratch);
    const victim = await startVictim({ DEPLOY_ENV: UNIQUE });
    plantRecord(where, {
      pid: deadPid(),
      started: '1',
      mark: { envName: 'DEPLOY_ENV', envValue: UNIQUE, locksLimit: ODD_LIMIT },
    });
    await runOnce(where);
    expect(isRunning(victim.pid!)).toBe(true);
  });

  it("with the agent's variable but an empty value: no process that has it empty is killed", async () => {
    const where = newPlace(scratch);
    const victim = await startVictim({ AGENT_SHELL_ID: '' });
    plantRecord(where, { pid: deadPid(), started: '1', mark: { ...UNUSED_MARK, envValue: '' } });
    await runOnce(where);
    expect(isRunning(victim.pid!)).toBe(true);
  });

  it('with a lock limit outside the range the agent draws from: a process with that limit is not killed', async () => {
    const where = newPlace(scratch);
    const victim = await startVictim({}, ODD_LIMIT);
    plantRecord(where, { pid: deadPid(), started: '1', mark: { ...UNUSED_MARK, locksLimit: ODD_LIMIT } });
    await runOnce(where);
    expect(isRunning(victim.pid!)).toBe(true);
  });

  it("naming a directory outside the runs' temporary parent: it is not removed", async () => {
    const where = newPlace(scratch);
    const target = join(scratch('agent-project-'), 'agent-run-build');
    mkdirSync(target);
    writeFileSync(join(target, 'work'), 'a day of work');
    plantRecord(where, { pid: deadPid(), started: '1', mark: UNUSED_MARK, runDir: target });
    await runOnce(where);
    expect(readFileSync(join(target, 'work'), 'utf8')).toBe('a day of work');
  });

  it('naming `/` and a stranger-matching mark: nothing removed, nothing killed', async () => {
    const where = newPlace(scratch);
    const victim = await startVictim({ HOME: UNIQUE });
    plantRecord(where, {
      pid: deadPid(),
      started: '1',
      mark: { envName: 'HOME', envValue: UNIQUE, locksLimit: ODD_LIMIT },
      runDir: '/',
    });
    await runOnce(where);
    expect(isRunning(victim.pid!)).toBe(true);
    expect(existsSync('/bin')).toBe(true);
  });

  it('naming pid 1: its run directory is left alone', async () => {
    const where = newPlace(scratch);
    const dir = runLikeDir();
    plantRecord(where, { pid: 1, started: '0', mark: UNUSED_MARK, runDir: dir });
    await runOnce(where);
    expect(existsSync(join(dir, 'keep'))).toBe(true);
  });

  it('whose file is a symbolic link to a record elsewhere: not followed', async () => {
    const where = newPlace(scratch);
    const dir = runLikeDir();
    const real = plantRecord(newPlace(scratch), { pid: deadPid(), started: '1', mark: UNUSED_MARK, runDir: dir });
    const registry = join(where.state, 'agent', 'running');
    mkdirSync(registry, { recursive: true, mode: 0o700 });
    spawnSync('ln', ['-s', real, join(registry, real.split('/').at(-1)!)]);
    await runOnce(where);
    expect(existsSync(join(dir, 'keep'))).toBe(true);
  });
});

describe('a genuine record of a dead run', () => {
  it("of the agent's own shape, naming a run directory in the temporary parent: acted on, and forgotten", async () => {
    const where = newPlace(scratch);
    const dir = runLikeDir();
    const record = plantRecord(where, { pid: deadPid(), started: '1', mark: UNUSED_MARK, runDir: dir });
    await runOnce(where);
    expect(existsSync(dir)).toBe(false);
    expect(existsSync(record)).toBe(false);
  });
});
