// allowed-bots on pull request events, run as a runner runs the action, against a stand-in GitHub API and the test
// server: a bot's name on the event says who pushed, not whose code it is. The bot is admitted for its own pull
// request from the repository itself; otherwise the pull request's author is checked as a person would be.
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { jobEnv, runAction } from './support/action-runner.js';
import { type GitHubApi, type PermissionAnswer, startGitHubApi } from './support/github-api.js';
import { answer, tempDir } from './support/run-agent.js';
import { startServer, type TestServer } from './support/server.js';

const KEY = 'sk-action-bots-0123456789';
const TOKEN = 'ghs_bots_token_abcdef';
const BOT = 'dependabot[bot]';
const open: Array<TestServer | GitHubApi> = [];
afterEach(async () => {
  await Promise.all(open.splice(0).map((server) => server.close()));
});

const ANSWERS: Record<string, PermissionAnswer> = {
  'the-writer': { permission: 'write', role_name: 'write' },
  'the-reader': { permission: 'read', role_name: 'read' },
};

interface PullRequest {
  author: string;
  head: string;
  fork?: boolean;
}

function eventFile(pr: PullRequest): string {
  const path = join(tempDir(), 'event.json');
  const pullRequest = {
    user: { login: pr.author },
    head: { repo: { full_name: pr.head, fork: pr.fork ?? pr.head !== 'owner/repo' } },
    base: { repo: { full_name: 'owner/repo' } },
  };
  writeFileSync(path, JSON.stringify({ action: 'synchronize', sender: { login: BOT }, pull_request: pullRequest }));
  return path;
}

async function trigger(event: string, eventPath: string | undefined) {
  const s = await startServer([answer('ran')]);
  const api = await startGitHubApi('owner/repo', ANSWERS);
  open.push(s, api);
  const job = jobEnv(s.url, {
    GITHUB_EVENT_NAME: event,
    GITHUB_ACTOR: BOT,
    GITHUB_TRIGGERING_ACTOR: BOT,
    GITHUB_API_URL: api.url,
    ...(eventPath === undefined ? {} : { GITHUB_EVENT_PATH: eventPath }),
  });
  const inputs = { prompt: 'x', sandbox: 'false', 'anthropic-api-key': KEY, 'allowed-bots': 'dependabot' };
  const run = await runAction(inputs, job, tempDir(), { githubToken: TOKEN });
  const refusal = run.commands.find(
    (command) => command.command === 'error' && command.properties.title === 'agent: run refused',
  );
  return { run, refusal, modelRequests: s.requests.length, apiRequests: api.requests.map((request) => request.path) };
}

describe('allowed-bots on pull request events', () => {
  it("refuses a fork's pull request that the bot pushed to, checking the fork's author", async () => {
    for (const event of ['pull_request', 'pull_request_target']) {
      const { refusal, modelRequests, apiRequests } = await trigger(
        event,
        eventFile({ author: 'attacker', head: 'attacker/repo' }),
      );
      expect(refusal?.data, event).toMatch(
        /its head is in a fork, opened by attacker: .*attacker is not a collaborator/,
      );
      expect(modelRequests).toBe(0);
      expect(apiRequests).toEqual(['/repos/owner/repo/collaborators/attacker/permission']);
    }
  });

  it("refuses the bot's own pull request when its head is in a fork", async () => {
    const { refusal, modelRequests } = await trigger('pull_request_target', eventFile({ author: BOT, head: 'x/repo' }));
    expect(refusal?.data).toMatch(/its head is in a fork/);
    expect(modelRequests).toBe(0);
  });

  it('refuses a pull request from the repository that a reader opened and the bot pushed to', async () => {
    const pr = eventFile({ author: 'the-reader', head: 'owner/repo' });
    const { refusal, modelRequests } = await trigger('pull_request', pr);
    expect(refusal?.data).toMatch(/the-reader opened it: the-reader has read access/);
    expect(modelRequests).toBe(0);
  });

  it('refuses when the event payload cannot be read', async () => {
    const { refusal, modelRequests } = await trigger('pull_request_target', undefined);
    expect(refusal?.data).toMatch(/GITHUB_EVENT_PATH is not set/);
    expect(modelRequests).toBe(0);
  });

  it("admits the bot's own pull request from the repository, with no API request", async () => {
    const { run, refusal, apiRequests } = await trigger('pull_request', eventFile({ author: BOT, head: 'owner/repo' }));
    expect(refusal).toBeUndefined();
    expect(run.outputs.result).toBe('ran');
    expect(apiRequests).toEqual([]);
  });

  it('admits a pull request a writer opened in the repository and the bot pushed to', async () => {
    const pr = eventFile({ author: 'the-writer', head: 'owner/repo' });
    const { run, refusal } = await trigger('pull_request_target', pr);
    expect(refusal).toBeUndefined();
    expect(run.outputs.result).toBe('ran');
  });
});
