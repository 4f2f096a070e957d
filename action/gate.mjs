// Who may start a run. Events that only people with write access can cause need no check; on any other event
// (issue and pull-request comments, pull_request_target, pull requests from forks, workflow_run, events not
// known here, …) the triggering actor must have write access, asked of the GitHub API, or be named in
// allowed-users; a bot only when named in allowed-bots (and, on a pull request event, only for its own pull request
// from the repository itself: else the pull request's author is checked as a person would be). Any doubt (no token,
// an API error, no answer) refuses.
import { isPullRequestEvent, pullRequestOf } from './pull-request.mjs';

/** Events that need write access to cause (or are the repository's own schedule). */
const WRITERS_ONLY_EVENTS = new Set(['workflow_dispatch', 'schedule', 'push', 'repository_dispatch', 'merge_group']);
const WRITE_PERMISSIONS = new Set(['admin', 'maintain', 'write']);
const DEFAULT_TIMEOUT_MS = 10_000;

function listOf(text) {
  return text
    .split(/[\s,]+/)
    .map((name) => name.trim().toLowerCase())
    .filter((name) => name !== '');
}

const isBot = (actor) => actor.toLowerCase().endsWith('[bot]');
const botName = (name) => name.toLowerCase().replace(/\[bot\]$/, '');

/** The allowed-bots entries, each with or without its [bot] suffix; '*' is refused: name each bot. */
function parseBots(text) {
  const names = listOf(text);
  if (names.some((name) => name.includes('*'))) throw new Error("allowed-bots takes no '*': name each bot.");
  return new Set(names.map(botName));
}

async function askPermission(actor, { token, apiUrl, repository, timeoutMs }) {
  const url = `${apiUrl.replace(/\/+$/, '')}/repos/${repository}/collaborators/${encodeURIComponent(actor)}/permission`;
  const where = `the GitHub API (${url})`;
  let response;
  try {
    response = await fetch(url, {
      headers: {
        authorization: `Bearer ${token}`,
        accept: 'application/vnd.github+json',
        'x-github-api-version': '2022-11-28',
        'user-agent': 'agent-action',
      },
      signal: AbortSignal.timeout(timeoutMs),
    });
  } catch (error) {
    const timedOut = error?.name === 'TimeoutError';
    return {
      refused: timedOut
        ? `${where} did not answer within ${timeoutMs / 1000} s.`
        : `${where} could not be reached: ${error?.cause?.message ?? error?.message}.`,
    };
  }
  if (response.status === 404)
    return {
      refused: `${where} answered 404: ${actor} is not a collaborator of ${repository}, or the token cannot see it.`,
    };
  if (response.status === 401 || response.status === 403) {
    return {
      refused: `${where} answered ${response.status}: the token may not read collaborators' permissions (or the rate limit is spent).`,
    };
  }
  if (response.status !== 200) return { refused: `${where} answered ${response.status}.` };
  let body;
  try {
    body = await response.json();
  } catch {
    return { refused: `${where} answered with something that is not JSON.` };
  }
  // `permission` is the base role (maintain reads as write, triage as read); `role_name` the role as assigned.
  const permission = String(body?.permission ?? 'none');
  const role = String(body?.role_name ?? permission);
  if (WRITE_PERMISSIONS.has(permission)) return { admitted: `${actor} has ${role} access.` };
  return {
    refused: `${actor} has ${role} access to ${repository}; the action runs only for actors with write access, or named in allowed-users.`,
  };
}

async function checkActor(actor, settings) {
  if (isBot(actor)) {
    if (!settings.bots.has(botName(actor)))
      return { refused: `${actor} is a bot; bots start the action only when named in allowed-bots.` };
    if (!isPullRequestEvent(settings.event)) return { admitted: `${actor} is named in allowed-bots.` };
    return checkBotPullRequest(actor, settings);
  }
  return checkPerson(actor, settings);
}

/** A bot named in allowed-bots, on a pull request: admitted for its own pull request from this repository only. */
async function checkBotPullRequest(actor, settings) {
  const pr = pullRequestOf(settings.env);
  if (pr.problem) return { refused: `${actor} is named in allowed-bots, but ${pr.problem}.` };
  if (botName(pr.author) === botName(actor) && isBot(pr.author) && pr.sameRepository)
    return { admitted: `${actor} is named in allowed-bots and opened this pull request from ${settings.repository}.` };
  const verdict = await checkPerson(pr.author, settings);
  const why = pr.sameRepository ? `${pr.author} opened it` : `its head is in a fork, opened by ${pr.author}`;
  if (verdict.refused) return { refused: `${actor} is named in allowed-bots, but ${why}: ${verdict.refused}` };
  return { admitted: `${actor} is named in allowed-bots; ${why}: ${verdict.admitted}` };
}

async function checkPerson(actor, settings) {
  if (settings.users.has(actor.toLowerCase())) return { admitted: `${actor} is named in allowed-users.` };
  if (settings.token === '')
    return { refused: `no github-token to ask the GitHub API whether ${actor} has write access.` };
  return askPermission(actor, settings);
}

/**
 * Resolves to { admitted: reason } or { refused: reason }. `env` is the runner's environment; the actor who
 * caused the event and the one who started this attempt (a re-run) must both pass.
 */
export async function checkTrigger(env, inputs) {
  const event = env.GITHUB_EVENT_NAME ?? '';
  if (WRITERS_ONLY_EVENTS.has(event)) return { admitted: `${event} events need write access to cause.` };
  const actors = [
    ...new Set([env.GITHUB_ACTOR ?? '', env.GITHUB_TRIGGERING_ACTOR ?? ''].filter((actor) => actor !== '')),
  ];
  if (actors.length === 0)
    return { refused: `the ${event || 'unknown'} event names no actor (GITHUB_ACTOR is empty).` };
  if (!/^[\w.-]+\/[\w.-]+$/.test(env.GITHUB_REPOSITORY ?? ''))
    return { refused: 'GITHUB_REPOSITORY does not name a repository.' };
  let bots;
  try {
    bots = parseBots(inputs.allowedBots);
  } catch (error) {
    return { refused: error.message };
  }
  const settings = {
    env,
    event,
    users: new Set(listOf(inputs.allowedUsers)),
    bots,
    token: inputs.token,
    apiUrl: env.GITHUB_API_URL || 'https://api.github.com',
    repository: env.GITHUB_REPOSITORY,
    timeoutMs:
      Number(env.AGENT_ACTION_API_TIMEOUT_MS) > 0 ? Number(env.AGENT_ACTION_API_TIMEOUT_MS) : DEFAULT_TIMEOUT_MS,
  };
  const reasons = [];
  for (const actor of actors) {
    const verdict = await checkActor(actor, settings);
    if (verdict.refused) return { refused: `${verdict.refused} (event: ${event || 'unknown'})` };
    reasons.push(verdict.admitted);
  }
  return { admitted: reasons.join(' ') };
}
