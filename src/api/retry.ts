import { APIConnectionError, APIError, APIUserAbortError, AnthropicError } from '@anthropic-ai/sdk/core/error';
import { hintForStatus, type ModelFailure } from './failure.js';
import { UnexpectedResponse } from './response-check.js';
import { classifyNetworkError } from './network-errors.js';

/**
 * At least 4 attempts in all, per the contract. With the backoff below, 6 attempts span about 15 s, or up to about
 * 5 minutes when the server asks for long waits with retry-after.
 */
export const MAX_ATTEMPTS = 6;
const MAX_BACKOFF_MS = 8_000;
const MAX_RETRY_AFTER_MS = 60_000;

export type FailureClass =
  | { kind: 'aborted' }
  | { kind: 'retryable'; reason: string; retryAfterMs: number | undefined; status: number | undefined }
  | { kind: 'fatal'; failure: Extract<ModelFailure, { kind: 'api' }> };

/** Decides what a failed model call means: retry it, give up with exit 3, or stop because the run was interrupted. */
export function classifyFailure(error: unknown, signal: AbortSignal): FailureClass {
  if (signal.aborted || error instanceof APIUserAbortError) return { kind: 'aborted' };
  const network = classifyNetworkError(error);
  if (network?.kind === 'fatal')
    return {
      kind: 'fatal',
      failure: { kind: 'api', message: network.message, hint: undefined, status: undefined, requestId: undefined },
    };
  if (network) return retryable(network.reason);
  if (error instanceof APIError && error.status !== undefined) {
    const status = error.status;
    const shouldRetry = headerOf(error, 'x-should-retry');
    const retryable = shouldRetry === 'true' || (shouldRetry !== 'false' && isRetryableStatus(status));
    const description = describeApiError(error);
    if (!retryable) {
      const failure = {
        kind: 'api' as const,
        message: description,
        hint: hintForStatus(status),
        status,
        requestId: error.requestID ?? undefined,
      };
      return { kind: 'fatal', failure };
    }
    return { kind: 'retryable', reason: description, retryAfterMs: retryAfter(error), status };
  }
  if (error instanceof APIConnectionError && error.cause instanceof UnexpectedResponse) {
    const { cause } = error;
    const hint = 'Check ANTHROPIC_BASE_URL, and any proxy or captive portal between here and the API.';
    return {
      kind: 'fatal',
      failure: { kind: 'api', message: cause.message, hint, status: cause.status, requestId: undefined },
    };
  }
  if (error instanceof APIConnectionError) return retryable(`connection failed: ${causeText(error)}`);
  // Status-less SDK errors come from the stream itself: an `error` event mid-way, or a stream that ended early.
  if (error instanceof AnthropicError) return retryable(`stream broke: ${streamErrorText(error)}`);
  // A connection reset mid-stream surfaces from the response body as the socket's own error (ECONNRESET …).
  if (isNetworkError(error)) return retryable(`connection lost: ${causeText(error)}`);
  throw error;
}

function retryable(reason: string): FailureClass {
  return { kind: 'retryable', reason, retryAfterMs: undefined, status: undefined };
}

function isNetworkError(error: unknown): error is Error {
  if (!(error instanceof Error)) return false;
  const code = (error.cause as { code?: unknown } | undefined)?.code ?? (error as { code?: unknown }).code;
  return typeof code === 'string' && /^E[A-Z]+$/.test(code);
}

/** The most specific text an error carries: its cause's code and message when there is one (ECONNREFUSED …). */
function causeText(error: Error): string {
  const cause = error.cause as { code?: unknown; message?: unknown } | undefined;
  if (!cause || typeof cause.message !== 'string') return error.message;
  return typeof cause.code === 'string' && !cause.message.includes(cause.code)
    ? `${cause.code}: ${cause.message}`
    : cause.message;
}

function isRetryableStatus(status: number): boolean {
  return status === 408 || status === 409 || status === 429 || status >= 500;
}

/** Exponential backoff with jitter, or what the server asked for (capped). attempt counts from 1. */
export function retryDelayMs(attempt: number, baseMs: number, retryAfterMs: number | undefined): number {
  if (retryAfterMs !== undefined) return Math.min(Math.max(retryAfterMs, 0), MAX_RETRY_AFTER_MS);
  const backoff = Math.min(baseMs * 2 ** (attempt - 1), MAX_BACKOFF_MS);
  return Math.round(backoff * (0.8 + Math.random() * 0.4));
}

function retryAfter(error: APIError): number | undefined {
  const ms = Number(headerOf(error, 'retry-after-ms'));
  if (Number.isFinite(ms) && ms >= 0 && headerOf(error, 'retry-after-ms') !== undefined) return ms;
  const value = headerOf(error, 'retry-after');
  if (value === undefined) return undefined;
  const seconds = Number(value);
  if (Number.isFinite(seconds)) return seconds * 1000;
  const date = Date.parse(value);
  return Number.isNaN(date) ? undefined : Math.max(0, date - Date.now());
}

function headerOf(error: APIError, name: string): string | undefined {
  return error.headers?.get(name) ?? undefined;
}

function describeApiError(error: APIError): string {
  const body = error.error as { error?: { type?: string; message?: string } } | undefined;
  const type = body?.error?.type;
  const message = body?.error?.message ?? error.message;
  const requestId = error.requestID ? ` (request ${error.requestID})` : '';
  return `${error.status}${type ? ` ${type}` : ''}: ${message}${requestId}`;
}

function streamErrorText(error: AnthropicError): string {
  if (error instanceof APIError) {
    const body = error.error as { error?: { type?: string; message?: string } } | undefined;
    if (body?.error?.type) return `${body.error.type}: ${body.error.message ?? ''}`.trim();
  }
  return error.message;
}
