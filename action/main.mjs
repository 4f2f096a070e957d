// The action's entry point, run by the runner's own Node.js (runs.using: node24). The order matters:
// 1. inputs checked, then the gate (who triggered the run), before anything else runs or any model request;
// 2. the key masked, the sandbox prepared;
// 3. the agent run inside a command fence, so that nothing it or its commands print acts as a workflow command;
// 4. outputs, the job summary, and the step's status.
import { spawn } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { appendFileSync, existsSync, writeFileSync } from 'node:fs';
import { constants, tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { checkTrigger } from './gate.mjs';
import { agentArguments, agentEnvironment, flagOf, input, InputError, protectionOn } from './inputs.mjs';
import { prepareSandbox } from './sandbox.mjs';
import { summaryText } from './summary.mjs';
import { commandFence, workflowCommand } from './workflow-commands.mjs';

const ACTION_ROOT = resolve(import.meta.dirname, '..');
const write = (text) => process.stdout.write(text);

function fail(title, message, code = 2) {
  write(workflowCommand('error', { title }, message));
  process.exit(code);
}

/** The agent to run: agent-path, or the prebuilt one that ships with this release of the action. */
function agentCommand(args) {
  const installed = input('agent-path');
  if (installed !== '') return { file: installed, args };
  if (!existsSync(join(ACTION_ROOT, 'dist', 'cli.js'))) {
    fail(
      'agent',
      'This copy of the action holds no prebuilt agent (dist/cli.js): use a release of the action, whose tags carry it, ' +
        'or install agent in an earlier step (npm install --global agent-cli) and set agent-path.',
    );
  }
  return { file: process.execPath, args: ['--', join(ACTION_ROOT, 'bin', 'agent'), ...args] };
}

function runAgent({ file, args }) {
  const fence = commandFence(write);
  fence.open();
  return new Promise((done) => {
    // The agent's stderr is relayed through this process's stdout: one stream, so the fence surely comes first.
    const child = spawn(file, args, { env: agentEnvironment(), stdio: ['ignore', 'pipe', 'pipe'] });
    let stdout = '';
    child.stdout.setEncoding('utf8').on('data', (chunk) => (stdout += chunk));
    child.stderr.setEncoding('utf8').on('data', (chunk) => fence.relay(chunk));
    child.on('error', (error) => {
      fence.close();
      fail('agent', `cannot start the agent (${file}): ${error.message}`);
    });
    child.on('close', (code, signal) => {
      fence.close();
      done({ code: code ?? 128 + (constants.signals[signal] ?? 0), stdout });
    });
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

function parseResult(stdout) {
  try {
    return JSON.parse(stdout);
  } catch {
    return undefined;
  }
}

function report(code, stdout, wantSummary) {
  const result = parseResult(stdout);
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
  if (wantSummary && process.env.GITHUB_STEP_SUMMARY)
    appendFileSync(process.env.GITHUB_STEP_SUMMARY, summaryText(result, code));
  return result;
}

async function main() {
  let args, failOnError, wantSummary, sandbox;
  try {
    failOnError = protectionOn('fail-on-error');
    wantSummary = flagOf('summary') !== 'false';
    sandbox = protectionOn('sandbox');
    args = agentArguments();
  } catch (error) {
    if (error instanceof InputError) fail('agent', error.message);
    throw error;
  }
  const command = agentCommand(args);
  for (const secret of [input('anthropic-api-key'), input('github-token')])
    if (secret !== '') write(`::add-mask::${secret}\n`);
  const gate = await checkTrigger(process.env, {
    allowedUsers: input('allowed-users'),
    allowedBots: input('allowed-bots'),
    token: input('github-token'),
  });
  if (gate.refused) fail('agent: run refused', `Not run: ${gate.refused}`, 1);
  write(`Run admitted: ${gate.admitted}\n`);
  if (sandbox) {
    const problem = prepareSandbox(process.env, ACTION_ROOT, write);
    if (problem) fail('agent: sandbox', problem, 1);
  }
  const { code, stdout } = await runAgent(command);
  const result = report(code, stdout, wantSummary);
  if (code !== 0 && failOnError) fail('agent', result?.error ?? `the agent exited with status ${code}`, code);
}

await main();
