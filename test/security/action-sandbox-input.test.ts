// The Action's boolean inputs fail closed: `with: sandbox: ${{ inputs.sandbox }}` that evaluates to '' (an unset
// variable, a missing workflow_dispatch input) must not run the model's commands unconfined.
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { jobEnv, runAction } from '../support/action-runner.js';
import { answer, answerWithLastResult, bash, tempDir } from '../support/run-agent.js';
import { startServer, type TestServer } from '../support/server.js';
import { bwrapPath } from './attack-support.js';

const KEY = 'sk-action-inputs-0123456789';
const open: TestServer[] = [];
afterEach(async () => {
  await Promise.all(open.splice(0).map((server) => server.close()));
});

const PROBE =
  'touch /etc/agent-probe-$$ 2>/dev/null && { echo UNCONFINED; rm -f /etc/agent-probe-$$; } || echo confined';

describe('empty boolean inputs', () => {
  it.skipIf(bwrapPath === undefined)("sandbox: '' runs the commands confined", async () => {
    const s = await startServer([bash(PROBE), answerWithLastResult()]);
    open.push(s);
    const run = await runAction({ prompt: 'x', sandbox: '', 'anthropic-api-key': KEY }, jobEnv(s.url), tempDir());
    expect(run.outputs.result).toBe('confined');
  });

  it("sandbox: 'false' is the only way to run them unconfined", async () => {
    const s = await startServer([bash(PROBE), answerWithLastResult()]);
    open.push(s);
    const run = await runAction({ prompt: 'x', sandbox: 'false', 'anthropic-api-key': KEY }, jobEnv(s.url), tempDir());
    expect(run.outputs.result).toBe('UNCONFINED');
  });

  it("project-instructions: '' reads no instruction files", async () => {
    const s = await startServer([answer('done')]);
    open.push(s);
    const workspace = tempDir();
    writeFileSync(join(workspace, 'AGENTS.md'), 'REPOSITORY-WORDS\n');
    const inputs = { prompt: 'x', sandbox: 'false', 'project-instructions': '', 'anthropic-api-key': KEY };
    await runAction(inputs, jobEnv(s.url), workspace);
    expect(JSON.stringify(s.requests[0]!.body.system)).not.toContain('REPOSITORY-WORDS');
  });
});
