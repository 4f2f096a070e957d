import type Anthropic from '@anthropic-ai/sdk';
import { BaseAnthropic } from '@anthropic-ai/sdk/client';
import { APIUserAbortError } from '@anthropic-ai/sdk/core/error';
import { Messages } from '@anthropic-ai/sdk/resources/messages/messages';
import type { Config } from '../config.js';
import type { EventSink } from '../events.js';
import { conversationBreakpoints, withShapeBreakpoints, type RequestShape } from './cache.js';
import type { ModelFailure } from './failure.js';
import { createNodeFetch } from './http-fetch.js';
import { asStreamError, MessageAccumulator } from './message-accumulator.js';
import { requestCostUsd } from './pricing.js';
import { readMessageEvents } from './event-reader.js';
import { checkedFetch } from './response-check.js';
import { routeSdkWarnings } from './sdk-warnings.js';
import { classifyFailure, MAX_ATTEMPTS, retryDelayMs, type FailureClass } from './retry.js';
import { watchForStall, type StallWatch } from './stall-watch.js';
import { addUsage, type UsageTotals } from './usage.js';
import { ModelSwitch, modelNotFound, overloaded, type SwitchReason } from './fallback.js';
import { combineExtras, hasUnsignedThinking, thinkingExtras, type RequestExtras } from './thinking.js';
import { nowMs } from '../clock.js';

/** What the model calls of a run add up to; the result object reads it. */
export interface ModelStats {
  usage: UsageTotals;
  apiMs: number;
  /** Summed per call, since some prices depend on each request's size; undefined once any call's price is unknown. */
  costUsd: number | undefined;
  /** The model that gave the latest response: the fallback, once the run has switched to it. */
  model: string;
}

interface ModelSetup {
  config: Pick<Config, 'plans' | 'cache' | 'credentials' | 'baseURL' | 'network' | 'retryBaseDelayMs' | 'streamIdleMs'>;
  shape: RequestShape;
  emit: EventSink;
  stats: ModelStats;
  /** More top-level request fields (structured output), owned by whoever asked for them. */
  extras?: RequestExtras;
  /** Called each time a request has been written out whole; set-up that can wait for the answer waits for it. */
  onRequestSent?: () => void;
}

export type { RequestExtras } from './thinking.js';

type ModelReply = { ok: true; message: Anthropic.Message } | { ok: false; failure: ModelFailure };

/** One model call with the whole conversation, as the loop makes it. Never throws for API failures. */
export type CallModel = (messages: Anthropic.MessageParam[], turn: number, signal: AbortSignal) => Promise<ModelReply>;

/**
 * One streamed model call: mark cache breakpoints, stream, and retry what can be retried. The SDK's own retries are
 * off so that every retry, including a stream that breaks mid-way (which the SDK never retries), goes through one
 * policy and is announced.
 */
export function createModelCall({ config, shape, emit, stats, extras, onRequestSent }: ModelSetup): CallModel {
  routeSdkWarnings(emit);
  const client = messagesClient(config, onRequestSent);
  const warn = (message: string) => emit({ type: 'warning', message });
  const models = new ModelSwitch(config.plans, warn);
  // The system prompt and tools are the same for every request: their breakpoints are placed once.
  const { system, tools } = config.cache ? withShapeBreakpoints(shape) : shape;
  const withBreakpoints = conversationBreakpoints();
  const fields = combineExtras(
    thinkingExtras(() => models.plan, warn),
    extras,
  );

  const attempt = async (request: Anthropic.MessageStreamParams, signal: AbortSignal): Promise<Attempt> => {
    const watch = watchForStall(signal, config.streamIdleMs);
    const started = nowMs();
    try {
      const message = await streamedMessage(client, request, watch, emit);
      record(stats, request.model, message.usage);
      // Sent back unsigned, it would be refused; a reply whose stream was cut short is asked for again instead.
      if (hasUnsignedThinking(message) && message.stop_reason !== 'max_tokens')
        return { ok: false, failure: retryable('stream broke: a thinking block came without its signature') };
      return { ok: true, message };
    } catch (error) {
      if (watch.stalled())
        return { ok: false, failure: retryable(`stream stalled: no data for ${config.streamIdleMs / 1000} s`) };
      return { ok: false, failure: classifyFailure(error, signal) };
    } finally {
      stats.apiMs += nowMs() - started;
      watch.stop();
    }
  };

  const withRetries = async (request: () => Anthropic.MessageStreamParams, signal: AbortSignal): Promise<Retried> => {
    for (let attemptNo = 1; ; attemptNo++) {
      const outcome = await attempt(request(), signal);
      if (outcome.ok) return outcome;
      const failure = outcome.failure;
      if (failure.kind === 'aborted') return { ok: false, failure };
      if (failure.kind === 'fatal' && fields.refused(failure.failure)) continue;
      if (failure.kind === 'fatal')
        return {
          ok: false,
          failure: failure.failure,
          reason: modelNotFound(failure.failure) ? 'not_found' : undefined,
        };
      if (attemptNo >= MAX_ATTEMPTS)
        return { ok: false, failure: gaveUp(failure), reason: overloaded(failure) ? 'overloaded' : undefined };
      const delayMs = retryDelayMs(attemptNo, config.retryBaseDelayMs, failure.retryAfterMs);
      emit({ type: 'retry', attempt: attemptNo + 1, maxAttempts: MAX_ATTEMPTS, delayMs, reason: failure.reason });
      if (!(await sleep(delayMs, signal))) return { ok: false, failure: { kind: 'aborted' } };
    }
  };

  return async (messages, turn, signal) => {
    const sent = config.cache ? withBreakpoints(messages) : messages;
    emit({ type: 'request_start', turn });
    for (;;) {
      const { model, maxTokens } = models.plan;
      const outcome = await withRetries(
        () => ({ model, max_tokens: maxTokens, system, tools, messages: sent, ...fields.fields() }),
        signal,
      );
      if (outcome.ok) {
        stats.model = model;
        emit({ type: 'response', turn, message: outcome.message });
        return outcome;
      }
      const { failure, reason } = outcome;
      if (failure.kind === 'aborted') return { ok: false, failure };
      if (reason && models.switchFor(reason, failure)) continue;
      return { ok: false, failure: models.describe(failure, reason) };
    }
  };
}

/** The SDK's Messages resource, with our credentials and no retries of its own. */
function messagesClient(config: ModelSetup['config'], onRequestSent?: () => void): Messages {
  return new Messages(
    new OwnCredentialsClient({
      ...sdkCredentials(config.credentials, config.network.customHeaders),
      baseURL: config.baseURL ?? null,
      maxRetries: 0,
      fetch: checkedFetch(createNodeFetch(config.network, onRequestSent)),
      // No tracer is ever registered in this process, so the SDK's spans would only cost time on every call.
      openTelemetry: false,
    }),
  );
}

type Attempt = { ok: true; message: Anthropic.Message } | { ok: false; failure: FailureClass };
type Retried =
  | { ok: true; message: Anthropic.Message }
  | { ok: false; failure: ModelFailure; reason?: SwitchReason | undefined };

// The header MessageStream adds, so that the request on the wire stays what it was; the SDK only reads it.
const STREAM_HELPER_HEADERS = Object.freeze({ 'x-stainless-helper-method': 'stream' });

/**
 * The raw event stream, read (event-reader.ts) and accumulated here: the SDK's MessageStream copies the message and
 * notifies its listeners on every event. Every chunk is a sign of life for the stall watch, `ping` events included.
 * Failures come out as MessageStream's would, so retries read them the same.
 */
async function streamedMessage(
  client: Messages,
  request: Anthropic.MessageStreamParams,
  watch: StallWatch,
  emit: EventSink,
): Promise<Anthropic.Message> {
  // The same body MessageStream sends; its parameter type only also admits the SDK's own parsing helpers.
  const body = { ...request, stream: true } as Anthropic.MessageCreateParamsStreaming;
  const { signal } = watch;
  try {
    const response = await client.create(body, { signal, headers: STREAM_HELPER_HEADERS }).asResponse();
    const accumulator = new MessageAccumulator();
    await readMessageEvents(response, {
      onChunk: watch.touch,
      onEvent: (event) => {
        accumulator.add(event);
        forwardDelta(event, emit);
      },
    });
    return accumulator.message();
  } catch (error) {
    // A stream cut short by an abort ends in whatever the socket says; MessageStream reports it as an abort.
    if (signal.aborted) throw new APIUserAbortError();
    throw asStreamError(error);
  }
}

/** Text and thinking as they stream, for people; the message itself is taken whole once it has completed. */
function forwardDelta(event: Anthropic.MessageStreamEvent, emit: EventSink): void {
  if (event.type === 'content_block_delta') {
    if (event.delta.type === 'text_delta') emit({ type: 'text_delta', text: event.delta.text, block: event.index });
    else if (event.delta.type === 'thinking_delta')
      emit({ type: 'thinking_delta', text: event.delta.thinking, block: event.index });
  } else if (event.type === 'content_block_start' && event.content_block.type === 'redacted_thinking') {
    emit({ type: 'thinking_delta', text: '(redacted thinking)', block: event.index });
  }
}

/**
 * A client that takes its credential from us alone. Without this, a client given no apiKey or authToken (as below,
 * where the key travels in x-api-key) resolves the SDK's default credential chain on its first request: it reads
 * local profile files, which costs start-up time and may supply another credential or even another base URL.
 */
class OwnCredentialsClient extends BaseAnthropic {
  protected override _shouldResolveDefaultCredentials(): boolean {
    return false;
  }

  // The credential travels in the default headers (sdkCredentials below), and the client has none of its own to look
  // up: the SDK's lookup would await three steps on every request to add nothing.
  protected override async authHeaders(): Promise<undefined> {
    return undefined;
  }
}

/**
 * SDK 1.x sends an API key as a bearer token; gateways and endpoints built for the x-api-key convention reject that,
 * so the key goes in x-api-key itself, and exactly one credential goes out. The custom headers are the run's
 * (the SDK also reads the process's ANTHROPIC_CUSTOM_HEADERS, which the run's settings already hold).
 */
function sdkCredentials(credentials: Config['credentials'], customHeaders: Record<string, string>) {
  // null removes a header of that name, so custom headers cannot add another credential.
  if ('apiKey' in credentials) {
    return {
      apiKey: null,
      authToken: null,
      defaultHeaders: { ...customHeaders, 'x-api-key': credentials.apiKey, authorization: null },
    };
  }
  return {
    apiKey: null,
    authToken: null,
    defaultHeaders: { ...customHeaders, authorization: `Bearer ${credentials.authToken}`, 'x-api-key': null },
  };
}

function record(stats: ModelStats, model: string, usage: Anthropic.Usage): void {
  stats.usage = addUsage(stats.usage, usage);
  const cost = requestCostUsd(model, usage);
  stats.costUsd = stats.costUsd === undefined || cost === undefined ? undefined : stats.costUsd + cost;
}

function retryable(reason: string): FailureClass {
  return { kind: 'retryable', reason, retryAfterMs: undefined, status: undefined };
}

function gaveUp(failure: Extract<FailureClass, { kind: 'retryable' }>): Extract<ModelFailure, { kind: 'api' }> {
  return {
    kind: 'api',
    message: `${failure.reason} — gave up after ${MAX_ATTEMPTS} attempts.`,
    hint: undefined,
    status: failure.status,
    requestId: undefined,
  };
}

/** Waits, unless the run is stopped first: true when the whole delay passed. */
function sleep(ms: number, signal: AbortSignal): Promise<boolean> {
  return new Promise((resolve) => {
    if (signal.aborted) return resolve(false);
    const timer = setTimeout(() => {
      signal.removeEventListener('abort', onAbort);
      resolve(true);
    }, ms);
    const onAbort = () => {
      clearTimeout(timer);
      resolve(false);
    };
    signal.addEventListener('abort', onAbort, { once: true });
  });
}
