// --sandbox with the state directory inside the writable working directory: a command tries to plant a session and a
// run record that a later run would act on, and to swap the directory for one of its own. The state directory is
// shown read-only, so nothing lands, while the run's own session is still saved (the host writes it).
import { existsSync, mkdirSync, readdirSync, symlinkSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { answerWithLastResult, bash } from '../support/run-agent.js';
import { bwrapPath } from './attack-support.js';
import { agentIn, resultOf, useScratch } from '../support/session-files.js';
import { useServer } from '../support/use-server.js';

const serve = useServer();
const scratch = useScratch();

const PLANT =
  'echo "{}" > "$d/sessions/planted.jsonl" && echo WROTE-SESSION; ' +
  'echo "{}" > "$d/running/99999-1.json" && echo WROTE-RECORD; ' +
  'mv "$d" "$d.old" && mkdir -p "$d/sessions" && echo SWAPPED-DIR; ' +
  'rm -rf "$d" 2>/dev/null; echo done';

describe.skipIf(bwrapPath === undefined)(
  'sandbox: the state directory inside the working directory is read-only to the commands',
  () => {
    it('the working directory is the home: the default state directory cannot be written', async () => {
      const home = scratch('agent-home-');
      const api = await serve([bash(`d=$PWD/.local/state/agent; ${PLANT}`), answerWithLastResult()]);
      const run = await agentIn(api, { cwd: home, state: '' }, ['--sandbox', 'go'], {
        env: { HOME: home, XDG_STATE_HOME: undefined },
      });
      expect(run.code).toBe(0);
      const root = join(home, '.local/state/agent');
      expectUntouched(resultOf(run).result, root);
      // The run's own session is written by the host, not by the sandbox.
      expect(readdirSync(join(root, 'sessions')).filter((name) => name.endsWith('.jsonl'))).toHaveLength(1);
    });

    it('XDG_STATE_HOME inside the checkout, its agent directory not there yet, sessions off', async () => {
      const cwd = scratch('agent-work-');
      const state = join(cwd, 'state');
      const api = await serve([
        bash(`d=${state}/agent; mkdir -p "$d/sessions" "$d/running"; ${PLANT}`),
        answerWithLastResult(),
      ]);
      const run = await agentIn(api, { cwd, state }, ['--sandbox', '--no-session-persistence', 'go']);
      expect(run.code).toBe(0);
      expectUntouched(resultOf(run).result, join(state, 'agent'));
    });

    it('a state directory that is a link is left as it is: the sandbox cannot put a real one in its place', async () => {
      const cwd = scratch('agent-work-');
      const elsewhere = scratch('agent-elsewhere-');
      mkdirSync(join(cwd, 'state'));
      symlinkSync(elsewhere, join(cwd, 'state/agent'));
      const api = await serve([
        bash(`d=${cwd}/state/agent; rm "$d" && mkdir -p "$d/sessions" && echo REPLACED-LINK`),
        answerWithLastResult(),
      ]);
      const run = await agentIn(api, { cwd, state: join(cwd, 'state') }, ['--sandbox', 'go']);
      expect(run.code).toBe(0);
      expect(resultOf(run).result).not.toContain('REPLACED-LINK');
      expect(existsSync(join(cwd, 'state/agent/sessions'))).toBe(false);
    });
  },
);

function expectUntouched(output: string, root: string): void {
  expect(output).toContain('done');
  for (const wrote of ['WROTE-SESSION', 'WROTE-RECORD', 'SWAPPED-DIR']) expect(output).not.toContain(wrote);
  expect(existsSync(join(root, 'sessions/planted.jsonl'))).toBe(false);
  expect(existsSync(join(root, 'running/99999-1.json'))).toBe(false);
  expect(existsSync(`${root}.old`)).toBe(false);
}
