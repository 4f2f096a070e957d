// The GitHub Action, run step by step from action.yml as a runner would run it, against the test server.
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { ACTION_ROOT, loadAction, parseOutputFile, runAction } from './support/action-runner.js';
import { answer, answerWithLastResult, bash, tempDir } from './support/run-agent.js';
import type { TestServer } from './support/server.js';
import { useServer } from './support/use-server.js';

const serve = useServer();
const KEY = 'sk-action-test-0123456789';

function jobEnv(s: TestServer): Record<string, string> {
  return { PATH: process.env.PATH ?? '/usr/bin:/bin', HOME: process.env.HOME ?? '/root', LANG: 'C.UTF-8', ANTHROPIC_BASE_URL: s.url, AGENT_RETRY_BASE_MS: '10' };
}

describe('action.yml', () => {
  it('declares the inputs and outputs the README names, and passes the key only through the environment', () => {
    const action = loadAction();
    expect(Object.keys(action.inputs)).toEqual(
      expect.arrayContaining(['prompt', 'prompt-file', 'json-schema', 'sandbox', 'max-turns', 'max-budget-usd', 'max-duration', 'model', 'args', 'anthropic-api-key', 'fail-on-error']),
    );
    expect(Object.keys(action.outputs)).toEqual(expect.arrayContaining(['result', 'structured_output', 'subtype', 'exit_code', 'session_id', 'total_cost_usd']));
    for (const step of action.runs.steps) expect(step.run, `step ${step.name} takes no expression on its command line`).not.toMatch(/\$\{\{/);
    const script = readFileSync(join(ACTION_ROOT, 'action/run.mjs'), 'utf8');
    expect(script.match(/ANTHROPIC_API_KEY/g)?.length).toBe(2);
    expect(script).toMatch(/env\.ANTHROPIC_API_KEY = key/);
  });

  it('runs the task and hands over the answer, subtype, exit code and cost as outputs, with a job summary', async () => {
    const s = await serve([bash('echo 42 > answer.txt'), answer('The answer is **42**.')], { requireAuth: { apiKey: KEY } });
    const workspace = tempDir();
    const run = await runAction({ prompt: 'write the answer', 'anthropic-api-key': KEY, model: 'claude-sonnet-4-5' }, jobEnv(s), workspace);
    expect(run.code).toBe(0);
    expect(run.steps.map((step) => [step.name, step.skipped])).toEqual([['Install bubblewrap', true], ['Build agent', false], ['Run agent', false]]);
    expect(run.outputs).toMatchObject({ result: 'The answer is **42**.', subtype: 'success', exit_code: '0', structured_output: '' });
    expect(Number(run.outputs.total_cost_usd)).toBeGreaterThan(0);
    expect(JSON.parse(readFileSync(run.outputs.result_file!, 'utf8'))).toMatchObject({ type: 'result', num_turns: 2, commands: 1 });
    expect(readFileSync(join(workspace, 'answer.txt'), 'utf8')).toBe('42\n');
    expect(run.summary).toMatch(/^### agent: success/);
    expect(run.summary).toMatch(/\| 2 \| 1 \| \d+\.\d s \| \$0\.\d{4} \|/);
    expect(run.summary).toContain('The answer is **42**.');
    for (const step of run.steps) expect(step.stdout + step.stderr).not.toContain(KEY);
  });

  it('fails the step when the run does not finish, still writing every output', async () => {
    const s = await serve([bash('true'), bash('true')]);
    const run = await runAction({ prompt: 'loop', 'max-turns': '1' }, { ...jobEnv(s), ANTHROPIC_API_KEY: KEY }, tempDir());
    expect(run.code).toBe(1);
    expect(run.outputs).toMatchObject({ subtype: 'error_max_turns', exit_code: '1', result: '' });
    expect(run.steps.at(-1)!.stdout).toMatch(/::error title=agent::Stopped after 1 model call/);
    expect(run.summary).toMatch(/### agent: error_max_turns[\s\S]*\*\*Error:\*\* Stopped after 1 model call/);
  });

  it("keeps the step green with fail-on-error: 'false', the exit code still in the outputs", async () => {
    const s = await serve([{ kind: 'http_error', status: 401 }]);
    const run = await runAction({ prompt: 'x', 'fail-on-error': 'false' }, { ...jobEnv(s), ANTHROPIC_API_KEY: KEY }, tempDir());
    expect(run.code).toBe(0);
    expect(run.outputs).toMatchObject({ subtype: 'error_api', exit_code: '3' });
  });

  it('reads the task from prompt-file, passes extra args line by line, and works in working-directory', async () => {
    const s = await serve([bash('pwd'), answer('done')]);
    const workspace = tempDir();
    const sub = join(workspace, 'sub');
    mkdirSync(sub);
    writeFileSync(join(sub, 'task.md'), 'Say where you are.\n');
    const args = '--append-system-prompt\nAlways mention the planet Neptune.\n\n';
    const run = await runAction({ 'prompt-file': 'task.md', args, 'working-directory': 'sub' }, { ...jobEnv(s), ANTHROPIC_API_KEY: KEY }, workspace);
    expect(run.code).toBe(0);
    const [first, second] = s.validRequests();
    expect(JSON.stringify(first!.body.messages)).toContain('Say where you are.');
    expect(JSON.stringify(first!.body.system)).toContain('Always mention the planet Neptune.');
    expect(JSON.stringify(second!.body.messages)).toContain(sub);
  });

  it('hands over a structured answer with json-schema, as JSON text and in the summary', async () => {
    const s = await serve([answer('{"verdict":"approve","reasons":["small diff"]}')]);
    const schema = '{"type":"object","properties":{"verdict":{"enum":["approve","reject"]},"reasons":{"type":"array","items":{"type":"string"}}},"required":["verdict"]}';
    const run = await runAction({ prompt: 'review', 'json-schema': schema }, { ...jobEnv(s), ANTHROPIC_API_KEY: KEY }, tempDir());
    expect(run.code).toBe(0);
    expect(JSON.parse(run.outputs.structured_output!)).toEqual({ verdict: 'approve', reasons: ['small diff'] });
    expect(run.summary).toContain('```json\n{\n  "verdict": "approve"');
  });

  it('passes the budgets on and hands over the session id, which a later run resumes', async () => {
    const s = await serve([bash('sleep 20'), answer('second step done')]);
    const workspace = tempDir();
    const env = { ...jobEnv(s), ANTHROPIC_API_KEY: KEY };
    const first = await runAction({ prompt: 'slow task', 'max-duration': '1', 'max-budget-usd': '5', model: 'claude-sonnet-4-5', 'fail-on-error': 'false' }, env, workspace);
    expect(first.code).toBe(0);
    expect(first.outputs).toMatchObject({ subtype: 'error_max_duration', exit_code: '1' });
    expect(first.outputs.session_id).toMatch(/^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/);
    const second = await runAction({ prompt: 'go on', args: `--resume\n${first.outputs.session_id}` }, env, workspace);
    expect(second.code).toBe(0);
    expect(second.outputs).toMatchObject({ result: 'second step done', session_id: first.outputs.session_id });
  });

  it.skipIf(!existsSync('/usr/bin/bwrap'))('runs with sandbox: true, the commands under bubblewrap', async () => {
    const s = await serve([bash('touch /etc/agent-sandbox-test 2>&1 || echo read-only'), answerWithLastResult()]);
    const run = await runAction({ prompt: 'try', sandbox: 'true' }, { ...jobEnv(s), ANTHROPIC_API_KEY: KEY }, tempDir());
    expect(run.steps.map((step) => step.skipped)).toEqual([false, false, false]);
    expect(run.code).toBe(0);
    expect(run.outputs.result).toMatch(/read-only|Read-only file system/);
  });

  it('a missing working-directory is the agent\'s own usage error, with every output written', async () => {
    const s = await serve([answer('never')]);
    const run = await runAction({ prompt: 'x', 'working-directory': '/no/such/dir' }, { ...jobEnv(s), ANTHROPIC_API_KEY: KEY }, tempDir());
    expect(run.code).toBe(2);
    expect(run.outputs).toMatchObject({ subtype: 'error_usage', exit_code: '2' });
    expect(run.steps.at(-1)!.stdout).toContain('Working directory /no/such/dir does not exist.');
    expect(s.requests).toEqual([]);
  });

  it('refuses bad inputs with an error annotation and no request', async () => {
    const s = await serve([answer('never')]);
    const bad: Array<Record<string, string>> = [{}, { prompt: 'a', 'prompt-file': 'b' }, { prompt: 'a', sandbox: 'yes' }, { prompt: 'a', 'fail-on-error': 'no' }];
    for (const inputs of bad) {
      const run = await runAction(inputs, { ...jobEnv(s), ANTHROPIC_API_KEY: KEY }, tempDir());
      expect(run.code).toBe(2);
      expect(run.steps.at(-1)!.stdout).toMatch(/^::error title=agent::/);
    }
    expect(s.requests).toEqual([]);
  });
});

describe('GITHUB_OUTPUT records', () => {
  it('keep multi-line values whole', () => {
    expect(parseOutputFile('a<<X\none\ntwo\nX\nb=3\n')).toEqual({ a: 'one\ntwo', b: '3' });
  });
});
