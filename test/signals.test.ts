// SIGINT and SIGTERM through the real binary: exit status, the result object, the transcript, and no process left.
import type { ChildProcess } from 'node:child_process';
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { isRunning, waitUntil, pidIn } from './support/processes.js';
import { answer, bash, readRecords, runAgent, tempDir, type AgentOptions } from './support/run-agent.js';
import { type TestServer, type Turn } from './support/server.js';
import { useServer } from './support/use-server.js';

const serve = useServer();

interface Signalling {
  /** When each signal was sent (performance.now()). */
  sentAt: number[];
  onSpawn: AgentOptions['onSpawn'];
}

/** Sends the signals, `gapMs` apart, to the agent once `ready()` holds. */
function signalWhen(ready: () => boolean, signals: NodeJS.Signals[], gapMs = 0): Signalling {
  const sentAt: number[] = [];
  const onSpawn = (child: ChildProcess) => {
    void (async () => {
      if (!(await waitUntil(ready, 10_000))) return;
      for (const [index, signal] of signals.entries()) {
        if (index > 0) await new Promise((resolve) => setTimeout(resolve, gapMs));
        if (child.exitCode !== null || child.signalCode !== null) return;
        child.kill(signal);
        sentAt.push(performance.now());
      }
    })();
  };
  return { sentAt, onSpawn };
}

/** Exit and elapsed time from the last signal, measured by the caller's clock. */
async function runAndSignal(args: string[], s: TestServer, signalling: Signalling, cwd: string) {
  const run = await runAgent(args, s.url, { cwd, onSpawn: signalling.onSpawn, timeoutMs: 15_000 });
  const exitedAt = performance.now();
  expect(signalling.sentAt.length).toBeGreaterThan(0);
  return { run, afterSignalMs: exitedAt - signalling.sentAt.at(-1)! };
}

const LONG_COMMAND = 'sleep 100 & echo $! > sleep.pid; wait';

describe('a signal during a command', () => {
  it.each([
    ['SIGINT', 130],
    ['SIGTERM', 143],
  ] as const)('%s: exit %i within 2 s, the command killed, one result object', async (signal, code) => {
    const dir = tempDir();
    const s = await serve([bash(LONG_COMMAND), answer('never')]);
    const signalling = signalWhen(() => pidIn(join(dir, 'sleep.pid')) > 0, [signal]);
    const { run, afterSignalMs } = await runAndSignal(['--output-format', 'json', 'go'], s, signalling, dir);
    expect(run.code).toBe(code);
    expect(afterSignalMs).toBeLessThan(2000);
    const lines = run.stdout.trim().split('\n');
    expect(lines).toHaveLength(1);
    expect(JSON.parse(lines[0]!)).toMatchObject({
      type: 'result',
      subtype: 'error_interrupted',
      is_error: true,
      exit_code: code,
      commands: 1,
    });
    expect(run.stderr).toContain(`Interrupted by ${signal}`);
    const pid = pidIn(join(dir, 'sleep.pid'));
    expect(await waitUntil(() => !isRunning(pid), 1000)).toBe(true);
    expect(s.validRequests()).toHaveLength(1);
  });

  it('flushes the transcript: the request, the killed command and the result are in it', async () => {
    const dir = tempDir();
    const transcript = join(dir, 'run.jsonl');
    const s = await serve([bash(LONG_COMMAND), answer('never')]);
    const signalling = signalWhen(() => pidIn(join(dir, 'sleep.pid')) > 0, ['SIGINT']);
    const { run } = await runAndSignal(['--transcript', transcript, 'go'], s, signalling, dir);
    expect(run.code).toBe(130);
    const records = readRecords(transcript);
    expect(records.map((record) => record.type)).toEqual([
      'session',
      'message',
      'request',
      'response',
      'message',
      'command',
      'message',
      'result',
    ]);
    expect(records[1].message).toMatchObject({ role: 'user', content: 'go' });
    expect(records[5]).toMatchObject({
      command: LONG_COMMAND,
      is_error: true,
      result: expect.stringMatching(/aborted/),
    });
    expect(records[6].message.content[0]).toMatchObject({
      type: 'tool_result',
      is_error: true,
      content: expect.stringMatching(/aborted/),
    });
    expect(records[7]).toMatchObject({ subtype: 'error_interrupted', exit_code: 130 });
  });
});

describe('a signal while waiting for the model', () => {
  it.each([
    ['a response that never comes', { kind: 'hang' }],
    ['a slow response', { kind: 'message', content: [{ type: 'text', text: 'late' }], delayMs: 30_000 }],
  ] as Array<[string, Turn]>)('SIGINT during %s: exit 130 at once, the result printed', async (_case, turn) => {
    const dir = tempDir();
    const s = await serve([turn]);
    const signalling = signalWhen(() => s.requests.length === 1, ['SIGINT']);
    const { run, afterSignalMs } = await runAndSignal(['--output-format', 'json', 'go'], s, signalling, dir);
    expect(run.code).toBe(130);
    expect(afterSignalMs).toBeLessThan(1000);
    expect(JSON.parse(run.stdout)).toMatchObject({ subtype: 'error_interrupted', exit_code: 130, num_turns: 0 });
    expect(run.stderr).not.toMatch(/retry|retrying/i);
  });
});

describe('a signal while the prompt is still being read', () => {
  it.each([
    ['SIGINT', 130, 'json', [] as string[]],
    ['SIGTERM', 143, 'stream-json', ['go']],
  ] as const)('%s: exit %i, the result printed in %s, no request sent', async (signal, code, format, words) => {
    const dir = tempDir();
    const transcript = join(dir, 'run.jsonl');
    const s = await serve([answer('never')]);
    // The transcript is opened once the handlers are in place, just before stdin (an open pipe, never closed) is read.
    const signalling = signalWhen(() => existsSync(transcript), [signal]);
    const args = ['--output-format', format, '--transcript', transcript, ...words];
    const run = await runAgent(args, s.url, {
      cwd: dir,
      stdin: 'open',
      onSpawn: signalling.onSpawn,
      timeoutMs: 15_000,
    });
    const afterSignalMs = performance.now() - signalling.sentAt[0]!;
    expect(run.code).toBe(code);
    expect(afterSignalMs).toBeLessThan(1000);
    const last = JSON.parse(run.stdout.trim().split('\n').at(-1)!);
    expect(last).toMatchObject({ type: 'result', subtype: 'error_interrupted', exit_code: code, num_turns: 0 });
    expect(run.stderr).toContain(`Interrupted by ${signal}`);
    expect(readRecords(transcript).at(-1)).toMatchObject({ subtype: 'error_interrupted' });
    expect(s.requests).toHaveLength(0);
  });
});

describe('a second signal', () => {
  // The group ignores SIGTERM, so the first signal's graceful path waits out the abort grace (about 0.5 s) before SIGKILL.
  const STUBBORN = `trap '' TERM; sleep 100 & echo $! > sleep.pid; wait`;

  it('the first alone takes the graceful path, which is slow when the command ignores SIGTERM', async () => {
    const dir = tempDir();
    const s = await serve([bash(STUBBORN)]);
    const signalling = signalWhen(() => pidIn(join(dir, 'sleep.pid')) > 0, ['SIGINT']);
    const { run, afterSignalMs } = await runAndSignal(['--output-format', 'json', 'go'], s, signalling, dir);
    expect(run.code).toBe(130);
    expect(afterSignalMs).toBeGreaterThan(400);
    expect(afterSignalMs).toBeLessThan(2000);
    expect(JSON.parse(run.stdout)).toMatchObject({ subtype: 'error_interrupted' });
    const pid = pidIn(join(dir, 'sleep.pid'));
    expect(await waitUntil(() => !isRunning(pid), 1000)).toBe(true);
  });

  it('exits at once with 130, and still kills the command', async () => {
    const dir = tempDir();
    const s = await serve([bash(STUBBORN)]);
    const signalling = signalWhen(() => pidIn(join(dir, 'sleep.pid')) > 0, ['SIGINT', 'SIGINT'], 100);
    const { run, afterSignalMs } = await runAndSignal(['--output-format', 'json', 'go'], s, signalling, dir);
    expect(signalling.sentAt).toHaveLength(2);
    expect(run.code).toBe(130);
    expect(afterSignalMs).toBeLessThan(250);
    const pid = pidIn(join(dir, 'sleep.pid'));
    expect(await waitUntil(() => !isRunning(pid), 1000)).toBe(true);
  });
});
