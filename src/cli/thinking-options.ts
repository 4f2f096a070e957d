import { maxOutputTokensOf, thinkingStyleOf } from '../api/model-facts.js';
import { EFFORTS } from '../api/thinking.js';
import type { Effort, ModelPlan, ThinkingParam } from '../config.js';
import { UsageError } from '../outcome.js';

/** The API's floor for a thinking budget. */
const MIN_THINKING_BUDGET = 1_024;
/** max_tokens with thinking on for a model whose output limit is not known. */
const THINKING_MAX_TOKENS = 64_000;

export interface RawModelOptions {
  effort?: string;
  maxThinkingTokens?: string;
  /** False with --no-thinking. */
  thinking?: boolean;
  fallbackModel?: string;
}

interface ThinkingWish {
  off: boolean;
  effort: Effort | undefined;
  budget: { tokens: number; name: string } | undefined;
}

/**
 * --effort, --max-thinking-tokens (or MAX_THINKING_TOKENS), --no-thinking and --fallback-model, checked, as one plan
 * per model: a model known to think adaptively gets adaptive thinking; a budget goes to the others.
 */
export function resolveModelPlans(
  raw: RawModelOptions,
  env: NodeJS.ProcessEnv,
  model: string,
  maxTokensFlag: number | undefined,
  defaultMaxTokens: number,
  warnings: string[],
): { main: ModelPlan; fallback: ModelPlan | undefined } {
  const wish = readWish(raw, env);
  const fallbackModel = raw.fallbackModel === undefined ? undefined : raw.fallbackModel.trim();
  if (fallbackModel === '') throw new UsageError('--fallback-model needs a value.');
  if (fallbackModel !== undefined && fallbackModel.toLowerCase() === model.toLowerCase()) {
    throw new UsageError(
      `--fallback-model is the same model as the main one (${model}); name another model, or leave it out.`,
    );
  }
  const plan = (id: string) => planFor(id, wish, maxTokensFlag, defaultMaxTokens, warnings);
  return { main: plan(model), fallback: fallbackModel === undefined ? undefined : plan(fallbackModel) };
}

function readWish(raw: RawModelOptions, env: NodeJS.ProcessEnv): ThinkingWish {
  const off = raw.thinking === false;
  if (raw.effort !== undefined && !(EFFORTS as readonly string[]).includes(raw.effort)) {
    throw new UsageError(`--effort must be one of ${EFFORTS.join(', ')}; got '${raw.effort}'.`);
  }
  if (off && raw.effort !== undefined) throw new UsageError('--no-thinking and --effort cannot be used together.');
  if (off && raw.maxThinkingTokens !== undefined)
    throw new UsageError('--no-thinking and --max-thinking-tokens cannot be used together.');
  const fromFlag = raw.maxThinkingTokens !== undefined;
  const value = fromFlag ? raw.maxThinkingTokens : env.MAX_THINKING_TOKENS?.trim() || undefined;
  const name = fromFlag ? '--max-thinking-tokens' : 'MAX_THINKING_TOKENS';
  const budget = off || value === undefined ? undefined : { tokens: budgetTokens(name, value), name };
  return { off, effort: raw.effort as Effort | undefined, budget };
}

function budgetTokens(name: string, value: string): number {
  const tokens = /^\s*\d+\s*$/.test(value) ? Number(value) : Number.NaN;
  if (!Number.isSafeInteger(tokens)) throw new UsageError(`${name} must be a whole number of tokens; got '${value}'.`);
  if (tokens < MIN_THINKING_BUDGET)
    throw new UsageError(`${name} must be at least ${MIN_THINKING_BUDGET}; got ${tokens}.`);
  return tokens;
}

function planFor(
  model: string,
  wish: ThinkingWish,
  maxTokensFlag: number | undefined,
  defaultMaxTokens: number,
  warnings: string[],
): ModelPlan {
  if (wish.off) return { model, maxTokens: maxTokensFlag ?? defaultMaxTokens, thinking: undefined, effort: undefined };
  const style = thinkingStyleOf(model);
  let thinking: ThinkingParam | undefined;
  if (wish.budget && style !== 'adaptive') thinking = { type: 'enabled', budget_tokens: wish.budget.tokens };
  else if (style === 'adaptive' || wish.effort !== undefined) thinking = { type: 'adaptive' };
  if (wish.budget && style === 'adaptive') {
    warnings.push(
      `${model} thinks adaptively and takes no thinking budget, so ${wish.budget.name} is not used; --effort sets how hard it thinks.`,
    );
  }
  // Thinking counts against max_tokens: without --max-tokens, leave it room.
  const maxTokens = maxTokensFlag ?? (thinking ? (maxOutputTokensOf(model) ?? THINKING_MAX_TOKENS) : defaultMaxTokens);
  if (thinking?.type === 'enabled' && thinking.budget_tokens >= maxTokens) {
    const limit =
      maxTokensFlag === undefined ? `the max_tokens of ${model} (${maxTokens})` : `--max-tokens (${maxTokens})`;
    throw new UsageError(`${wish.budget!.name} (${thinking.budget_tokens}) must be less than ${limit}.`);
  }
  const roomForThinking = maxTokensFlag === undefined && thinking !== undefined;
  return {
    model,
    maxTokens,
    thinking,
    effort: wish.effort,
    ...(roomForThinking ? { maxTokensWithoutThinking: defaultMaxTokens } : {}),
  };
}
