import type Anthropic from '@anthropic-ai/sdk';
import type { RequestParts, RequestShape } from './cache.js';
import { promptTokens, type PromptUsage } from './usage.js';
import { CHARS_PER_TOKEN, toolResultChars, toolResultTokens } from './context-estimate.js';
import { PromptTokenCount } from './context-count.js';

interface ContextWindowOptions {
  /** Tokens the model can hold: prompt and output together. Default 200,000. */
  contextWindow?: number;
  /** The request's max_tokens. */
  maxOutputTokens: number;
  /** Share of the window at which old tool results start being elided. Default 0.75. */
  threshold?: number;
  /** Share of the window that one round of elision brings the prompt down to. Default 0.5. */
  lowMark?: number;
  /** How many of the newest tool results always stay whole. Default 3, at least 1. */
  keepRecentResults?: number;
}

type FitResult = { ok: true; elided: number } | { ok: false; estimate: number; limit: number };

interface ContextLimits {
  /** Prompt estimate above which fit() elides. */
  trigger: number;
  /** Prompt estimate that a round of elision aims for. */
  lowMark: number;
  /** Prompt estimate above which the request is not sent at all. */
  hardLimit: number;
}

/** Before any observation: chars/4 tends to undercount code, JSON and newer tokenizers. */
const INITIAL_RATIO = 1.2;
/** Never trust an estimate below chars/4; a proxy that under-reports usage must not shrink it. */
const MIN_RATIO = 1;
/** Text in scripts like CJK runs at about one token per character. */
const MAX_RATIO = 4;
/** Smaller requests are dominated by fixed overhead the API adds, which would skew the ratio. */
const MIN_RAW_TOKENS_TO_CALIBRATE = 4_096;
/** Eliding a result that saves less than this only churns the cached prefix. */
const MIN_TOKENS_SAVED = 64;

/** What replaces a tool result's content once it is elided. Never empty. */
function elisionNote(chars: number): string {
  return `[output elided to save context: ${chars} characters; re-run the command if you need it]`;
}

interface ResultLocation {
  message: Anthropic.MessageParam;
  index: number;
  block: Anthropic.ToolResultBlockParam;
}

function toolResults(messages: Anthropic.MessageParam[]): ResultLocation[] {
  const found: ResultLocation[] = [];
  for (const message of messages) {
    if (typeof message.content === 'string') continue;
    message.content.forEach((block, index) => {
      if (block.type === 'tool_result') found.push({ message, index, block });
    });
  }
  return found;
}

function clamp(value: number, low: number, high: number): number {
  return Math.min(high, Math.max(low, value));
}

function checkShare(name: string, value: number): number {
  if (!(value > 0 && value <= 1)) throw new RangeError(`${name} must be in (0, 1], got ${value}`);
  return value;
}

/**
 * Keeps each request inside the model's context window.
 *
 * The API rejects a prompt larger than the window, and a prompt that leaves less room than
 * max_tokens may end with model_context_window_exceeded. So the hard limit reserves room for
 * max_tokens, capped at a quarter of the window so a large --max-tokens does not make
 * ordinary prompts impossible (answers rarely use all of max_tokens).
 *
 * Past the trigger, the oldest tool results are elided in place, in one batch, down to the
 * low mark. Batching keeps the conversation's prefix, and so the prompt cache, unchanged
 * for many turns between rounds instead of changing a little every turn.
 */
export class ContextWindow {
  readonly limits: ContextLimits;
  private readonly keepRecentResults: number;
  private tokensPerRawToken = INITIAL_RATIO;
  // fit() and observe() see the same, growing conversation every turn: it is counted once, as it grows.
  private readonly rawTokens = new PromptTokenCount();

  constructor(options: ContextWindowOptions) {
    const window = options.contextWindow ?? 200_000;
    if (!(Number.isFinite(window) && window > 0)) throw new RangeError(`contextWindow must be positive, got ${window}`);
    if (!(options.maxOutputTokens >= 0))
      throw new RangeError(`maxOutputTokens must be >= 0, got ${options.maxOutputTokens}`);
    const threshold = checkShare('threshold', options.threshold ?? 0.75);
    const lowMark = checkShare('lowMark', options.lowMark ?? 0.5);
    const hardLimit = window - Math.min(options.maxOutputTokens, window / 4);
    const trigger = Math.min(threshold * window, hardLimit);
    this.limits = { trigger, lowMark: Math.min(lowMark * window, trigger), hardLimit };
    this.keepRecentResults = Math.max(1, Math.floor(options.keepRecentResults ?? 3));
  }

  estimate(parts: RequestParts): number {
    return Math.ceil(this.rawTokens.count(parts) * this.tokensPerRawToken);
  }

  /**
   * Call after each response with the parts of the request just sent (before the reply is
   * appended) and its prompt size as reported: input + cache_creation + cache_read tokens.
   */
  observe(parts: RequestParts, reportedPromptTokens: number): void {
    const raw = this.rawTokens.count(parts);
    if (!(reportedPromptTokens > 0) || raw < MIN_RAW_TOKENS_TO_CALIBRATE) return;
    this.tokensPerRawToken = clamp(reportedPromptTokens / raw, MIN_RATIO, MAX_RATIO);
  }

  /** Call before each request. May elide old tool results in parts.messages, in place. */
  fit(parts: RequestParts): FitResult {
    const { trigger, lowMark, hardLimit } = this.limits;
    let estimate = this.estimate(parts);
    if (estimate <= trigger) return { ok: true, elided: 0 };
    const elided = this.elideOldest(parts.messages, estimate - lowMark);
    if (elided > 0) estimate = this.estimate(parts);
    if (estimate > hardLimit) return { ok: false, estimate, limit: hardLimit };
    return { ok: true, elided };
  }

  /** Elides tool results, oldest first, until about `excess` tokens are saved. Returns how many. */
  private elideOldest(messages: Anthropic.MessageParam[], excess: number): number {
    const results = toolResults(messages);
    const latestTurn = results.at(-1)?.message;
    const candidates = results
      .slice(0, Math.max(0, results.length - this.keepRecentResults))
      .filter((result) => result.message !== latestTurn);
    let remaining = excess;
    let elided = 0;
    const changed = new Set<Anthropic.MessageParam>();
    for (const { message, index, block } of candidates) {
      if (remaining <= 0) break;
      const note = elisionNote(toolResultChars(block.content));
      const saved = toolResultTokens(block.content) - Math.ceil(note.length / CHARS_PER_TOKEN);
      if (saved < MIN_TOKENS_SAVED || !Array.isArray(message.content)) continue;
      message.content[index] = { ...block, content: note };
      remaining -= saved * this.tokensPerRawToken;
      elided++;
      changed.add(message);
    }
    for (const message of changed) this.rawTokens.recount(message);
    return elided;
  }
}

type ContextFit = { ok: true; elided: number } | { ok: false; message: string };

/** The context window as the loop uses it: on the conversation alone, with the run's system prompt and tools held here. */
export interface ContextFitter {
  /** Before each request: may elide old tool results in place; not ok when even that cannot make the request fit. */
  fit(messages: Anthropic.MessageParam[]): ContextFit;
  /** After each response, before the reply is appended: calibrates the estimate from the reported usage. */
  observe(messages: Anthropic.MessageParam[], usage: PromptUsage): void;
}

export function createContextFitter(window: ContextWindow, shape: RequestShape): ContextFitter {
  return {
    fit(messages) {
      const fit = window.fit({ ...shape, messages });
      if (fit.ok) return fit;
      const message =
        `The conversation needs about ${Math.round(fit.estimate)} tokens, more than the ${Math.floor(fit.limit)} this context window allows, ` +
        'even with old command output dropped (the prompt and any piped input count too).';
      return { ok: false, message };
    },
    observe(messages, usage) {
      window.observe({ ...shape, messages }, promptTokens(usage));
    },
  };
}
