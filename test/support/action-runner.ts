// Runs action.yml the way a GitHub runner runs a JavaScript action, without GitHub: each input as INPUT_<NAME>
// (upper-cased, dashes kept) with its default, `${{ github.token }}` in a default, the runner's Node.js running
// `runs.main` in the workspace, the GITHUB_OUTPUT and GITHUB_STEP_SUMMARY files, and the workflow commands in the
// step's output read as the runner reads them (see workflow-commands.ts).
import { spawn } from 'node:child_process';
import { readFileSync, writeFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { parse } from 'yaml';
import { baseEnv, tempDir } from './run-agent.js';
import { standIns } from './stand-ins.js';
import { type ActedCommand, readWorkflowCommands } from './workflow-commands.js';

export const ACTION_ROOT = resolve(import.meta.dirname, '../..');

export interface ActionDefinition {
  inputs: Record<string, { default?: string; required?: boolean; description?: string }>;
  outputs: Record<string, { description: string }>;
  runs: { using: string; main: string };
}

export interface ActionRun {
  /** The action's outputs, from GITHUB_OUTPUT. */
  outputs: Record<string, string>;
  summary: string;
  /** The step's exit status. */
  code: number | null;
  /** The step's output as written, stdout then stderr. */
  stdout: string;
  stderr: string;
  /** The workflow commands the runner acted on, in order. */
  commands: ActedCommand[];
  /** The step's log as the runner shows it: masked values as ***, acted-on commands left out. */
  log: string;
  /** What the step left in the runner's GITHUB_ENV and GITHUB_PATH files. */
  files: { env: string; path: string };
}

export function loadAction(root = ACTION_ROOT): ActionDefinition {
  return parse(readFileSync(join(root, 'action.yml'), 'utf8')) as ActionDefinition;
}

/** `name<<DELIMITER\nvalue\nDELIMITER` records, as GitHub reads GITHUB_OUTPUT. */
export function parseOutputFile(text: string): Record<string, string> {
  const outputs: Record<string, string> = {};
  const lines = text.split('\n');
  for (let i = 0; i < lines.length; i++) {
    const heredoc = /^([\w-]+)<<(.+)$/.exec(lines[i]!);
    if (heredoc) {
      const end = lines.indexOf(heredoc[2]!, i + 1);
      if (end === -1) throw new Error(`GITHUB_OUTPUT: no closing ${heredoc[2]} for ${heredoc[1]}`);
      outputs[heredoc[1]!] = lines.slice(i + 1, end).join('\n');
      i = end;
    } else if (/^([\w-]+)=/.test(lines[i]!)) {
      const [name, ...value] = lines[i]!.split('=');
      outputs[name!] = value.join('=');
    }
  }
  return outputs;
}

function inputDefault(value: string | undefined, githubToken: string): string {
  if (value === undefined) return '';
  return value.replace(/\$\{\{\s*(.*?)\s*\}\}/g, (_, expression: string) => {
    if (expression === 'github.token') return githubToken;
    throw new Error(`action.yml uses an expression this runner does not know: ${expression}`);
  });
}

function runNode(
  main: string,
  env: Record<string, string>,
  cwd: string,
): Promise<{ code: number | null; stdout: string; stderr: string }> {
  return new Promise((done, reject) => {
    const child = spawn(process.execPath, [main], { cwd, env, stdio: ['ignore', 'pipe', 'pipe'] });
    let stdout = '';
    let stderr = '';
    child.stdout.setEncoding('utf8').on('data', (chunk: string) => (stdout += chunk));
    child.stderr.setEncoding('utf8').on('data', (chunk: string) => (stderr += chunk));
    child.on('error', reject);
    child.on('close', (code) => done({ code, stdout, stderr }));
  });
}

export interface RunOptions {
  /** What `${{ github.token }}` stands for. */
  githubToken?: string;
  /** Where the action lives (the checkout of its repository at the ref used); this checkout by default. */
  root?: string;
}

/** Runs the action in `workspace` with `inputs`; `env` is the job's environment (PATH, the API's URL, the event, …). */
export async function runAction(
  inputs: Record<string, string>,
  env: Record<string, string>,
  workspace: string,
  options: RunOptions = {},
): Promise<ActionRun> {
  const root = options.root ?? ACTION_ROOT;
  const action = loadAction(root);
  if (action.runs.using !== 'node24') throw new Error(`this runner runs node24 actions, not ${action.runs.using}`);
  const files = tempDir('agent-action-');
  const paths = {
    GITHUB_OUTPUT: join(files, 'output'),
    GITHUB_STEP_SUMMARY: join(files, 'summary'),
    GITHUB_ENV: join(files, 'env'),
    GITHUB_PATH: join(files, 'path'),
  };
  for (const path of Object.values(paths)) writeFileSync(path, '');
  const inputEnv: Record<string, string> = {};
  for (const [name, spec] of Object.entries(action.inputs)) {
    inputEnv[`INPUT_${name.replace(/ /g, '_').toUpperCase()}`] =
      inputs[name] ?? inputDefault(spec.default, options.githubToken ?? 'ghs_job_token_0123456789');
  }
  const ran = await runNode(
    join(root, action.runs.main),
    { ...env, ...paths, RUNNER_TEMP: files, ...inputEnv },
    workspace,
  );
  const read = readWorkflowCommands(ran.stdout);
  return {
    ...ran,
    outputs: parseOutputFile(readFileSync(paths.GITHUB_OUTPUT, 'utf8')),
    summary: readFileSync(paths.GITHUB_STEP_SUMMARY, 'utf8'),
    commands: read.commands,
    log: read.log,
    files: { env: readFileSync(paths.GITHUB_ENV, 'utf8'), path: readFileSync(paths.GITHUB_PATH, 'utf8') },
  };
}

/**
 * A job's environment for the action: the test server as the API, no key, an event that needs no gate. Its PATH
 * (unless the test gives one) starts with stand-ins for apt-get and sudo that refuse: on a machine without bubblewrap
 * the action's set-up would otherwise install it for real, and the suite installs nothing.
 */
export function jobEnv(serverUrl: string, extra: Record<string, string> = {}): Record<string, string> {
  const { ANTHROPIC_API_KEY: _key, ...env } = baseEnv(serverUrl);
  const refuse = `echo "the test suite installs nothing: install bubblewrap (apt-get install bubblewrap) first" >&2; exit 1`;
  const noInstall = standIns({ 'apt-get': refuse, sudo: refuse });
  return {
    ...env,
    PATH: `${noInstall.dir}:${env.PATH ?? ''}`,
    GITHUB_EVENT_NAME: 'workflow_dispatch',
    GITHUB_ACTOR: 'maintainer',
    GITHUB_REPOSITORY: 'owner/repo',
    RUNNER_OS: 'Linux',
    ...extra,
  };
}
