// The action's inputs, as the runner hands them to a JavaScript action (INPUT_<NAME>, the name upper-cased, its
// dashes kept), turned into the agent's arguments. The API key never becomes an argument: see agentEnvironment.
import { resolve } from 'node:path';

export class InputError extends Error {}

export const input = (name) => (process.env[`INPUT_${name.replace(/ /g, '_').toUpperCase()}`] ?? '').trim();

export function flagOf(name) {
  const value = input(name);
  if (value !== 'true' && value !== 'false' && value !== '')
    throw new InputError(`${name} must be 'true' or 'false', not '${value}'.`);
  return value;
}

/**
 * A protection stays on unless the input says 'false' exactly: `with: sandbox: ${{ inputs.sandbox }}` that evaluates
 * to '' (an unset variable, a missing input) must not switch it off.
 */
export const protectionOn = (name) => flagOf(name) !== 'false';

/** What the repository may add stays off unless the input says 'true' exactly: '' does not switch it on. */
export const permissionOn = (name) => flagOf(name) === 'true';

function taskArguments(workingDirectory) {
  const prompt = input('prompt');
  const promptFile = input('prompt-file');
  if (prompt !== '' && promptFile !== '') throw new InputError('Give prompt or prompt-file, not both.');
  if (prompt === '' && promptFile === '') throw new InputError('No task: give the prompt input, or prompt-file.');
  return promptFile !== '' ? ['--prompt-file', resolve(workingDirectory, promptFile)] : ['--', prompt];
}

/** The agent's arguments; throws InputError on inputs that make no sense, before anything runs. */
export function agentArguments() {
  const workingDirectory = resolve(input('working-directory') || '.');
  const args = ['--output-format', 'json', '--no-stdin', '--cwd', workingDirectory];
  const option = (flag, name) => {
    if (input(name) !== '') args.push(flag, input(name));
  };
  option('--model', 'model');
  option('--max-turns', 'max-turns');
  option('--max-budget-usd', 'max-budget-usd');
  option('--max-duration', 'max-duration');
  option('--json-schema', 'json-schema');
  if (protectionOn('sandbox')) args.push('--sandbox');
  if (!permissionOn('project-instructions')) args.push('--no-project-instructions');
  const extra = (process.env.INPUT_ARGS ?? '')
    .split('\n')
    .map((line) => line.trim())
    .filter((line) => line !== '');
  return [...args, ...extra, ...taskArguments(workingDirectory)];
}

/**
 * What the agent must not see of the runner's environment: the action's inputs (the GitHub token among them),
 * the runner's command files (a line in GITHUB_ENV or GITHUB_PATH would reach every later step of the job), and
 * the runner's own tokens (artifact and cache service, OIDC).
 */
const WITHHELD =
  /^(INPUT_|ACTIONS_RUNTIME_|ACTIONS_ID_TOKEN_|ACTIONS_CACHE_|ACTIONS_RESULTS_)|^GITHUB_(ENV|PATH|OUTPUT|STATE|STEP_SUMMARY)$/;

/** The agent's environment: the runner's without what it must not see, with the key from the input if given. */
export function agentEnvironment() {
  const env = Object.fromEntries(Object.entries(process.env).filter(([name]) => !WITHHELD.test(name)));
  const key = input('anthropic-api-key');
  if (key !== '') env.ANTHROPIC_API_KEY = key;
  return env;
}
