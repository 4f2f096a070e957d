import type Anthropic from '@anthropic-ai/sdk';
import type { Config } from './config.js';
import type { EventSink } from './events.js';
import type { RequestShape } from './api/cache.js';
import { ContextWindow, createContextFitter } from './api/context-fit.js';
import { createModelCall, type ModelStats } from './api/model.js';
import { agentLoop, type LoopEnd } from './loop.js';
import type { Outcome } from './outcome.js';
import type { RunReport } from './result.js';
import { prepareShell, privateRunDir } from './run-shell.js';
import type { RunSecrets } from './secrets.js';
import type { Shell } from './shell/exec.js';
import { buildSystemPrompt } from './system-prompt.js';
import { createBashTool, type GuardCheck } from './tools/bash.js';
import { createToolbox } from './tools/index.js';
import { priceFor } from './api/pricing.js';
import { emptyUsage } from './api/usage.js';
import { plural } from './plural.js';
import type { StructuredAnswer } from './structured/index.js';
import { followingController, withCostLimit } from './budget.js';
import { nowMs } from './clock.js';

interface RunInput {
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
  const runDir = privateRunDir(input.runRecords);
  input.registerCleanup(runDir.remove);
  const shell = await prepareShell(config, input.secrets, runDir, emit, input.registerCleanup);
  input.registerCleanup(() => shell.opened()?.killAll());

  let commands = 0;
  const countingEmit: EventSink = (event) => {
    if (event.type === 'tool_start') commands++;
    emit(event);
  };
  const guard = createGuardCheck(config, shell.open);
  const toolbox = bashToolbox(config, guard.check, shell.open, countingEmit, input.secrets);
  const stats: ModelStats = {
    usage: emptyUsage(),
    apiMs: 0,
    costUsd: priceFor(config.model) ? 0 : undefined,
    model: config.model,
  };
  const shape = requestShape(config, toolbox.specs, structured);
  input.session.describe({ system: shape.system.map((block) => block.text).join('\n\n'), tools: toolbox.specs });
  // The shell opens and the guard's parser loads while the first request is on its way: the model's answer takes far
  // longer than that.
  const onRequestSent = () => {
    void shell.open().catch(() => {});
    guard.preload();
  };
  const extras = structured?.extras;
  const model = createModelCall({ config, shape, emit: countingEmit, stats, extras, onRequestSent });
  const callModel = withCostLimit(model, config.budget, stats, stop);
  const context = createContextFitter(
    new ContextWindow({ contextWindow: config.contextWindow, maxOutputTokens: config.maxTokens }),
    shape,
  );

  messages.push({ role: 'user', content: input.prompt });
  let end: LoopEnd;
  try {
    end = await agentLoop(messages, {
      callModel,
      runTool: toolbox.run,
      context,
      emit: countingEmit,
      maxTurns: config.maxTurns,
      signal,
      finish: structured?.finish,
    });
  } finally {
    // Opened even when no request went out, so that every run sweeps what dead runs left behind.
    await (await shell.open()).dispose();
    runDir.remove();
  }
  return {
    outcome: explain(end, config),
    ...modelTotals(stats),
    numTurns: end.turns,
    commands,
    durationMs: nowMs() - input.startedAt,
    structured: structured?.accepted(),
  };
}

function modelTotals(stats: ModelStats): Pick<RunReport, 'model' | 'usage' | 'costUsd' | 'apiMs'> {
  return { model: stats.model, usage: stats.usage, costUsd: stats.costUsd, apiMs: stats.apiMs };
}

/** The one tool, bash: its commands judged by the guard and run in the run's shell. */
function bashToolbox(
  config: Config,
  guard: GuardCheck,
  openShell: () => Promise<Shell>,
  emit: EventSink,
  secrets: RunSecrets,
) {
  const bash = createBashTool({
    openShell,
    guard,
    maxTimeoutSec: config.maxTimeoutSec,
    defaultTimeoutSec: config.timeoutSec,
    emit,
  });
  return createToolbox([bash], secrets.redactor.plain);
}

/** What every request of the run repeats: the system prompt (with the answer's format, under --json-schema) and the tools. */
function requestShape(config: Config, tools: Anthropic.Tool[], structured: StructuredAnswer | undefined): RequestShape {
  const system = buildSystemPrompt({
    cwd: config.cwd,
    replace: config.systemPrompt,
    projectInstructions: config.instructions.text,
    append: config.appendSystemPrompt,
    sandboxed: config.sandbox,
  });
  const sections = [system, ...(structured ? [structured.systemSection] : [])].filter((text) => text.trim() !== '');
  return { system: sections.map((text) => ({ type: 'text', text })), tools };
}

/**
 * The guard's parser loads once the first request is out (preload) or on the first command, not at start-up. It
 * judges the command where and as it will run.
 */
function createGuardCheck(config: Config, openShell: () => Promise<Shell>): { check: GuardCheck; preload: () => void } {
  let guard: Promise<typeof import('./guard/judge.js')> | undefined;
  const load = () => (guard ??= import('./guard/judge.js'));
  const check: GuardCheck = async (command) => {
    const { judgeCommand } = await load();
    const shell = await openShell();
    const verdict = await judgeCommand(command, config.guard, { cwd: shell.cwd, env: shell.commandEnvironment() });
    return verdict.allowed ? verdict : { allowed: false, reason: verdict.reason };
  };
  // A parser that fails to load fails the first command, which says so; loading it early says nothing.
  const preload = () =>
    void load()
      .then((judge) => judge.loadParser())
      .catch(() => {});
  return { check, preload };
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
