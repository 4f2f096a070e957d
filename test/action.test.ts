// The GitHub Action, run as a runner runs a JavaScript action (test/support/action-runner.ts), against the test
// server. The gate has its own file (action-gate.test.ts); the log, the summary and the sandbox are here.
import { existsSync, mkdirSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { ACTION_ROOT, jobEnv, loadAction, parseOutputFile, runAction } from './support/action-runner.js';
import { answer, answerWithLastResult, bash, tempDir } from './support/run-agent.js';
import { standIns } from './support/stand-ins.js';
import { useServer } from './support/use-server.js';

// What a sandboxed command tries to create in /etc: removed after each test whatever the outcome, since one left by a
// failed run would fail every later one.
const CANARY = `/etc/agent-sandbox-canary-${process.pid}`;
afterEach(() => rmSync(CANARY, { force: true }));

const serve = useServer();
const KEY = 'sk-action-test-0123456789';
const hasBwrap = existsSync('/usr/bin/bwrap');

describe('action.yml', () => {
  it('is a node24 action whose code installs and builds nothing, the sandbox on by default', () => {
    const action = loadAction();
    expect(action.runs).toEqual({ using: 'node24', main: 'action/main.mjs' });
    expect(action.inputs.sandbox!.default).toBe('true');
    expect(Object.keys(action.inputs)).toEqual(
      expect.arrayContaining([
        'prompt',
        'prompt-file',
        'json-schema',
        'max-turns',
        'max-budget-usd',
        'max-duration',
        'model',
        'args',
        'anthropic-api-key',
      ]),
    );
    expect(Object.keys(action.inputs)).toEqual(
      expect.arrayContaining([
        'fail-on-error',
        'summary',
        'project-instructions',
        'allowed-users',
        'allowed-bots',
        'github-token',
        'agent-path',
      ]),
    );
    expect(Object.keys(action.outputs)).toEqual([
      'result',
      'structured_output',
      'subtype',
      'exit_code',
      'session_id',
      'total_cost_usd',
      'result_file',
    ]);
    for (const file of readdirSync(join(ACTION_ROOT, 'action'))) {
      expect(readFileSync(join(ACTION_ROOT, 'action', file), 'utf8'), file).not.toMatch(
        /\bnpm (ci|run|rebuild)\b|\bnpx\b|esbuild|\(['"]npm['"]/,
      );
    }
  });
});

describe('a run', () => {
  it.skipIf(!hasBwrap)(
    'hands over answer, subtype, exit code and cost, with the sandbox on by default and no npm in the job',
    async () => {
      const s = await serve(
        [
          bash(`echo 42 > answer.txt; touch ${CANARY} 2>&1 || echo read-only`),
          answerWithLastResult('The answer is **42**.\n'),
        ],
        {
          requireAuth: { apiKey: KEY },
        },
      );
      const workspace = tempDir();
      const npm = standIns({ npm: 'exit 1', npx: 'exit 1' });
      const run = await runAction(
        { prompt: 'write the answer', 'anthropic-api-key': KEY, model: 'claude-sonnet-4-5' },
        jobEnv(s.url, { PATH: npm.path }),
        workspace,
      );
      expect(run.code, run.stdout + run.stderr).toBe(0);
      expect(npm.calls()).toBe('');
      expect(run.outputs).toMatchObject({ subtype: 'success', exit_code: '0', structured_output: '' });
      expect(run.outputs.result).toMatch(/^The answer is \*\*42\*\*\.\n.*(read-only|Read-only file system)/s);
      expect(readFileSync(join(workspace, 'answer.txt'), 'utf8')).toBe('42\n');
      expect(Number(run.outputs.total_cost_usd)).toBeGreaterThan(0);
      expect(JSON.parse(readFileSync(run.outputs.result_file!, 'utf8'))).toMatchObject({
        type: 'result',
        num_turns: 2,
        commands: 1,
      });
      expect(run.summary).toMatch(
        /^### agent: success\n\n\| turns \| commands \| time \| cost \|\n\|---\|---\|---\|---\|\n\| 2 \| 1 \| \d+\.\d s \| \$0\.\d{4} \|/,
      );
      expect(run.commands[0]).toEqual({ command: 'add-mask', properties: {}, data: KEY });
      expect(`${run.log}${run.stderr}`).not.toContain(KEY);
    },
  );

  it('fails the step when the run does not finish, every output written, the error annotation escaped and acted on', async () => {
    const s = await serve([bash('true'), bash('true')]);
    const run = await runAction(
      { prompt: 'loop', 'max-turns': '1', sandbox: 'false' },
      jobEnv(s.url, { ANTHROPIC_API_KEY: KEY }),
      tempDir(),
    );
    expect(run.code).toBe(1);
    expect(run.outputs).toMatchObject({ subtype: 'error_max_turns', exit_code: '1', result: '' });
    expect(run.commands.at(-1)).toMatchObject({
      command: 'error',
      properties: { title: 'agent' },
      data: expect.stringMatching(/^Stopped after 1 model call/),
    });
    expect(run.summary).toMatch(/### agent: error_max_turns[\s\S]*\*\*Error:\*\*\n\n```\nStopped after 1 model call/);
  });

  it('escapes %, CR and LF in the annotation: a message of many lines is one command, read back whole', async () => {
    const s = await serve([answer('never')]);
    const dir = '/no/such/100%25\r\nplace';
    const run = await runAction(
      { prompt: 'x', 'working-directory': dir, sandbox: 'false' },
      jobEnv(s.url, { ANTHROPIC_API_KEY: KEY }),
      tempDir(),
    );
    expect(run.code).toBe(2);
    expect(run.outputs).toMatchObject({ subtype: 'error_usage', exit_code: '2' });
    const errors = run.commands.filter((command) => command.command === 'error');
    expect(errors).toEqual([
      { command: 'error', properties: { title: 'agent' }, data: `Working directory ${dir} does not exist.` },
    ]);
    expect(run.stdout).toContain(
      '::error title=agent::Working directory /no/such/100%2525%0D%0Aplace does not exist.\n',
    );
    expect(s.requests).toEqual([]);
  });

  it("keeps the step green with fail-on-error: 'false', the exit code still in the outputs", async () => {
    const s = await serve([{ kind: 'http_error', status: 401 }]);
    const run = await runAction(
      { prompt: 'x', 'fail-on-error': 'false', sandbox: 'false' },
      jobEnv(s.url, { ANTHROPIC_API_KEY: KEY }),
      tempDir(),
    );
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
    const inputs = { 'prompt-file': 'task.md', args, 'working-directory': 'sub', sandbox: 'false' };
    const run = await runAction(inputs, jobEnv(s.url, { ANTHROPIC_API_KEY: KEY }), workspace);
    expect(run.code).toBe(0);
    const [first, second] = s.validRequests();
    expect(JSON.stringify(first!.body.messages)).toContain('Say where you are.');
    expect(JSON.stringify(first!.body.system)).toContain('Always mention the planet Neptune.');
    expect(JSON.stringify(second!.body.messages)).toContain(sub);
  });

  it('hands over a structured answer with json-schema, as JSON text and in the summary', async () => {
    const s = await serve([answer('{"verdict":"approve","reasons":["small diff"]}')]);
    const schema =
      '{"type":"object","properties":{"verdict":{"enum":["approve","reject"]},"reasons":{"type":"array","items":{"type":"string"}}},"required":["verdict"]}';
    const run = await runAction(
      { prompt: 'review', 'json-schema': schema, sandbox: 'false' },
      jobEnv(s.url, { ANTHROPIC_API_KEY: KEY }),
      tempDir(),
    );
    expect(run.code).toBe(0);
    expect(JSON.parse(run.outputs.structured_output!)).toEqual({ verdict: 'approve', reasons: ['small diff'] });
    expect(run.summary).toContain('```json\n{\n  "verdict": "approve"');
  });

  it('passes the budgets on and hands over the session id, which a later run resumes', async () => {
    const s = await serve([bash('sleep 20'), answer('second step done')]);
    const workspace = tempDir();
    const env = jobEnv(s.url, { ANTHROPIC_API_KEY: KEY });
    const inputs = {
      prompt: 'slow task',
      'max-duration': '1',
      'max-budget-usd': '5',
      model: 'claude-sonnet-4-5',
      'fail-on-error': 'false',
      sandbox: 'false',
    };
    const first = await runAction(inputs, env, workspace);
    expect(first.code).toBe(0);
    expect(first.outputs).toMatchObject({ subtype: 'error_max_duration', exit_code: '1' });
    expect(first.outputs.session_id).toMatch(/^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/);
    const second = await runAction(
      { prompt: 'go on', args: `--resume\n${first.outputs.session_id}`, sandbox: 'false' },
      env,
      workspace,
    );
    expect(second.code).toBe(0);
    expect(second.outputs).toMatchObject({ result: 'second step done', session_id: first.outputs.session_id });
  });

  it('refuses bad inputs with an error annotation and no request', async () => {
    const s = await serve([answer('never')]);
    const bad: Array<Record<string, string>> = [
      {},
      { prompt: 'a', 'prompt-file': 'b' },
      { prompt: 'a', sandbox: 'yes' },
      { prompt: 'a', 'fail-on-error': 'no' },
      { prompt: 'a', summary: 'off' },
      { prompt: 'a', 'project-instructions': 'no' },
    ];
    for (const inputs of bad) {
      const run = await runAction(inputs, jobEnv(s.url, { ANTHROPIC_API_KEY: KEY }), tempDir());
      expect(run.code).toBe(2);
      expect(run.commands.map((command) => command.command)).toEqual(['error']);
    }
    expect(s.requests).toEqual([]);
  });
});

describe('GITHUB_OUTPUT records', () => {
  it('keep multi-line values whole', () => {
    expect(parseOutputFile('a<<X\none\ntwo\nX\nb=3\n')).toEqual({ a: 'one\ntwo', b: '3' });
  });
});
