// Runs the steps of action.yml the way a GitHub runner runs a composite action, without GitHub: inputs with their
// defaults, `${{ … }}` expressions, `if:` conditions, `shell: bash` as `bash --noprofile --norc -eo pipefail`, and
// the GITHUB_OUTPUT, GITHUB_STEP_SUMMARY and GITHUB_ENV files. Only the expression forms the action uses are
// understood; any other makes the run throw, so the action stays this simple.
import { spawn } from 'node:child_process';
import { readFileSync, writeFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { parse } from 'yaml';
import { tempDir } from './run-agent.js';

export const ACTION_ROOT = resolve(import.meta.dirname, '../..');

interface ActionStep {
  name: string;
  id?: string;
  if?: string;
  shell: string;
  run: string;
  env?: Record<string, string>;
}

export interface ActionDefinition {
  inputs: Record<string, { default?: string; required?: boolean }>;
  outputs: Record<string, { value: string }>;
  runs: { using: string; steps: ActionStep[] };
}

export interface StepRun {
  name: string;
  skipped: boolean;
  code: number | null;
  stdout: string;
  stderr: string;
}

export interface ActionRun {
  steps: StepRun[];
  /** The action's outputs, as its `outputs:` section maps them from the steps'. */
  outputs: Record<string, string>;
  summary: string;
  /** Exit status of the first step that failed, or 0. */
  code: number;
}

export function loadAction(): ActionDefinition {
  return parse(readFileSync(join(ACTION_ROOT, 'action.yml'), 'utf8')) as ActionDefinition;
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

type Context = { inputs: Record<string, string>; steps: Record<string, Record<string, string>> };

function evaluate(expression: string, context: Context): string {
  const inputMatch = /^inputs\.([\w-]+)$/.exec(expression);
  if (inputMatch) return context.inputs[inputMatch[1]!] ?? '';
  const stepMatch = /^steps\.([\w-]+)\.outputs\.([\w-]+)$/.exec(expression);
  if (stepMatch) return context.steps[stepMatch[1]!]?.[stepMatch[2]!] ?? '';
  throw new Error(`action.yml uses an expression this runner does not know: ${expression}`);
}

function substitute(text: string, context: Context): string {
  return text.replace(/\$\{\{\s*(.*?)\s*\}\}/g, (_, expression: string) => evaluate(expression, context));
}

function condition(text: string | undefined, context: Context): boolean {
  if (text === undefined) return true;
  const equality = /^inputs\.([\w-]+) == '([^']*)'$/.exec(text.trim());
  if (!equality) throw new Error(`action.yml uses a condition this runner does not know: ${text}`);
  return (context.inputs[equality[1]!] ?? '') === equality[2];
}

function runBash(script: string, env: Record<string, string>, cwd: string): Promise<Omit<StepRun, 'name' | 'skipped'>> {
  return new Promise((done, reject) => {
    const child = spawn('bash', ['--noprofile', '--norc', '-eo', 'pipefail', '-c', script], { cwd, env, stdio: ['ignore', 'pipe', 'pipe'] });
    let stdout = '';
    let stderr = '';
    child.stdout.setEncoding('utf8').on('data', (chunk: string) => (stdout += chunk));
    child.stderr.setEncoding('utf8').on('data', (chunk: string) => (stderr += chunk));
    child.on('error', reject);
    child.on('close', (code) => done({ code, stdout, stderr }));
  });
}

/** Runs the action's steps in `workspace` with `inputs`; `env` is the job's environment (PATH, the API's URL, …). */
export async function runAction(inputs: Record<string, string>, env: Record<string, string>, workspace: string): Promise<ActionRun> {
  const action = loadAction();
  const files = tempDir('agent-action-');
  const paths = { GITHUB_OUTPUT: join(files, 'output'), GITHUB_STEP_SUMMARY: join(files, 'summary'), GITHUB_ENV: join(files, 'env') };
  for (const path of Object.values(paths)) writeFileSync(path, '');
  const withDefaults = Object.fromEntries(Object.entries(action.inputs).map(([name, spec]) => [name, inputs[name] ?? spec.default ?? '']));
  const context: Context = { inputs: withDefaults, steps: {} };
  const steps: StepRun[] = [];
  let code = 0;
  for (const step of action.runs.steps) {
    if (code !== 0 || !condition(step.if, context)) {
      steps.push({ name: step.name, skipped: true, code: null, stdout: '', stderr: '' });
      continue;
    }
    if (step.shell !== 'bash') throw new Error(`step ${step.name}: only shell: bash is supported`);
    writeFileSync(paths.GITHUB_OUTPUT, '');
    const stepEnv = Object.fromEntries(Object.entries(step.env ?? {}).map(([name, value]) => [name, substitute(String(value), context)]));
    const ran = await runBash(substitute(step.run, context), { ...env, ...paths, GITHUB_ACTION_PATH: ACTION_ROOT, RUNNER_TEMP: files, ...stepEnv }, workspace);
    steps.push({ name: step.name, skipped: false, ...ran });
    if (step.id) context.steps[step.id] = parseOutputFile(readFileSync(paths.GITHUB_OUTPUT, 'utf8'));
    if (ran.code !== 0) code = ran.code ?? 1;
  }
  const outputs = Object.fromEntries(Object.entries(action.outputs).map(([name, spec]) => [name, substitute(spec.value, context)]));
  return { steps, outputs, summary: readFileSync(paths.GITHUB_STEP_SUMMARY, 'utf8'), code };
}
