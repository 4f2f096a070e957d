import { mkdtempSync, realpathSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import type Anthropic from '@anthropic-ai/sdk';
import type { Config } from './config.js';
import type { EventSink } from './events.js';
import type { RequestShape } from './api/cache.js';
import { ContextWindow, createContextFitter } from './api/context-fit.js';
import { createModelCall, type ModelStats } from './api/model.js';
import { agentLoop, type LoopEnd } from './loop.js';
import { UsageError, type Outcome } from './outcome.js';
import type { RunReport } from './result.js';
import type { RunSecrets } from './secrets.js';
import { Shell } from './shell/exec.js';
import { RUN_DIR_PREFIX, sweepDeadRuns } from './shell/mark-registry.js';
import { buildSystemPrompt } from './system-prompt.js';
import { createBashTool, type GuardCheck } from './tools/bash.js';
import { createToolbox } from './tools/index.js';
import { priceFor } from './api/pricing.js';
import { emptyUsage } from './api/usage.js';
import { plural } from './plural.js';
import type { StructuredAnswer } from './structured/index.js';
import { followingController, withCostLimit } from './budget.js';

export interface RunInput {
  config: Config;
  prompt: string;
  /** The conversation, owned by the caller so that a transcript can follow it. */
  messages: Anthropic.MessageParam[];
  emit: EventSink;
  signal: AbortSignal;
  /** Called with a synchronous function that kills every process the run started; the caller runs it on any exit. */
  registerCleanup: (kill: () => void) => void;
  startedAt: number;
  /** With --json-schema: the answer's format, already checked. */
  structured?: StructuredAnswer;
  /** The run's session: where the system prompt and tools of the run are recorded. */
  session: { describe(shape: { system: string; tools: Anthropic.Tool[] }): void };
  /** Where the run records itself while it lives (the state directory's `running`), or undefined for nowhere. */
  runRecords: string | undefined;
  /** What the commands may see, and the redactor that the tool results pass through on their way to the model. */
  secrets: RunSecrets;
}

/**
 * Sets up one run (sandbox probe, shell, guard, tools, model) and drives the loop. Everything that can go wrong
 * after the configuration was accepted comes back as an Outcome; only a sandbox that cannot start is a UsageError.
 */
export async function runAgent(input: RunInput): Promise<RunReport> {
  const { config, messages, emit, structured } = input;
  // The run's own stop switch: the caller's signal (interrupts, --max-duration), and --max-budget-usd.
  const stop = followingController(input.signal);
  const signal = stop.signal;
  // One private directory per run: full-output files and the shell's bookkeeping go here, read-only under --sandbox.
  const runDir = realpathSync(mkdtempSync(join(tmpdir(), RUN_DIR_PREFIX)));
  input.registerCleanup(() => rmSync(runDir, { recursive: true, force: true }));
  const shell = await openShell(config, input.secrets, runDir, input.runRecords, emit, input.registerCleanup);
  input.registerCleanup(() => shell.killAll());

  let commands = 0;
  const countingEmit: EventSink = (event) => {
    if (event.type === 'tool_start') commands++;
    emit(event);
  };
  const toolbox = createToolbox([
    createBashTool({
      shell,
      guard: createGuardCheck(config, shell),
      maxTimeoutSec: config.maxTimeoutSec,
      defaultTimeoutSec: config.timeoutSec,
      emit: countingEmit,
    }),
  ], input.secrets.redactor.plain);
  const stats: ModelStats = { usage: emptyUsage(), apiMs: 0, costUsd: priceFor(config.model) ? 0 : undefined, model: config.model };
  const system = buildSystemPrompt({
    cwd: config.cwd,
    replace: config.systemPrompt,
    projectInstructions: config.instructions.text,
    append: config.appendSystemPrompt,
    sandboxed: config.sandbox,
  });
  const sections = [system, ...(structured ? [structured.systemSection] : [])].filter((text) => text.trim() !== '');
  const shape: RequestShape = { system: sections.map((text) => ({ type: 'text', text })), tools: toolbox.specs };
  input.session.describe({ system: sections.join('\n\n'), tools: toolbox.specs });
  const callModel = withCostLimit(createModelCall({ config, shape, emit: countingEmit, stats, extras: structured?.extras }), config.budget, stats, stop);
  const context = createContextFitter(new ContextWindow({ contextWindow: config.contextWindow, maxOutputTokens: config.maxTokens }), shape);

  messages.push({ role: 'user', content: input.prompt });
  let end: LoopEnd;
  try {
    end = await agentLoop(messages, { callModel, runTool: toolbox.run, context, emit: countingEmit, maxTurns: config.maxTurns, signal, finish: structured?.finish });
  } finally {
    await shell.dispose();
    rmSync(runDir, { recursive: true, force: true });
  }
  return {
    outcome: explain(end, config),
    model: stats.model,
    numTurns: end.turns,
    commands,
    usage: stats.usage,
    costUsd: stats.costUsd,
    durationMs: performance.now() - input.startedAt,
    apiMs: stats.apiMs,
    structured: structured?.accepted(),
  };
}

/** The run's shell: under the sandbox when asked, with secrets withheld and masked, its marks registered. */
async function openShell(
  config: Config,
  secrets: RunSecrets,
  runDir: string,
  runRecords: string | undefined,
  emit: EventSink,
  registerCleanup: RunInput['registerCleanup'],
): Promise<Shell> {
  const sandbox = config.sandbox ? await sandboxFor(config, runDir, emit) : undefined;
  if (sandbox) registerCleanup(sandbox.stop);
  emit({ type: 'notice', message: secrets.notice });
  // Commands of earlier runs that were killed outright (SIGKILL) and could not clean up after themselves.
  if (runRecords) sweepDeadRuns(runRecords, dirname(runDir));
  return new Shell({
    ...(runRecords ? { markRegistry: runRecords } : {}),
    runCwd: config.cwd,
    env: config.env.variables,
    defaultTimeoutSec: config.timeoutSec,
    maxTimeoutSec: config.maxTimeoutSec,
    spillDir: runDir,
    ...(sandbox ? { wrap: sandbox.wrap, afterCommand: sandbox.afterCommand } : {}),
    passEnv: secrets.passEnv,
    ...(secrets.createMask ? { createMask: secrets.createMask } : {}),
  });
}

async function sandboxFor(config: Config, runDir: string, emit: EventSink) {
  const { setUpSandbox } = await import('./shell/sandbox-setup.js');
  const warn = (message: string): void => emit({ type: 'warning', message });
  const { cwd, sandboxTmpBytes: tmpBytes, sandboxExpose: expose } = config;
  const { path, home, variables } = config.env;
  const sandbox = await setUpSandbox({ cwd, runDir, tmpBytes, expose, path, home, runtimeDir: variables.XDG_RUNTIME_DIR, warn });
  if ('unavailable' in sandbox) throw new UsageError(sandbox.unavailable);
  return sandbox;
}

/** The guard's parser loads on the first command, not at start-up. It judges the command where and as it will run. */
function createGuardCheck(config: Config, shell: Shell): GuardCheck {
  return async (command) => {
    const { judgeCommand } = await import('./guard/judge.js');
    const verdict = await judgeCommand(command, config.guard, { cwd: shell.cwd, env: shell.commandEnvironment() });
    return verdict.allowed ? verdict : { allowed: false, reason: verdict.reason };
  };
}

/** The message for people of an ending whose wording depends on the flags. */
function explain(end: LoopEnd, config: Config): Outcome {
  if (end.message) return end;
  const messages: Partial<Record<LoopEnd['kind'], string>> = {
    max_turns: `Stopped after ${plural(config.maxTurns, 'model call')} (--max-turns) without a finished answer.`,
    max_tokens: `The reply was still cut off at the output token limit after continuing; raise --max-tokens (now ${config.maxTokens}).`,
    refusal: 'The model declined to continue (stop reason: refusal).',
    context: "The conversation outgrew the model's context window (stop reason: model_context_window_exceeded).",
    api_error: `The API returned an unexpected stop reason: ${end.stopReason}.`,
  };
  const message = messages[end.kind];
  return { ...end, ...(message ? { message } : {}) };
}
