import { mkdtempSync, realpathSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type Anthropic from '@anthropic-ai/sdk';
import type { Config } from './cli/config.js';
import type { EventSink } from './events.js';
import { agentLoop, type LoopEnd } from './loop.js';
import { ApiFailure, ContextOverflow, createModelCall, type ModelStats } from './api/model.js';
import { interruptedOutcome } from './cli/interrupt.js';
import { UsageError, type Outcome } from './outcome.js';
import { buildResult, type ResultObject } from './result.js';
import { Shell } from './shell/exec.js';
import { buildSystemPrompt } from './system-prompt.js';
import { createBashTool, type GuardCheck } from './tools/bash.js';
import { createToolbox } from './tools/index.js';
import { priceFor } from './api/pricing.js';
import { emptyUsage } from './api/usage.js';
import { plural } from './plural.js';

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
}

/**
 * Sets up one run (sandbox probe, shell, guard, tools, model) and drives the loop. Everything that can go wrong
 * after the configuration was accepted comes back as an Outcome; only a sandbox that cannot start is a UsageError.
 */
export async function runAgent(input: RunInput): Promise<ResultObject> {
  const { config, messages, emit, signal } = input;
  // One private directory per run: full-output files go here, and under --sandbox it is the run's /tmp.
  const runDir = realpathSync(mkdtempSync(join(tmpdir(), 'agent-run-')));
  input.registerCleanup(() => rmSync(runDir, { recursive: true, force: true }));
  const wrap = config.sandbox ? await sandboxWrapper(config.cwd, runDir) : undefined;
  const shell = new Shell({
    runCwd: config.cwd,
    defaultTimeoutSec: config.timeoutSec,
    maxTimeoutSec: config.maxTimeoutSec,
    spillDir: runDir,
    ...(wrap ? { wrap } : {}),
  });
  input.registerCleanup(() => shell.killAll());

  let commands = 0;
  const countingEmit: EventSink = (event) => {
    if (event.type === 'tool_start') commands++;
    emit(event);
  };
  const toolbox = createToolbox([
    createBashTool({
      shell,
      guard: createGuardCheck(config, () => shell.cwd),
      maxTimeoutSec: config.maxTimeoutSec,
      defaultTimeoutSec: config.timeoutSec,
      emit: countingEmit,
    }),
  ]);
  const stats: ModelStats = { usage: emptyUsage(), apiMs: 0, costUsd: priceFor(config.model) ? 0 : undefined };
  const system = buildSystemPrompt({
    cwd: config.cwd,
    replace: config.systemPrompt,
    append: config.appendSystemPrompt,
    sandboxed: config.sandbox,
  });
  const callModel = createModelCall({ config, system, tools: toolbox.specs, emit: countingEmit, stats });

  messages.push({ role: 'user', content: input.prompt });
  let outcome: Outcome;
  try {
    const end = await agentLoop(messages, { callModel, runTool: toolbox.run, emit: countingEmit, maxTurns: config.maxTurns, signal });
    outcome = describe(end, config);
  } catch (error) {
    outcome = outcomeOfFailure(error, signal, messages);
  } finally {
    await shell.dispose();
    rmSync(runDir, { recursive: true, force: true });
  }
  return buildResult({
    outcome,
    model: config.model,
    numTurns: messages.filter((message) => message.role === 'assistant').length,
    commands,
    usage: stats.usage,
    costUsd: stats.costUsd,
    durationMs: performance.now() - input.startedAt,
    apiMs: stats.apiMs,
  });
}

async function sandboxWrapper(workDir: string, tmpDir: string) {
  const { probeSandbox, sandboxWrap } = await import('./shell/sandbox.js');
  const probe = await probeSandbox();
  if (!probe.ok) throw new UsageError(probe.message);
  return sandboxWrap(probe.bwrapPath, workDir, { tmpDir });
}

/** The guard's parser loads on the first command, not at start-up. */
function createGuardCheck(config: Config, cwd: () => string): GuardCheck {
  return async (command) => {
    const { judgeCommand } = await import('./guard/judge.js');
    const verdict = await judgeCommand(command, config.guard, cwd());
    return verdict.allowed ? verdict : { allowed: false, reason: verdict.reason };
  };
}

function describe(end: LoopEnd, config: Config): Outcome {
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

function outcomeOfFailure(error: unknown, signal: AbortSignal, messages: Anthropic.MessageParam[]): Outcome {
  const finalText = lastAssistantText(messages);
  if (signal.aborted) return interruptedOutcome(signal, finalText);
  if (error instanceof ApiFailure) {
    return { kind: 'api_error', stopReason: null, finalText, message: `API request failed: ${error.message}${hintFor(error.message)}` };
  }
  if (error instanceof ContextOverflow) return { kind: 'context', stopReason: null, finalText, message: error.message };
  throw error;
}

function hintFor(message: string): string {
  if (/^401\b/.test(message)) return '\nCheck ANTHROPIC_API_KEY (or ANTHROPIC_AUTH_TOKEN).';
  if (/^403\b/.test(message)) return '\nThe credential is not allowed to do this; check its permissions.';
  if (/^404\b/.test(message)) return '\nCheck --model (or MODEL_ID) and ANTHROPIC_BASE_URL.';
  if (/^413\b/.test(message)) return '\nThe request was too large; use --context-window to budget for a smaller window.';
  return '';
}

function lastAssistantText(messages: Anthropic.MessageParam[]): string {
  for (let i = messages.length - 1; i >= 0; i--) {
    const message = messages[i]!;
    if (message.role !== 'assistant' || typeof message.content === 'string') continue;
    return message.content.flatMap((block) => (block.type === 'text' ? [block.text] : [])).join('');
  }
  return '';
}
