// The directory carry-over through the real binary, when the command does what undoes an EXIT trap:
// its own trap, `trap -`, `exec`, or a timeout.
import { mkdirSync, mkdtempSync, realpathSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { answer, bash, runAgent, toolResults } from './support/run-agent.js';
import { type TestServer } from './support/server.js';
import { useServer } from './support/use-server.js';

const serve = useServer();
let dir: string;

beforeEach(() => {
  dir = realpathSync(mkdtempSync(join(tmpdir(), 'agent-directory-')));
  for (const name of ['a', 'b', 'c', 'd', 'e']) mkdirSync(join(dir, name));
});

afterEach(() => rmSync(dir, { recursive: true, force: true }));

/** The results the model got, request by request (the first request carries none). */
const resultsOf = (s: TestServer) =>
  s
    .validRequests()
    .slice(1)
    .map((request) => toolResults(request)[0]!);

describe('the directory carries over', () => {
  it("after the command's own EXIT trap, `trap - EXIT`, `exec` and `exec bash`", async () => {
    const s = await serve([
      bash(`cd ${dir}/a && trap 'echo bye' EXIT`),
      bash('pwd'),
      bash(`cd ${dir}/b; trap - EXIT`),
      bash('pwd'),
      bash(`cd ${dir}/c; exec true`),
      bash('pwd'),
      // The directory at the moment of exec is the one the shell ended in.
      bash(`cd ${dir}/d && exec bash -c 'cd /; echo "exec'"'"'d in $PWD"'`),
      bash('pwd'),
      answer('ok'),
    ]);
    const run = await runAgent(['go'], s.url, { cwd: dir });
    expect(run.code).toBe(0);
    expect(resultsOf(s).map((result) => result.content)).toEqual([
      'bye',
      join(dir, 'a'),
      '(no output)',
      join(dir, 'b'),
      '(no output)',
      join(dir, 'c'),
      "exec'd in /",
      join(dir, 'd'),
    ]);
  });

  it('after a timeout: the last directory the shell was known to be in', async () => {
    const s = await serve([
      bash(`cd a && trap 'echo bye' EXIT && cd ../e && sleep 30`, { timeout: 1 }),
      bash('pwd'),
      answer('ok'),
    ]);
    const run = await runAgent(['go'], s.url, { cwd: dir });
    expect(run.code).toBe(0);
    const [timedOut, where] = resultsOf(s);
    expect(timedOut!.content).toMatch(/timed out after 1 s/);
    expect(where!.content).toBe(join(dir, 'e'));
  });

  it('not from a subshell, and a failed cd reads as bash says it', async () => {
    const s = await serve([
      bash('cd a; (cd ../b); x=$(cd ../c; pwd); echo "$x" | { cd ../d; cat; }'),
      bash('pwd'),
      bash('echo first\ncd ./missing'),
      answer('ok'),
    ]);
    const run = await runAgent(['go'], s.url, { cwd: dir });
    expect(run.code).toBe(0);
    const [, where, failed] = resultsOf(s);
    expect(where!.content).toBe(join(dir, 'a'));
    expect(failed!.content).toBe('first\nbash: line 2: cd: ./missing: No such file or directory\nexit code: 1');
  });
});
