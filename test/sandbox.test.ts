import { spawn, spawnSync } from 'node:child_process';
import type { SpawnSyncReturns } from 'node:child_process';
import { accessSync, constants, existsSync, mkdirSync, mkdtempSync, readFileSync, readdirSync, rmSync } from 'node:fs';
import { createServer } from 'node:net';
import type { AddressInfo, Server } from 'node:net';
import { tmpdir } from 'node:os';
import { delimiter, join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { probeSandbox, sandboxWrap } from '../src/shell/sandbox.js';
import type { SandboxWrapper } from '../src/shell/sandbox.js';

function findOnPath(name: string): string | undefined {
  for (const directory of (process.env.PATH ?? '').split(delimiter)) {
    try {
      accessSync(join(directory, name), constants.X_OK);
      return join(directory, name);
    } catch {
      // keep looking
    }
  }
  return undefined;
}

const bwrapPath = findOnPath('bwrap');
if (bwrapPath === undefined) {
  console.warn(
    'sandbox tests skipped: bubblewrap (bwrap) is not installed; install it with apt-get install bubblewrap',
  );
}

describe('probeSandbox', () => {
  it('reports a missing bwrap and names the package to install', async () => {
    const emptyDir = mkdtempSync(join(tmpdir(), 'agent-no-bwrap-'));
    try {
      const probe = await probeSandbox(emptyDir, emptyDir);
      expect(probe.ok).toBe(false);
      if (!probe.ok) {
        expect(probe.message).toContain('bubblewrap');
        expect(probe.message).toContain('apt-get install bubblewrap');
        expect(probe.message.split('\n').length).toBeLessThanOrEqual(2);
      }
    } finally {
      rmSync(emptyDir, { recursive: true, force: true });
    }
  });

  it.skipIf(bwrapPath === undefined)(
    'finds bwrap and runs a command under it, its scratch in the place given',
    async () => {
      const scratchParent = mkdtempSync(join(tmpdir(), 'agent-probe-scratch-'));
      try {
        expect(await probeSandbox(process.env.PATH ?? '', scratchParent)).toEqual({ ok: true, bwrapPath });
        expect(readdirSync(scratchParent)).toEqual([]);
      } finally {
        rmSync(scratchParent, { recursive: true, force: true });
      }
    },
  );
});

describe.skipIf(bwrapPath === undefined)('commands under the sandbox', () => {
  // Both under /tmp on purpose: their binds must survive the private /tmp.
  let workDir: string;
  let stateDir: string;
  let wrap: SandboxWrapper;
  let server: Server;
  let port: number;
  const canary = `/etc/agent-sandbox-canary-${process.pid}`;

  const runSandboxed = (script: string, cwd = workDir): SpawnSyncReturns<string> => {
    const [command, ...args] = wrap(['bash', '-c', script], { cwd, stateDir }) as [string, ...string[]];
    return spawnSync(command, args, { encoding: 'utf8', timeout: 15_000 });
  };

  beforeAll(async () => {
    workDir = mkdtempSync(join(tmpdir(), 'agent-sandbox-work-'));
    stateDir = mkdtempSync(join(tmpdir(), 'agent-sandbox-state-'));
    wrap = sandboxWrap(bwrapPath as string, workDir);
    server = createServer((socket) => socket.end('hello\n'));
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    port = (server.address() as AddressInfo).port;
  });

  afterAll(async () => {
    rmSync(workDir, { recursive: true, force: true });
    rmSync(stateDir, { recursive: true, force: true });
    rmSync(canary, { force: true });
    await new Promise((resolve) => server.close(resolve));
  });

  it('builds the argv: bwrap, flags, --chdir cwd, --, the command', () => {
    const argv = wrap(['bash', '-c', 'true'], { cwd: workDir, stateDir });
    expect(argv[0]).toBe(bwrapPath);
    expect(argv.slice(-5)).toEqual(['--chdir', workDir, '--', 'bash', '-c', 'true'].slice(-5));
    expect(argv.indexOf('--tmpfs')).toBeLessThan(argv.indexOf(workDir));
    expect(argv).toEqual(
      expect.arrayContaining(['--unshare-net', '--unshare-pid', '--die-with-parent', '--new-session']),
    );
  });

  it('cannot write outside the working directory', () => {
    const result = runSandboxed(`echo pwned > ${canary}`);
    expect(result.status).not.toBe(0);
    expect(result.stderr).toMatch(/Read-only file system|Permission denied/);
    expect(existsSync(canary)).toBe(false);
  });

  it('cannot remount the root filesystem read-write, even as root', () => {
    const result = runSandboxed(`mount -o remount,rw / 2>&1; echo pwned > ${canary}`);
    expect(result.status).not.toBe(0);
    expect(existsSync(canary)).toBe(false);
  });

  it('writes in the working directory land outside, and runs in ctx.cwd', () => {
    const result = runSandboxed('pwd; echo made-inside > out.txt');
    expect(result.status).toBe(0);
    expect(result.stdout.trim()).toBe(workDir);
    expect(readFileSync(join(workDir, 'out.txt'), 'utf8')).toBe('made-inside\n');
  });

  it('the state directory is read-only, but for its writable directory', () => {
    const writableDir = join(stateDir, 'rw');
    mkdirSync(writableDir, { recursive: true });
    const [command, ...args] = wrap(['bash', '-c', `pwd > ${writableDir}/cwd; echo x > ${stateDir}/planted`], {
      cwd: workDir,
      stateDir,
      writableDir,
    }) as [string, ...string[]];
    const result = spawnSync(command, args, { encoding: 'utf8', timeout: 15_000 });
    expect(result.stderr).toContain('Read-only file system');
    expect(readFileSync(join(writableDir, 'cwd'), 'utf8')).toBe(`${workDir}\n`);
    expect(existsSync(join(stateDir, 'planted'))).toBe(false);
  });

  it('has a private /tmp', () => {
    const name = `agent-sandbox-private-${process.pid}`;
    const result = runSandboxed(`echo secret > /tmp/${name} && cat /tmp/${name}`);
    expect(result.status).toBe(0);
    expect(result.stdout).toBe('secret\n');
    expect(existsSync(join('/tmp', name))).toBe(false);
    expect(readdirSync('/tmp')).not.toContain(name);
  });

  it('has no network: a server on the host loopback is unreachable', () => {
    // spawnSync blocks this process, but the kernel completes the handshake on its own.
    const connect = `exec 3<>/dev/tcp/127.0.0.1/${port} && echo connected`;
    // Control: the same command outside the sandbox reaches the server.
    const outside = spawnSync('bash', ['-c', connect], { encoding: 'utf8', timeout: 10_000 });
    expect(outside.stdout).toBe('connected\n');
    const inside = runSandboxed(connect);
    expect(inside.status).not.toBe(0);
    expect(inside.stdout).toBe('');
  });

  it('passes the exit status through', () => {
    expect(runSandboxed('exit 7').status).toBe(7);
  });

  it('leaves no background process behind when the command ends', async () => {
    const marker = `${4000 + (process.pid % 1000)}.25`;
    const result = runSandboxed(`sleep ${marker} & setsid sleep ${marker} & echo started`);
    expect(result.stdout).toBe('started\n');
    await waitUntil(() => processesRunning(`sleep ${marker}`) === 0);
    expect(processesRunning(`sleep ${marker}`)).toBe(0);
  });

  it('killing the outer process group kills everything inside', async () => {
    const marker = `${5000 + (process.pid % 1000)}.5`;
    const [command, ...args] = wrap(
      ['bash', '-c', `sleep ${marker} & (setsid sleep ${marker} &); echo started; wait`],
      {
        cwd: workDir,
        stateDir,
      },
    ) as [string, ...string[]];
    const child = spawn(command, args, { detached: true, stdio: ['ignore', 'pipe', 'ignore'] });
    await new Promise<void>((resolve) => child.stdout.once('data', () => resolve()));
    // "started" can come before both sleeps have exec'd.
    await waitUntil(() => processesRunning(`sleep ${marker}`) === 2);
    expect(processesRunning(`sleep ${marker}`)).toBe(2);
    process.kill(-(child.pid as number), 'SIGTERM');
    await waitUntil(() => processesRunning(`sleep ${marker}`) === 0);
    expect(processesRunning(`sleep ${marker}`)).toBe(0);
  });
});

function processesRunning(commandLine: string): number {
  let count = 0;
  for (const entry of readdirSync('/proc')) {
    if (!/^\d+$/.test(entry)) continue;
    try {
      const cmdline = readFileSync(`/proc/${entry}/cmdline`, 'utf8').split('\0').join(' ').trim();
      const state = /^State:\s+(\S)/m.exec(readFileSync(`/proc/${entry}/status`, 'utf8'))?.[1];
      if (cmdline === commandLine && state !== 'Z') count += 1;
    } catch {
      // the process ended while we looked
    }
  }
  return count;
}

async function waitUntil(condition: () => boolean, timeoutMs = 5000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!condition() && Date.now() < deadline) await new Promise((resolve) => setTimeout(resolve, 50));
}

describe.skipIf(bwrapPath === undefined)('hidden runtime directories', () => {
  it('hides /run and leaves out a directory that does not exist (a machine without /run)', () => {
    const workDir = mkdtempSync(join(tmpdir(), 'agent-sandbox-run-'));
    try {
      const missing = join(workDir, 'no-such-run');
      const wrap = sandboxWrap(bwrapPath as string, workDir, { hiddenDirs: [missing, '/run'] });
      const argv = wrap(['bash', '-c', 'ls -A /run | wc -l'], { cwd: workDir, stateDir: workDir });
      expect(argv).not.toContain(missing);
      const [command, ...args] = argv as [string, ...string[]];
      const result = spawnSync(command, args, { encoding: 'utf8', timeout: 15_000 });
      expect(result.stdout.trim()).toBe('0');
      expect(result.status).toBe(0);
    } finally {
      rmSync(workDir, { recursive: true, force: true });
    }
  });
});
