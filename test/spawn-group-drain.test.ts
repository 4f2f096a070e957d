// After its leader exits, a command's pipes are read a little longer for output still in flight: a command whose pipes
// end at once leaves nothing behind (no timer to fire later), and one whose background child keeps them open hands them
// over, still read, once the drain's time is up.
import { afterEach, describe, expect, it } from 'vitest';
import { runInGroup } from '../src/shell/spawn-group.js';
import { signalGroup } from '../src/shell/process-groups.js';

const DRAIN_MS = 150;
const started: number[] = [];
afterEach(() => {
  for (const pgid of started.splice(0)) signalGroup(pgid, 'SIGKILL');
});

function run(script: string, onData: (text: string) => void = () => {}) {
  return runInGroup({
    argv: ['bash', '--norc', '--noprofile', '-c', script],
    cwd: process.cwd(),
    env: { PATH: process.env.PATH ?? '/usr/bin:/bin' },
    timeoutMs: 10_000,
    killGraceMs: 1_000,
    abortGraceMs: 500,
    drainMs: DRAIN_MS,
    onData: (_stream, bytes) => onData(bytes.toString()),
    onSpawn: (pgid) => started.push(pgid),
  });
}

const timers = () => process.getActiveResourcesInfo().filter((kind) => kind === 'Timeout').length;

describe('the drain after a command', () => {
  it('leaves no timer behind when the pipes end before the drain is up', async () => {
    const before = timers();
    const result = await run('echo done');
    expect(result.exitCode).toBe(0);
    expect(result.lingering).toEqual([]);
    expect(timers()).toBe(before);
  });

  it('still reads output in flight after the leader exits, and hands over pipes a background child holds', async () => {
    let output = '';
    const startedAt = performance.now();
    const result = await run('(sleep 0.05; echo late) & (sleep 5; echo never) & echo now', (text) => {
      output += text;
    });
    const waitedMs = performance.now() - startedAt;
    expect(output).toBe('now\nlate\n');
    expect(result.lingering.length).toBe(2);
    expect(waitedMs).toBeGreaterThanOrEqual(DRAIN_MS - 5);
    expect(waitedMs).toBeLessThan(3_000);
    for (const stream of result.lingering) stream.destroy();
  });
});
