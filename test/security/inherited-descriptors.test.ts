// The descriptors the agent itself was started with (a CI runner's, a parent's that leaked them) must reach no
// command: not a file to read or overwrite, not a socket or a pipe to talk through, not a directory to open files
// by (which under the sandbox would reach past every mount). An attacker inside looks for each, at low and high
// numbers, in the first command and in later ones, in a long command and in what a command starts.
import { closeSync, mkdirSync, openSync, readFileSync, writeFileSync } from 'node:fs';
import { execFileSync } from 'node:child_process';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { descriptorsWithoutCloseOnExec } from '../../src/shell/inherited-descriptors.js';
import { answer, bash, runAgent, tempDir, toolResults } from '../support/run-agent.js';
import type { Turn } from '../support/server-types.js';
import { useServer } from '../support/use-server.js';
import { bwrapPath, noisyHome, outsideTmp } from './attack-support.js';

interface Planted {
  extraStdio: Record<number, number | 'pipe'>;
  secretFile: string;
  close: () => void;
}

const FILE_FDS = [3, 30, 200, 255, 1000, ...Array.from({ length: 12 }, (_, index) => 100 + index)];
const SOCKET_FDS = [4, 31];
const DIRECTORY_FD = 9;
const FIFO_FD = 40;
const PLANTED = [...FILE_FDS, ...SOCKET_FDS, DIRECTORY_FD, FIFO_FD].sort((a, b) => a - b);

/** A secret file open read-write, sockets, a directory holding the secret, and a pipe (a FIFO held open both ways). */
function plantDescriptors(): Planted {
  const dir = outsideTmp('agent-fd-');
  const secretDir = join(dir, 'secrets');
  mkdirSync(secretDir);
  const secretFile = join(secretDir, 'inherited.txt');
  writeFileSync(secretFile, 'host secret\n');
  const fifo = join(dir, 'fifo');
  execFileSync('mkfifo', [fifo]);
  const file = openSync(secretFile, 'r+');
  const directory = openSync(secretDir, 'r');
  const pipe = openSync(fifo, 'r+');
  const extraStdio: Record<number, number | 'pipe'> = { [DIRECTORY_FD]: directory, [FIFO_FD]: pipe };
  for (const fd of FILE_FDS) extraStdio[fd] = file;
  for (const fd of SOCKET_FDS) extraStdio[fd] = 'pipe';
  return { extraStdio, secretFile, close: () => [file, directory, pipe].forEach((fd) => closeSync(fd)) };
}

/**
 * Every way in: is it open, can it be written, read, listed as a directory. Then what is open at all, in bash and in
 * a process it starts (listed into files: a command substitution's own pipe would be counted).
 */
const probe =
  `for n in ${PLANTED.join(' ')}; do [ -e /proc/$$/fd/$n ] && echo "fd $n open"; { echo written >&$n; } 2>/dev/null; ` +
  '{ timeout 1 cat <&$n; } 2>/dev/null; ls /proc/$$/fd/$n/ 2>/dev/null; done; ' +
  "cat /proc/$$/fd/9/inherited.txt 2>/dev/null; ls /proc/$$/fd > bash-fds; sh -c 'ls /proc/$$/fd' > child-fds; " +
  'echo "bash: $(tr "\\n" " " < bash-fds)"; echo "child: $(tr "\\n" " " < child-fds)"';

/** The descriptors above 2 listed on the line that starts with `who`. */
function listed(output: string, who: 'bash' | 'child'): number[] {
  const line = output.split('\n').find((text) => text.startsWith(`${who}: `));
  expect(line, output).toBeDefined();
  return line!
    .slice(who.length + 2)
    .trim()
    .split(' ')
    .map(Number)
    .filter((fd) => fd > 2);
}

function expectNothingReached(output: string, secretFile: string, { longCommand = false } = {}): void {
  expect(output).not.toContain('open');
  expect(output).not.toContain('host secret');
  expect(output).not.toContain('inherited.txt');
  // A long command is read by bash through a descriptor of its own while it runs.
  const inBash = listed(output, 'bash');
  expect(longCommand ? inBash.filter((fd) => PLANTED.includes(fd)) : inBash).toEqual([]);
  expect(listed(output, 'child')).toEqual([]);
  expect(readFileSync(secretFile, 'utf8')).toBe('host secret\n');
}

describe('descriptors the agent inherited', () => {
  const serve = useServer();

  it.each([
    ['under --sandbox', ['--sandbox']],
    ['without the sandbox', []],
  ])('reach no command, first or later, short or long, %s', async (name, flags) => {
    if (flags.length > 0 && bwrapPath === undefined) return;
    const planted = plantDescriptors();
    try {
      const longProbe = `${probe} # ${'x'.repeat(120_000)}`;
      const s = await serve([bash(probe), bash('true'), bash(longProbe), answer('done')]);
      const run = await runAgent([...flags, 'go'], s.url, {
        cwd: tempDir(),
        env: { HOME: noisyHome().home },
        extraStdio: planted.extraStdio,
        timeoutMs: 40_000,
      });
      expect(run.code, `${name}: ${run.stderr}`).toBe(0);
      expectNothingReached(toolResults(s.requests[1]!)[0]!.content, planted.secretFile);
      expectNothingReached(toolResults(s.requests[3]!)[0]!.content, planted.secretFile, { longCommand: true });
    } finally {
      planted.close();
    }
  });

  // In POSIX mode, or privileged, bash reads no BASH_ENV: a shell started so would skip the prologue that closes them.
  it.each([
    ['POSIXLY_CORRECT, without the sandbox', { POSIXLY_CORRECT: '1' }, [], 'posix'],
    ['POSIX_PEDANTIC, without the sandbox', { POSIX_PEDANTIC: '' }, [], 'posix'],
    ['a SHELLOPTS that names posix, without the sandbox', { SHELLOPTS: 'hashall:posix' }, [], 'posix'],
    ['a SHELLOPTS that names privileged, without the sandbox', { SHELLOPTS: 'hashall:privileged' }, [], 'privileged'],
    ['POSIXLY_CORRECT, under --sandbox', { POSIXLY_CORRECT: '1' }, ['--sandbox'], 'posix'],
  ] as Array<[string, Record<string, string>, string[], string]>)(
    'reach no command when the agent runs with %s',
    async (name, settings, flags, option) => {
      if (flags.length > 0 && bwrapPath === undefined) return;
      const planted = plantDescriptors();
      try {
        const s = await serve([bash(`${probe}; shopt -o ${option}`), answer('done')]);
        const run = await runAgent([...flags, 'go'], s.url, {
          cwd: tempDir(),
          env: { HOME: noisyHome().home, ...settings },
          extraStdio: planted.extraStdio,
          timeoutMs: 40_000,
        });
        expect(run.code, `${name}: ${run.stderr}`).toBe(0);
        const output = toolResults(s.requests[1]!)[0]!.content;
        const mode = new RegExp(`^${option}\\s+on$`, 'm');
        expectNothingReached(output.replace(mode, ''), planted.secretFile);
        // And the command runs with what the environment asked for.
        expect(output).toMatch(mode);
      } finally {
        planted.close();
      }
    },
  );

  it.each([
    ['under --sandbox', ['--sandbox']],
    ['without the sandbox', []],
  ])('are the only descriptors of the agent a command could inherit, all through a run, %s', async (_name, flags) => {
    if (flags.length > 0 && bwrapPath === undefined) return;
    const planted = plantDescriptors();
    // What this process hands its children besides the planted ones (a test runner's channel, say).
    const leakedByTests = descriptorsWithoutCloseOnExec() ?? [];
    let agentPid: number | undefined;
    const seen: Array<number[] | undefined> = [];
    /** The agent's descriptors open to its children, read while it waits for the model. */
    const looking =
      (turn: Turn): Turn =>
      () => {
        seen.push(descriptorsWithoutCloseOnExec(`/proc/${agentPid}`));
        return turn;
      };
    try {
      const s = await serve([
        looking(bash('true')),
        looking(bash('cd /; ls >/dev/null')),
        looking(bash('echo again')),
        looking(answer('done')),
      ]);
      const run = await runAgent([...flags, 'go'], s.url, {
        cwd: tempDir(),
        env: { HOME: noisyHome().home },
        extraStdio: planted.extraStdio,
        onSpawn: (child) => (agentPid = child.pid),
        timeoutMs: 40_000,
      });
      expect(run.code).toBe(0);
      expect(seen).toHaveLength(4);
      for (const found of seen) expect(found).toEqual(seen[0]);
      expect(seen[0]).toEqual(expect.arrayContaining([30, 31, 40, 200, 1000]));
      for (const fd of seen[0]!) expect([...PLANTED, ...leakedByTests]).toContain(fd);
    } finally {
      planted.close();
    }
  });
});
