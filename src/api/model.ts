import type Anthropic from '@anthropic-ai/sdk';
import { nodeFetch } from './http-fetch.js';
import { BaseAnthropic } from '@anthropic-ai/sdk/client';
import { Messages } from '@anthropic-ai/sdk/resources/messages/messages';
import { withCacheBreakpoints, type RequestParts } from './cache.js';
import type { Config } from '../cli/config.js';
import { ContextBudget } from './context.js';
import { requestCostUsd } from './pricing.js';
import type { EventSink } from '../events.js';
import { classifyFailure, MAX_ATTEMPTS, retryDelayMs } from './retry.js';
import { watchForStall } from './stall-watch.js';
import { addUsage, promptTokens, type UsageTotals } from './usage.js';

/** The API refused or kept failing: exit 3. */
export class ApiFailure extends Error {
  override name = 'ApiFailure';
}

/** The conversation cannot be made to fit the context window: exit 1 with error_context. */
export class ContextOverflow extends Error {
  override name = 'ContextOverflow';
}

/** What the model calls of a run add up to; the result object reads it. */
export interface ModelStats {
  usage: UsageTotals;
  apiMs: number;
  /** Summed per call, since some prices depend on each request's size; undefined once any call's price is unknown. */
  costUsd: number | undefined;
}

export interface ModelSetup {
  config: Config;
  system: string;
  tools: Anthropic.Tool[];
  emit: EventSink;
  stats: ModelStats;
}

export type CallModel = (messages: Anthropic.MessageParam[], signal: AbortSignal) => Promise<Anthropic.Message>;

/**
 * One streamed model call: fit the conversation to the window, mark cache breakpoints, stream, and retry what
 * can be retried. The SDK's own retries are off so that every retry, including a stream that breaks mid-way
 * (which the SDK never retries), goes through one policy and is announced.
 */
export function createModelCall({ config, system, tools, emit, stats }: ModelSetup): CallModel {
  const client = new Messages(new BaseAnthropic({
    ...config.credentials,
    baseURL: config.baseURL ?? null,
    maxRetries: 0,
    fetch: nodeFetch,
    // No tracer is ever registered in this process, so the SDK's spans would only cost time on every call.
    openTelemetry: false,
  }));
  const budget = new ContextBudget({ contextWindow: config.contextWindow, maxOutputTokens: config.maxTokens });
  const systemBlocks: Anthropic.TextBlockParam[] = [{ type: 'text', text: system }];
  let turn = 0;

  return async (messages, signal) => {
    turn++;
    const parts: RequestParts = { system: systemBlocks, tools, messages };
    const fit = budget.fit(parts);
    if (!fit.ok) {
      throw new ContextOverflow(
        `The conversation needs about ${Math.round(fit.estimate)} tokens, more than the ${Math.floor(fit.limit)} this context window allows, ` +
          'even with old command output dropped (the prompt and any piped input count too).',
      );
    }
    const request = config.cache ? withCacheBreakpoints(parts) : parts;
    emit({ type: 'request_start', turn });

    for (let attempt = 1; ; attempt++) {
      const started = performance.now();
      const watch = watchForStall(signal, config.streamIdleMs);
      try {
        const stream = client.stream(
          { model: config.model, max_tokens: config.maxTokens, system: request.system, tools: request.tools, messages: request.messages },
          { signal: watch.signal },
        );
        stream.on('streamEvent', (event) => {
          watch.touch();
          if (event.type === 'content_block_delta' && event.delta.type === 'text_delta') {
            emit({ type: 'text_delta', text: event.delta.text, block: event.index });
          }
        });
        const message = asMessage(await stream.finalMessage());
        stats.apiMs += performance.now() - started;
        stats.usage = addUsage(stats.usage, message.usage);
        const cost = requestCostUsd(config.model, message.usage);
        stats.costUsd = stats.costUsd === undefined || cost === undefined ? undefined : stats.costUsd + cost;
        budget.observe(parts, promptTokens(message.usage));
        emit({ type: 'response', turn, message });
        return message;
      } catch (error) {
        stats.apiMs += performance.now() - started;
        const failure = watch.stalled()
          ? { kind: 'retryable' as const, reason: `stream stalled: no data for ${config.streamIdleMs / 1000} s`, retryAfterMs: undefined }
          : classifyFailure(error, signal);
        if (failure.kind === 'aborted') throw signal.reason ?? error;
        if (failure.kind === 'fatal') throw new ApiFailure(failure.message);
        if (attempt >= MAX_ATTEMPTS) {
          throw new ApiFailure(`${failure.reason} — gave up after ${MAX_ATTEMPTS} attempts.`);
        }
        const delayMs = retryDelayMs(attempt, config.retryBaseDelayMs, failure.retryAfterMs);
        emit({ type: 'retry', attempt: attempt + 1, maxAttempts: MAX_ATTEMPTS, delayMs, reason: failure.reason });
        await sleep(delayMs, signal);
      } finally {
        watch.stop();
      }
    }
  };
}

/** The message as the API sent it, without the SDK's parsing helpers (parsed_output), for transcripts and stream-json. */
function asMessage(parsed: Anthropic.Message & { parsed_output?: unknown }): Anthropic.Message {
  const { parsed_output: _parsed, ...message } = parsed;
  return message;
}

function sleep(ms: number, signal: AbortSignal): Promise<void> {
  return new Promise((resolve, reject) => {
    if (signal.aborted) return reject(signal.reason);
    const timer = setTimeout(() => {
      signal.removeEventListener('abort', onAbort);
      resolve();
    }, ms);
    const onAbort = () => {
      clearTimeout(timer);
      reject(signal.reason);
    };
    signal.addEventListener('abort', onAbort, { once: true });
  });
}
