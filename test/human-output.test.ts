// The words on stderr off a terminal (a log, a CI step): how each command ended, and counts in the right number.
import { describe, expect, it } from 'vitest';
import { answer, bash, runAgent } from './support/run-agent.js';
import { useServer } from './support/use-server.js';

const serve = useServer();

describe('commands in a log', () => {
  it('shows each command, its output, then its duration and a non-zero exit code', async () => {
    const s = await serve([bash('echo out; exit 2'), bash('true'), answer('done')]);
    const run = await runAgent(['go'], s.url);
    expect(run.code).toBe(0);
    expect(run.stderr).toMatch(
      /^\$ echo out; exit 2\n {2}│ out\n {2}└ \d\.\d s · exit code 2\n\$ true\n {2}│ \(no output\)\n {2}└ \d\.\d s\n/,
    );
    // The executor's own `exit code: 2` line goes to the model, not twice to people.
    expect(run.stderr).not.toContain('exit code: 2');
    expect(run.stderr).not.toContain('\u001b');
  });

  it('shows a blocked command with its reason and no duration', async () => {
    const s = await serve([bash('rm -rf /'), answer('done')]);
    const run = await runAgent(['go'], s.url);
    expect(run.stderr).toMatch(/^\$ rm -rf \/\n {2}✗ .+\n/);
    expect(run.stderr).not.toContain('└');
  });
});

describe('singular and plural', () => {
  it.each([
    [5, '… 1 more line in the result'],
    [6, '… 2 more lines in the result'],
  ])('a preview of %i lines says "%s"', async (count, words) => {
    const s = await serve([bash(`seq ${count}`), answer('done')]);
    const run = await runAgent(['go'], s.url);
    expect(run.stderr).toContain(`  │ ${words}\n`);
  });

  it('a command of two lines is echoed with "(+1 line)"', async () => {
    const s = await serve([bash('echo a\necho b'), answer('done')]);
    const run = await runAgent(['go'], s.url);
    expect(run.stderr).toContain('$ echo a … (+1 line)\n');
  });

  it('--max-turns 1 stops "after 1 model call"', async () => {
    const s = await serve([bash('true'), answer('never')]);
    const run = await runAgent(['--max-turns', '1', 'go'], s.url);
    expect(run.code).toBe(1);
    expect(run.stderr).toContain('agent: Stopped after 1 model call (--max-turns) without a finished answer.\n');
  });
});
