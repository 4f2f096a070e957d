import { statSync } from 'node:fs';
import { resolve } from 'node:path';
import type { Config, OutputFormat, Variables } from '../config.js';
import { validateRule } from '../glob.js';
import { UsageError } from '../outcome.js';
import { resolveBudget, type RawBudgetOptions } from './budget-options.js';
import { readCredentials } from './credentials.js';
import { DEFAULTS, OUTPUT_FORMATS } from './defaults.js';
import { loadDotenv } from './dotenv-trust.js';
import { runEnvironment, terminalSettings } from './environment.js';
import { networkSettings } from './network-config.js';
import { resolvePromptOptions, type RawPromptOptions } from './prompt-options.js';
import { resolveTmpSize } from './sandbox-options.js';
import { checkPassEnv, resolveSandboxExpose } from './secret-options.js';
import { resolveSessionOptions, type RawSessionOptions } from './session-options.js';
import { resolveModelPlans, type RawModelOptions } from './thinking-options.js';

/** Below this no system prompt, tool and task fit anyway. */
const MIN_CONTEXT_WINDOW = 1_024;

/** The flags as commander hands them over: strings, booleans and lists, not yet checked. */
export interface RawOptions extends RawSessionOptions, RawBudgetOptions, RawPromptOptions, RawModelOptions {
  model?: string;
  maxTurns?: string;
  maxTokens?: string;
  timeout?: string;
  maxTimeout?: string;
  cwd?: string;
  outputFormat?: string;
  allow?: string[];
  deny?: string[];
  dangerouslySkipGuard?: boolean;
  sandbox?: boolean;
  transcript?: string;
  stdin?: boolean;
  /** A path, or false for --no-env-file. */
  envFile?: string | false;
  promptFile?: string;
  quiet?: boolean;
  verbose?: boolean;
  cache?: boolean;
  contextWindow?: string;
  passEnv?: string[];
  sandboxExpose?: string[];
  sandboxTmpSize?: string;
  jsonSchema?: string;
}

/**
 * Flags + environment + dotenv file → a validated Config. Anything wrong is a UsageError (exit 2).
 * The dotenv file fills in only what the real environment lacks, so CI secrets always win; the state directory is
 * chosen by the real environment alone.
 */
export function resolveConfig(raw: RawOptions, real: Variables): Config {
  const cwd = resolveWorkingDirectory(raw.cwd);
  const dotenv = loadDotenv(raw.envFile, cwd, real);
  const env = dotenv.env;
  const originOf = (name: string) => dotenv.origins.get(name) ?? 'the environment';

  const { timeoutSec, maxTimeoutSec } = resolveTimeouts(raw);
  const outputFormat = resolveOutputFormat(raw);
  if (raw.quiet && raw.verbose) throw new UsageError('--quiet and --verbose cannot be used together.');
  const model =
    nonEmpty(raw.model, '--model') ?? nonEmpty(env.MODEL_ID) ?? nonEmpty(env.ANTHROPIC_MODEL) ?? DEFAULTS.model;

  const baseURL = readBaseURL(env);
  const prompt = resolvePromptOptions(raw, cwd, env.HOME);
  const planWarnings: string[] = [];
  const maxTokensFlag =
    raw.maxTokens === undefined ? undefined : positiveInt('--max-tokens', raw.maxTokens, DEFAULTS.maxTokens);
  const plans = resolveModelPlans(raw, env, model, maxTokensFlag, DEFAULTS.maxTokens, planWarnings);
  const { network, warnings: networkWarnings } = networkSettings(baseURL, env, real);
  return {
    model,
    plans,
    maxTurns: positiveInt('--max-turns', raw.maxTurns, DEFAULTS.maxTurns),
    maxTokens: plans.main.maxTokens,
    timeoutSec,
    maxTimeoutSec,
    cwd,
    outputFormat,
    systemPrompt: prompt.systemPrompt,
    appendSystemPrompt: prompt.appendSystemPrompt,
    instructions: prompt.instructions,
    guard: guardPolicy(raw),
    sandbox: Boolean(raw.sandbox),
    transcriptPath: raw.transcript === undefined ? undefined : resolve(raw.transcript),
    quiet: Boolean(raw.quiet),
    verbose: Boolean(raw.verbose),
    cache: raw.cache !== false,
    contextWindow: atLeast(
      MIN_CONTEXT_WINDOW,
      positiveInt('--context-window', raw.contextWindow, DEFAULTS.contextWindow),
      '--context-window',
    ),
    credentials: readCredentials(env, originOf),
    baseURL,
    network,
    env: runEnvironment(env, dotenv.ignored),
    terminal: terminalSettings(env),
    retryBaseDelayMs: positiveInt('AGENT_RETRY_BASE_MS', env.AGENT_RETRY_BASE_MS, DEFAULTS.retryBaseDelayMs),
    streamIdleMs: positiveInt('AGENT_STREAM_IDLE_MS', env.AGENT_STREAM_IDLE_MS, DEFAULTS.streamIdleMs),
    warnings: [...dotenv.warnings, ...networkWarnings, ...prompt.instructions.warnings, ...planWarnings],
    passEnv: checkPassEnv(raw.passEnv),
    sandboxExpose: resolveSandboxExpose(raw.sandboxExpose, Boolean(raw.sandbox), env.HOME),
    sandboxTmpBytes: resolveTmpSize(raw.sandboxTmpSize, Boolean(raw.sandbox)),
    jsonSchema: nonEmpty(raw.jsonSchema, '--json-schema'),
    session: resolveSessionOptions(raw, real),
    budget: resolveBudget(raw, [model, ...(plans.fallback ? [plans.fallback.model] : [])]),
  };
}

/** --timeout and --max-timeout; --max-timeout alone caps the default limit too: no command runs longer than allowed. */
function resolveTimeouts(raw: RawOptions): { timeoutSec: number; maxTimeoutSec: number } {
  const maxTimeoutSec = positiveInt('--max-timeout', raw.maxTimeout, DEFAULTS.maxTimeoutSec);
  const timeoutSec =
    raw.timeout === undefined
      ? Math.min(DEFAULTS.timeoutSec, maxTimeoutSec)
      : positiveInt('--timeout', raw.timeout, DEFAULTS.timeoutSec);
  if (timeoutSec > maxTimeoutSec) {
    throw new UsageError(
      `--timeout ${timeoutSec} is longer than --max-timeout ${maxTimeoutSec}, the longest limit a command may have.\n` +
        `Give a --timeout of at most ${maxTimeoutSec}, or raise --max-timeout.`,
    );
  }
  return { timeoutSec, maxTimeoutSec };
}

function resolveOutputFormat(raw: RawOptions): OutputFormat {
  const outputFormat = raw.outputFormat ?? DEFAULTS.outputFormat;
  if (!isOutputFormat(outputFormat)) {
    throw new UsageError(`--output-format must be one of ${OUTPUT_FORMATS.join(', ')}; got '${outputFormat}'.`);
  }
  return outputFormat;
}

function guardPolicy(raw: RawOptions): Config['guard'] {
  return {
    builtinRules: !raw.dangerouslySkipGuard,
    allow: checkRules('--allow', raw.allow),
    deny: checkRules('--deny', raw.deny),
  };
}

function checkRules(flag: string, rules: string[] = []): string[] {
  for (const rule of rules) {
    const problem = validateRule(rule);
    if (problem) throw new UsageError(`${flag}: ${problem}.`);
  }
  return rules;
}

function resolveWorkingDirectory(dir: string | undefined): string {
  const path = resolve(dir ?? process.cwd());
  let isDirectory = false;
  try {
    isDirectory = statSync(path).isDirectory();
  } catch {
    throw new UsageError(`Working directory ${path} does not exist.`);
  }
  if (!isDirectory) throw new UsageError(`Working directory ${path} is not a directory.`);
  return path;
}

function readBaseURL(env: Variables): string | undefined {
  const value = nonEmpty(env.ANTHROPIC_BASE_URL);
  if (value === undefined) return undefined;
  let url: URL;
  try {
    url = new URL(value);
  } catch {
    throw new UsageError(`ANTHROPIC_BASE_URL is not a URL: '${value}'.`);
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') {
    throw new UsageError(`ANTHROPIC_BASE_URL must be an http or https URL; got '${value}'.`);
  }
  // The SDK appends /v1/messages itself; a base URL that already ends in /v1 would double it.
  return value.replace(/\/+$/, '').replace(/\/v1$/, '');
}

function atLeast(minimum: number, value: number, name: string): number {
  if (value < minimum) throw new UsageError(`${name} must be at least ${minimum}; got ${value}.`);
  return value;
}

function positiveInt(name: string, value: string | undefined, fallback: number): number {
  if (value === undefined) return fallback;
  if (!/^\s*\d+\s*$/.test(value) || Number(value) < 1 || !Number.isSafeInteger(Number(value))) {
    throw new UsageError(`${name} must be a positive whole number; got '${value}'.`);
  }
  return Number(value);
}

function nonEmpty(value: string | undefined, flag?: string): string | undefined {
  if (value === undefined) return undefined;
  const trimmed = value.trim();
  if (trimmed === '' && flag) throw new UsageError(`${flag} needs a value.`);
  return trimmed === '' ? undefined : trimmed;
}

function isOutputFormat(value: string): value is OutputFormat {
  return (OUTPUT_FORMATS as readonly string[]).includes(value);
}
