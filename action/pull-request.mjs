// The pull request an event is about, read from the event's payload (GITHUB_EVENT_PATH): who opened it, and whether
// its head lies in the repository itself or in a fork. A bot's name on the event says who pushed or clicked, not
// whose code the run would check out: dependabot rebasing a fork's pull request is still the fork's code.
import { readFileSync } from 'node:fs';

/** Events whose payload carries the pull request (`pull_request`). */
const PULL_REQUEST_EVENTS = new Set([
  'pull_request',
  'pull_request_target',
  'pull_request_review',
  'pull_request_review_comment',
]);

export const isPullRequestEvent = (event) => PULL_REQUEST_EVENTS.has(event);

/**
 * { author, sameRepository } for the event's pull request, or { problem } when the payload cannot be read or names
 * none: any doubt refuses.
 */
export function pullRequestOf(env) {
  const path = env.GITHUB_EVENT_PATH ?? '';
  if (path === '') return { problem: 'GITHUB_EVENT_PATH is not set, so the pull request is not known' };
  let payload;
  try {
    payload = JSON.parse(readFileSync(path, 'utf8'));
  } catch (error) {
    return { problem: `the event payload (${path}) cannot be read: ${error?.message}` };
  }
  const pr = payload?.pull_request;
  const author = pr?.user?.login;
  if (typeof author !== 'string' || author === '') return { problem: 'the event payload names no pull request author' };
  const head = pr?.head?.repo;
  const base = pr?.base?.repo?.full_name ?? env.GITHUB_REPOSITORY;
  const sameRepository =
    head?.fork !== true &&
    typeof head?.full_name === 'string' &&
    head.full_name.toLowerCase() === String(base).toLowerCase();
  return { author, sameRepository };
}
