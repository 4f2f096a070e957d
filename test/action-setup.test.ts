// How the action gets ready: the sandbox (only on Linux; the AppArmor switch only on GitHub-hosted runners), and
// the agent it runs (the prebuilt one it ships, or agent-path), with nothing installed or built during the job.
import { execFileSync } from 'node:child_process';
import { cpSync, existsSync, readFileSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { ACTION_ROOT, jobEnv, runAction } from './support/action-runner.js';
import { AGENT_BIN, answer, answerWithLastResult, bash, tempDir } from './support/run-agent.js';
import { standIns } from './support/stand-ins.js';
import { useServer } from './support/use-server.js';

// What a sandboxed command tries to create in /etc: removed after each test whatever the outcome, since one left by a
// failed run would fail every later one.
const CANARY = `/etc/agent-sandbox-canary-${process.pid}`;
afterEach(() => rmSync(CANARY, { force: true }));

const serve = useServer();
const KEY = 'sk-action-setup-0123456789';
const hasBwrap = existsSync('/usr/bin/bwrap');
const errorsOf = (run: { commands: Array<{ command: string; data: string }> }) =>
  run.commands.filter((c) => c.command === 'error').map((c) => c.data);

describe('the sandbox', () => {
  it("refuses to start on macOS and Windows with the default sandbox: 'true', saying what to do", async () => {
    for (const os of ['macOS', 'Windows']) {
      const s = await serve([answer('never')]);
      const run = await runAction({ prompt: 'x' }, jobEnv(s.url, { ANTHROPIC_API_KEY: KEY, RUNNER_OS: os }), tempDir());
      expect(run.code).toBe(1);
      expect(errorsOf(run)).toEqual([
        expect.stringMatching(
          new RegExp(`^sandbox: 'true' needs Linux \\(bubblewrap\\), and this runner is ${os}\\. .*sandbox: 'false'`),
        ),
      ]);
      expect(s.requests).toEqual([]);
    }
  });

  it("runs on macOS with sandbox: 'false', and installs nothing there", async () => {
    const s = await serve([answer('ran')]);
    const tools = standIns({ 'apt-get': 'exit 1', sudo: 'exit 1' });
    const run = await runAction(
      { prompt: 'x', sandbox: 'false' },
      jobEnv(s.url, { ANTHROPIC_API_KEY: KEY, RUNNER_OS: 'macOS', PATH: tools.path }),
      tempDir(),
    );
    expect(run.code).toBe(0);
    expect(tools.calls()).toBe('');
  });

  it.skipIf(!hasBwrap)(
    'leaves the AppArmor switch of a self-hosted runner alone, and says why the sandbox cannot run',
    async () => {
      const s = await serve([answer('never')]);
      const tools = standIns({ sysctl: '[ "$1" = -n ] && echo 1; exit 0' });
      const run = await runAction(
        { prompt: 'x' },
        jobEnv(s.url, { ANTHROPIC_API_KEY: KEY, PATH: tools.path, RUNNER_ENVIRONMENT: 'self-hosted' }),
        tempDir(),
      );
      expect(run.code).toBe(1);
      expect(errorsOf(run)).toEqual([
        expect.stringMatching(/AppArmor keeps bubblewrap from unprivileged user namespaces on this self-hosted runner/),
      ]);
      expect(tools.calls()).toBe('sysctl -n kernel.apparmor_restrict_unprivileged_userns\n');
      expect(s.requests).toEqual([]);
    },
  );

  it.skipIf(!hasBwrap)('turns the AppArmor switch off on a GitHub-hosted runner, then runs sandboxed', async () => {
    const s = await serve([bash(`touch ${CANARY} 2>&1 || echo read-only`), answerWithLastResult()]);
    const tools = standIns({ sysctl: '[ "$1" = -n ] && echo 1; exit 0' });
    const run = await runAction(
      { prompt: 'x' },
      jobEnv(s.url, { ANTHROPIC_API_KEY: KEY, PATH: tools.path, RUNNER_ENVIRONMENT: 'github-hosted' }),
      tempDir(),
    );
    expect(run.code, run.stdout).toBe(0);
    expect(tools.calls()).toBe(
      'sysctl -n kernel.apparmor_restrict_unprivileged_userns\nsysctl -q -w kernel.apparmor_restrict_unprivileged_userns=0\n',
    );
    expect(run.outputs.result).toMatch(/read-only|Read-only file system/);
  });

  it('says so when bubblewrap is missing and there is no apt-get to install it', async () => {
    const s = await serve([answer('never')]);
    const tools = standIns({});
    for (const command of ['bash', 'id'])
      symlinkSync(
        execFileSync('bash', ['-c', `command -v ${command}`], { encoding: 'utf8' }).trim(),
        join(tools.dir, command),
      );
    const run = await runAction({ prompt: 'x' }, jobEnv(s.url, { ANTHROPIC_API_KEY: KEY, PATH: tools.dir }), tempDir());
    expect(run.code).toBe(1);
    expect(errorsOf(run)).toEqual([
      expect.stringMatching(/bubblewrap \(bwrap\) is not installed, and there is no apt-get to install it/),
    ]);
    expect(s.requests).toEqual([]);
  });
});

/** An agent that records its arguments and answers with a result object. */
function recordingAgent(): { path: string; args: () => string[] } {
  const dir = tempDir('agent-recording-');
  const path = join(dir, 'agent');
  writeFileSync(
    path,
    `#!/bin/bash\nprintf '%s\\n' "$@" > "${dir}/args"\necho '{"type":"result","subtype":"success","result":"recorded","num_turns":0,"commands":0,"duration_ms":1}'\n`,
    { mode: 0o755 },
  );
  return { path, args: () => readFileSync(join(dir, 'args'), 'utf8').trimEnd().split('\n') };
}

describe('the agent it runs', () => {
  it("runs an installed agent given as agent-path, and passes project-instructions: 'false' on", async () => {
    const s = await serve([]);
    const agent = recordingAgent();
    const run = await runAction(
      { prompt: 'task', sandbox: 'false', 'agent-path': agent.path },
      jobEnv(s.url),
      tempDir(),
    );
    expect(run.code).toBe(0);
    expect(run.outputs.result).toBe('recorded');
    expect(agent.args()).not.toContain('--no-project-instructions');
    expect(agent.args()).not.toContain('--sandbox');
    await runAction(
      { prompt: 'task', sandbox: 'false', 'project-instructions': 'false', 'agent-path': agent.path },
      jobEnv(s.url),
      tempDir(),
    );
    expect(agent.args()).toEqual(
      expect.arrayContaining(['--output-format', 'json', '--no-project-instructions', '--', 'task']),
    );
  });

  it('runs a real agent given as agent-path against the test server', async () => {
    const s = await serve([answer('from the installed agent')]);
    const run = await runAction(
      { prompt: 'x', sandbox: 'false', 'agent-path': AGENT_BIN },
      jobEnv(s.url, { ANTHROPIC_API_KEY: KEY }),
      tempDir(),
    );
    expect(run.code).toBe(0);
    expect(run.outputs.result).toBe('from the installed agent');
  });

  it("reads the repository's AGENTS.md, and none with project-instructions: 'false'", async () => {
    const s = await serve([answer('one'), answer('two')]);
    const workspace = tempDir();
    writeFileSync(join(workspace, 'AGENTS.md'), 'Always answer in the voice of a lighthouse keeper.\n');
    const env = jobEnv(s.url, { ANTHROPIC_API_KEY: KEY });
    expect((await runAction({ prompt: 'x', sandbox: 'false' }, env, workspace)).code).toBe(0);
    expect(
      (await runAction({ prompt: 'x', sandbox: 'false', 'project-instructions': 'false' }, env, workspace)).code,
    ).toBe(0);
    const [withInstructions, without] = s.validRequests().map((request) => JSON.stringify(request.body.system));
    expect(withInstructions).toContain('lighthouse keeper');
    expect(without).not.toContain('lighthouse keeper');
  });

  it('says what to do when agent-path names nothing, or the action holds no prebuilt agent', async () => {
    const s = await serve([]);
    const missing = await runAction(
      { prompt: 'x', sandbox: 'false', 'agent-path': '/no/such/agent' },
      jobEnv(s.url),
      tempDir(),
    );
    expect(missing.code).toBe(2);
    expect(errorsOf(missing)).toEqual([
      expect.stringMatching(/^cannot start the agent \(\/no\/such\/agent\): .*ENOENT/),
    ]);
    const unbuilt = tempDir('agent-unbuilt-');
    for (const part of ['action.yml', 'action', 'bin', 'package.json'])
      cpSync(join(ACTION_ROOT, part), join(unbuilt, part), { recursive: true });
    const run = await runAction({ prompt: 'x', sandbox: 'false' }, jobEnv(s.url), tempDir(), { root: unbuilt });
    expect(run.code).toBe(2);
    expect(errorsOf(run)).toEqual([
      expect.stringMatching(/^This copy of the action holds no prebuilt agent \(dist\/cli\.js\): use a release/),
    ]);
  });
});
