// The action's gate, run as a runner runs the action, against a stand-in GitHub API (the collaborator permission
// endpoint) and the test server: who may start a run on events that others than maintainers can cause.
import { afterEach, describe, expect, it } from 'vitest';
import { jobEnv, runAction } from './support/action-runner.js';
import { type GitHubApi, type PermissionAnswer, startGitHubApi } from './support/github-api.js';
import { answer, tempDir } from './support/run-agent.js';
import { startServer, type TestServer } from './support/server.js';

const KEY = 'sk-action-gate-0123456789';
const TOKEN = 'ghs_gate_token_abcdef';
// Several runs in one test: every server started is closed after it.
const open: Array<TestServer | GitHubApi> = [];
afterEach(async () => {
  await Promise.all(open.splice(0).map((server) => server.close()));
});

const ANSWERS: Record<string, PermissionAnswer> = {
  'the-admin': { permission: 'admin', role_name: 'admin' },
  'the-maintainer': { permission: 'write', role_name: 'maintain' },
  'the-writer': { permission: 'write', role_name: 'write' },
  'the-triager': { permission: 'read', role_name: 'triage' },
  'the-reader': { permission: 'read', role_name: 'read' },
  'forbidden-user': { status: 403 },
  'slow-user': 'hang',
};

async function trigger(actor: string, inputs: Record<string, string> = {}, env: Record<string, string> = {}) {
  const s = await startServer([answer('ran')]);
  const api = await startGitHubApi('owner/repo', ANSWERS);
  open.push(s, api);
  const job = jobEnv(s.url, {
    GITHUB_EVENT_NAME: 'issue_comment',
    GITHUB_ACTOR: actor,
    GITHUB_API_URL: api.url,
    AGENT_ACTION_API_TIMEOUT_MS: '500',
    ...env,
  });
  const run = await runAction({ prompt: 'x', sandbox: 'false', 'anthropic-api-key': KEY, ...inputs }, job, tempDir(), {
    githubToken: TOKEN,
  });
  const refusal = run.commands.find(
    (command) => command.command === 'error' && command.properties.title === 'agent: run refused',
  );
  return { run, refusal, modelRequests: s.requests.length, apiRequests: api.requests };
}

describe('the gate on events that others can cause', () => {
  it('admits admin, maintain and write, asking the API with the job token', async () => {
    for (const actor of ['the-admin', 'the-maintainer', 'the-writer']) {
      const { run, refusal, modelRequests, apiRequests } = await trigger(actor);
      expect(refusal, actor).toBeUndefined();
      expect(run.code, run.stdout).toBe(0);
      expect(run.outputs.result).toBe('ran');
      expect(modelRequests).toBe(1);
      expect(apiRequests).toEqual([
        { path: `/repos/owner/repo/collaborators/${actor}/permission`, authorization: `Bearer ${TOKEN}` },
      ]);
    }
  });

  it('refuses triage and read, with no model request and a message that says why', async () => {
    for (const [actor, role] of [
      ['the-triager', 'triage'],
      ['the-reader', 'read'],
    ]) {
      const { run, refusal, modelRequests } = await trigger(actor!);
      expect(run.code).toBe(1);
      expect(refusal?.data).toBe(
        `Not run: ${actor} has ${role} access to owner/repo; the action runs only for actors with write access, or named in allowed-users. (event: issue_comment)`,
      );
      expect(modelRequests).toBe(0);
      expect(run.outputs).toEqual({});
    }
  });

  it('refuses when the API answers 404 or 403, or not at all, and says which', async () => {
    const cases: Array<[string, RegExp]> = [
      ['stranger', /answered 404: stranger is not a collaborator of owner\/repo/],
      ['forbidden-user', /answered 403: the token may not read collaborators' permissions/],
      ['slow-user', /did not answer within 0\.5 s/],
    ];
    for (const [actor, reason] of cases) {
      const { run, refusal, modelRequests } = await trigger(actor);
      expect(run.code, actor).toBe(1);
      expect(refusal?.data).toMatch(reason);
      expect(modelRequests).toBe(0);
    }
  });

  it('refuses without a token to ask with, and when the API cannot be reached', async () => {
    const noToken = await trigger('the-writer', { 'github-token': '' });
    expect(noToken.refusal?.data).toMatch(/no github-token to ask the GitHub API whether the-writer has write access/);
    const unreachable = await trigger('the-writer', {}, { GITHUB_API_URL: 'http://127.0.0.1:9' });
    expect(unreachable.refusal?.data).toMatch(/could not be reached/);
    expect(noToken.modelRequests + unreachable.modelRequests).toBe(0);
  });

  it('refuses a bot unless allowed-bots names it, with or without its [bot] suffix, and takes no wildcard', async () => {
    const refused = await trigger('helper[bot]');
    expect(refused.refusal?.data).toMatch(
      /helper\[bot\] is a bot; bots start the action only when named in allowed-bots/,
    );
    expect(refused.apiRequests).toEqual([]);
    for (const allowedBots of ['helper[bot]', 'other, helper']) {
      const admitted = await trigger('helper[bot]', { 'allowed-bots': allowedBots });
      expect(admitted.refusal).toBeUndefined();
      expect(admitted.modelRequests).toBe(1);
    }
    const wildcard = await trigger('helper[bot]', { 'allowed-bots': '*' });
    expect(wildcard.refusal?.data).toMatch(/allowed-bots takes no '\*'/);
  });

  it('admits a user named in allowed-users without asking the API', async () => {
    const { refusal, modelRequests, apiRequests } = await trigger('Stranger', { 'allowed-users': 'someone\nstranger' });
    expect(refusal).toBeUndefined();
    expect(modelRequests).toBe(1);
    expect(apiRequests).toEqual([]);
  });

  it('checks the actor who re-ran the job as well', async () => {
    const { refusal, modelRequests } = await trigger('the-writer', {}, { GITHUB_TRIGGERING_ACTOR: 'the-reader' });
    expect(refusal?.data).toMatch(/the-reader has read access/);
    expect(modelRequests).toBe(0);
  });

  it('gates pull requests and events it does not know', async () => {
    for (const event of ['pull_request', 'pull_request_target', 'workflow_run', 'some_new_event']) {
      const { refusal } = await trigger('the-reader', {}, { GITHUB_EVENT_NAME: event });
      expect(refusal?.data, event).toMatch(new RegExp(`\\(event: ${event}\\)$`));
    }
  });

  it('needs no check for workflow_dispatch, schedule and push: no API request, no token needed', async () => {
    for (const event of ['workflow_dispatch', 'schedule', 'push']) {
      const { run, refusal, apiRequests } = await trigger(
        'the-reader',
        { 'github-token': '' },
        { GITHUB_EVENT_NAME: event },
      );
      expect(refusal, event).toBeUndefined();
      expect(run.code).toBe(0);
      expect(apiRequests).toEqual([]);
    }
  });
});
