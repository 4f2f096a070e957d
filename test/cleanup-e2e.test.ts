// No process a run started outlives it, through the real binary: not even one that cleared its environment and
// left the session, nor an orphan whose parent exited at once. And a run never kills what it did not start.
import { spawn, type ChildProcess } from 'node:child_process';
import { existsSync, mkdtempSync, readdirSync, readFileSync, realpathSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { isRunning, pidIn, waitUntil } from './support/processes.js';
import { answer, bash, runAgent } from './support/run-agent.js';
import { startServer, type TestServer, type Turn } from './support/server.js';
import { testStateHome } from './support/state-home.js';

/**
 * Two ways out of reach of the process group and the environment: a process in its own session with an empty
 * environment (p1), and the same whose parent exits at once, so that init adopts it (p2).
 */
const ESCAPE =
  `env -i setsid nohup sh -c 'echo $$ > p1; exec sleep 300' > /dev/null 2>&1 &\n` +
  `env -i setsid sh -c 'sleep 300 & echo $! > p2' > /dev/null 2>&1 &\n` +
  'while [ ! -s p1 ] || [ ! -s p2 ]; do sleep 0.02; done';

let dirs: string[];
let servers: TestServer[];
let strangers: ChildProcess[];

beforeEach(() => {
  dirs = [];
  servers = [];
  strangers = [];
});

afterEach(async () => {
  for (const child of strangers) child.kill('SIGKILL');
  // Should the product have failed, leave nothing behind either.
  for (const pid of dirs.flatMap(escapedPids)) if (pid > 1 && isRunning(pid)) process.kill(pid, 'SIGKILL');
  for (const server of servers) await server.close();
  for (const dir of dirs) rmSync(dir, { recursive: true, force: true });
});

function makeDir(): string {
  const dir = realpathSync(mkdtempSync(join(tmpdir(), 'agent-cleanup-')));
  dirs.push(dir);
  return dir;
}

async function serve(script: Turn[]): Promise<TestServer> {
  const server = await startServer(script);
  servers.push(server);
  return server;
}

const escapedPids = (dir: string): number[] => [pidIn(join(dir, 'p1')), pidIn(join(dir, 'p2'))];

const allRunning = (dir: string): boolean => escapedPids(dir).every((pid) => pid > 0 && isRunning(pid));

/** A turn that notes whether the escaped processes were alive while the run went on, then answers. */
function checkAlive(dir: string, seen: boolean[]): Turn {
  return () => (seen.push(allRunning(dir)), answer('done'));
}

async function expectGone(pids: number[]): Promise<void> {
  for (const pid of pids) {
    expect(pid).toBeGreaterThan(1);
    expect(await waitUntil(() => !isRunning(pid), 2000), `pid ${pid} still running`).toBe(true);
  }
}

describe('processes that left the group and cleared their environment', () => {
  it('are gone after a run that ends normally', async () => {
    const dir = makeDir();
    const alive: boolean[] = [];
    const s = await serve([bash(ESCAPE), checkAlive(dir, alive), answer('never')]);
    const run = await runAgent(['go'], s.url, { cwd: dir });
    expect(run.code).toBe(0);
    expect(alive).toEqual([true]);
    await expectGone(escapedPids(dir));
  });

  it('are gone after a run stopped by --max-turns', async () => {
    const dir = makeDir();
    const s = await serve([bash(ESCAPE), bash('true'), answer('never')]);
    const run = await runAgent(['--max-turns', '2', 'go'], s.url, { cwd: dir });
    expect(run.code).toBe(1);
    await expectGone(escapedPids(dir));
  });

  it('are gone after SIGTERM during a command', async () => {
    const dir = makeDir();
    const s = await serve([bash(`${ESCAPE}\nsleep 100`), answer('never')]);
    const onSpawn = (child: ChildProcess) => {
      void waitUntil(() => escapedPids(dir).every((pid) => pid > 0), 10_000).then(() => child.kill('SIGTERM'));
    };
    const run = await runAgent(['go'], s.url, { cwd: dir, onSpawn, timeoutMs: 15_000 });
    expect(run.code).toBe(143);
    await expectGone(escapedPids(dir));
  });
});

describe('a run killed outright (SIGKILL), which cannot clean up', () => {
  // The shell opens while the first request is on its way; a next run whose request never goes out sweeps all the same.
  it.each([
    ['answered', true],
    ['that cannot reach the API', false],
  ])('leaves its commands to the next run, %s, which kills them', async (_, reachable: boolean) => {
    const dir = makeDir();
    const s = await serve([bash(`${ESCAPE}\nsleep 100 & echo $! > p3; wait`), answer('never')]);
    const onSpawn = (child: ChildProcess) => {
      void waitUntil(() => [...escapedPids(dir), pidIn(join(dir, 'p3'))].every((pid) => pid > 0), 10_000).then(() =>
        child.kill('SIGKILL'),
      );
    };
    const killed = await runAgent(['go'], s.url, { cwd: dir, onSpawn, timeoutMs: 15_000 });
    expect(killed.signal).toBe('SIGKILL');
    const left = [...escapedPids(dir), pidIn(join(dir, 'p3'))];
    expect(left.every(isRunning)).toBe(true);
    const registry = join(testStateHome(), 'agent', 'running');
    const entries = readdirSync(registry).map(
      (name) => JSON.parse(readFileSync(join(registry, name), 'utf8')) as { pid: number; runDir: string },
    );
    const runDir = entries.find((entry) => entry.pid === killed.pid)!.runDir;
    expect(existsSync(runDir)).toBe(true);
    const next = await serve([answer('hello')]);
    const run = await runAgent(['anything'], reachable ? next.url : 'http://127.0.0.1:9', { cwd: makeDir() });
    expect(run.code).toBe(reachable ? 0 : 3);
    await expectGone(left);
    expect(existsSync(runDir)).toBe(false);
    expect(readdirSync(registry)).toEqual([]);
  });
});

describe('what a run did not start', () => {
  it("survives: another run's escaped processes, and a stranger's", async () => {
    const stranger = spawn('sleep', ['300'], { detached: true, env: {}, stdio: 'ignore' });
    strangers.push(stranger);
    const [first, second] = [makeDir(), makeDir()];
    let secondEnded: () => void = () => {};
    const secondDone = new Promise<void>((resolve) => (secondEnded = resolve));
    const aliveAfterSecond: boolean[] = [];
    // The first run waits in its second turn until the second run has ended.
    const s1 = await serve([
      bash(ESCAPE),
      async () => (await secondDone, aliveAfterSecond.push(allRunning(first)), answer('done')),
    ]);
    const s2 = await serve([bash(ESCAPE), answer('done')]);
    const firstRun = runAgent(['go'], s1.url, { cwd: first });
    expect(await waitUntil(() => escapedPids(first).every((pid) => pid > 0), 10_000)).toBe(true);
    const secondRun = await runAgent(['go'], s2.url, { cwd: second });
    expect(secondRun.code).toBe(0);
    await expectGone(escapedPids(second));
    secondEnded();
    expect((await firstRun).code).toBe(0);
    expect(aliveAfterSecond).toEqual([true]);
    await expectGone(escapedPids(first));
    expect(isRunning(stranger.pid!)).toBe(true);
  });
});
