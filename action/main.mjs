// The action's run step. The inputs become the agent's arguments (the API key never does: it goes through the
// environment), the result object becomes step outputs and a job summary, and the step fails when the run did,
// unless fail-on-error is 'false'.
import { spawn } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { appendFileSync, writeFileSync } from 'node:fs';
import { constants, tmpdir } from 'node:os';
import { join, resolve } from 'node:path';

const input = (name) => (process.env[`INPUT_${name}`] ?? '').trim();

function fail(message) {
  process.stdout.write(`::error title=agent::${message}\n`);
  process.exit(2);
}

function flagOf(name) {
  const value = input(name);
  if (value !== 'true' && value !== 'false' && value !== '') fail(`${name.toLowerCase().replace(/_/g, '-')} must be 'true' or 'false', not '${value}'.`);
  return value;
}

function agentArguments() {
  const workingDirectory = resolve(input('WORKING_DIRECTORY') || '.');
  const args = ['--output-format', 'json', '--no-stdin', '--cwd', workingDirectory];
  const option = (flag, name) => {
    if (input(name) !== '') args.push(flag, input(name));
  };
  option('--model', 'MODEL');
  option('--max-turns', 'MAX_TURNS');
  option('--max-budget-usd', 'MAX_BUDGET_USD');
  option('--max-duration', 'MAX_DURATION');
  option('--json-schema', 'JSON_SCHEMA');
  if (flagOf('SANDBOX') === 'true') args.push('--sandbox');
  args.push(...(process.env.INPUT_ARGS ?? '').split('\n').map((line) => line.trim()).filter((line) => line !== ''));
  const prompt = input('PROMPT');
  const promptFile = input('PROMPT_FILE');
  if (prompt !== '' && promptFile !== '') fail('Give prompt or prompt-file, not both.');
  if (prompt === '' && promptFile === '') fail('No task: give the prompt input, or prompt-file.');
  if (promptFile !== '') args.push('--prompt-file', resolve(workingDirectory, promptFile));
  else args.push('--', prompt);
  return args;
}

/** The agent's environment: the runner's, without the action's inputs, with the key from the input if given. */
function agentEnvironment() {
  const env = Object.fromEntries(Object.entries(process.env).filter(([name]) => !name.startsWith('INPUT_')));
  const key = input('ANTHROPIC_API_KEY');
  if (key !== '') env.ANTHROPIC_API_KEY = key;
  return env;
}

function runAgent(args) {
  const bin = join(process.env.GITHUB_ACTION_PATH ?? resolve(import.meta.dirname, '..'), 'bin', 'agent');
  return new Promise((done) => {
    // The agent itself checks the working directory (--cwd), so a missing one is its usage error, with a result.
    const child = spawn(process.execPath, ['--', bin, ...args], { env: agentEnvironment(), stdio: ['ignore', 'pipe', 'inherit'] });
    let stdout = '';
    child.stdout.setEncoding('utf8').on('data', (chunk) => (stdout += chunk));
    child.on('error', (error) => fail(`cannot start the agent: ${error.message}`));
    child.on('close', (code, signal) => done({ code: code ?? 128 + (constants.signals[signal] ?? 0), stdout }));
  });
}

function setOutputs(outputs) {
  const file = process.env.GITHUB_OUTPUT;
  if (!file) return;
  for (const [name, value] of Object.entries(outputs)) {
    const delimiter = `agent_${randomBytes(12).toString('hex')}`;
    appendFileSync(file, `${name}<<${delimiter}\n${value}\n${delimiter}\n`);
  }
}

function summary(result, code) {
  const title = result ? `agent: ${result.subtype}` : `agent: exit ${code}, no result object`;
  const lines = [`### ${title}`, ''];
  if (result) {
    const seconds = (result.duration_ms / 1000).toFixed(1);
    const cost = result.total_cost_usd === undefined ? 'unknown' : `$${result.total_cost_usd.toFixed(4)}`;
    lines.push('| turns | commands | time | cost |', '|---|---|---|---|', `| ${result.num_turns} | ${result.commands} | ${seconds} s | ${cost} |`, '');
    if (result.error) lines.push(`**Error:** ${result.error}`, '');
    if (result.structured_output !== undefined) lines.push('```json', JSON.stringify(result.structured_output, null, 2), '```', '');
    else if (result.result) lines.push(result.result, '');
  }
  return `${lines.join('\n')}\n`;
}

const failOnError = flagOf('FAIL_ON_ERROR') !== 'false';
const args = agentArguments();
const { code, stdout } = await runAgent(args);
let result;
try {
  result = JSON.parse(stdout);
} catch {
  result = undefined;
}
const resultFile = join(process.env.RUNNER_TEMP || tmpdir(), `agent-result-${randomBytes(6).toString('hex')}.json`);
writeFileSync(resultFile, stdout);
setOutputs({
  result: result?.result ?? '',
  structured_output: result?.structured_output === undefined ? '' : JSON.stringify(result.structured_output),
  subtype: result?.subtype ?? '',
  exit_code: String(code),
  session_id: result?.session_id ?? '',
  total_cost_usd: result?.total_cost_usd === undefined ? '' : String(result.total_cost_usd),
  result_file: resultFile,
});
if (process.env.GITHUB_STEP_SUMMARY) appendFileSync(process.env.GITHUB_STEP_SUMMARY, summary(result, code));
if (code !== 0 && failOnError) {
  process.stdout.write(`::error title=agent::${(result?.error ?? `the agent exited with status ${code}`).replace(/\r?\n/g, ' ')}\n`);
  process.exit(code);
}
