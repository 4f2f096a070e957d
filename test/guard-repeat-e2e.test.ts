// One run, many commands, through the binary: the guard keeps what every command shares (the run's rules, its
// parser) and must still judge each command where and as it runs. The model mixes plain lines that hide a dangerous
// command behind a wrapper or a reserved word with the same lines again, a directory change and ordinary work.
// Stand-ins for sudo and rm come first on PATH, so a command that slips through is visible and harmless.
import { mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { answer, bash, runAgent, tempDir, toolResults } from './support/run-agent.js';
import { fakePath } from './support/stand-ins.js';
import { useServer } from './support/use-server.js';

const serve = useServer();

const COMMANDS: readonly (readonly [command: string, verdict: 'runs' | RegExp])[] = [
  ['git --version', 'runs'],
  ['git push', /user-deny/],
  ['env sudo id', /privilege-escalation/],
  ['true', 'runs'],
  ['nice -n 5 timeout 10 sudo id', /privilege-escalation/],
  ['coproc sudo id', /privilege-escalation/],
  ['time sudo id', /privilege-escalation/],
  ['git --version', 'runs'],
  ['git push --force', /user-deny/],
  ['rm -rf usr', 'runs'],
  ['cd /', 'runs'],
  ['rm -rf usr', /recursive-delete/],
  ['xargs rm -rf /', /recursive-delete/],
  ['eval sudo id', /privilege-escalation/],
  ['true', 'runs'],
];

describe('the guard over a run of commands, through the binary', () => {
  it('judges every command as it comes, the same line the same way each time, and in the directory it runs in', async () => {
    const dir = tempDir();
    mkdirSync(join(dir, 'usr'));
    const s = await serve([...COMMANDS.map(([command]) => bash(command)), answer('ok')]);
    const run = await runAgent(['--deny', 'git push*', 'go'], s.url, {
      cwd: dir,
      env: { PATH: fakePath('sudo', 'rm') },
    });
    expect(run.code).toBe(0);
    const results = s
      .validRequests()
      .slice(1)
      .map((request) => toolResults(request)[0]!);
    expect(results).toHaveLength(COMMANDS.length);
    COMMANDS.forEach(([command, verdict], index) => {
      const result = results[index]!;
      if (verdict === 'runs') {
        expect(result.content, command).not.toMatch(/blocked by the guard/);
      } else {
        expect(result, command).toMatchObject({ is_error: true, content: expect.stringMatching(verdict) });
        expect(result.content, command).not.toMatch(/fake (sudo|rm) ran/);
      }
    });
  });
});
