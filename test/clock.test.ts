// The run's clock: milliseconds as performance.now() counts them, and a run through the binary that never loads
// perf_hooks (Node's performance global), with a command and a retry.
import { describe, expect, it } from 'vitest';
import { nowMs } from '../src/clock.js';
import { builtinsLoaded } from './support/builtins-loaded.js';
import { answer, bash } from './support/run-agent.js';
import { useServer } from './support/use-server.js';

const serve = useServer();

describe('nowMs', () => {
  it('counts milliseconds as performance.now() does, and never goes back', async () => {
    const [clockBefore, perfBefore] = [nowMs(), performance.now()];
    let last = clockBefore;
    for (let i = 0; i < 1000; i++) {
      const now = nowMs();
      expect(now).toBeGreaterThanOrEqual(last);
      last = now;
    }
    await new Promise((resolve) => setTimeout(resolve, 50));
    const clockElapsed = nowMs() - clockBefore;
    const perfElapsed = performance.now() - perfBefore;
    expect(clockElapsed).toBeGreaterThanOrEqual(45);
    expect(Math.abs(clockElapsed - perfElapsed)).toBeLessThan(5);
  });
});

describe('a run', () => {
  it('never loads perf_hooks, with a command and a retry', async () => {
    const s = await serve([{ kind: 'http_error', status: 529 }, bash('echo hi'), answer('done')]);
    const { run, loaded } = await builtinsLoaded(s, /perf_hooks|internal\/perf\/performance$/);
    expect(run.code).toBe(0);
    expect(run.stdout).toBe('done\n');
    expect(loaded).toBe('');
  });
});
