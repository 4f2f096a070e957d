import type { OutputFormat } from '../config.js';

/**
 * The default of every flag that has one. The help text and the configuration both read these, so what `--help`
 * says is what a run does.
 */
export const DEFAULTS = {
  model: 'claude-sonnet-5-5',
  maxTurns: 100,
  maxTokens: 16_000,
  timeoutSec: 120,
  maxTimeoutSec: 600,
  outputFormat: 'text',
  contextWindow: 200_000,
  /** AGENT_RETRY_BASE_MS: the first retry's backoff. */
  retryBaseDelayMs: 500,
  /** AGENT_STREAM_IDLE_MS: how long a model stream may stay silent. */
  streamIdleMs: 180_000,
} as const;

export const OUTPUT_FORMATS: readonly OutputFormat[] = ['text', 'json', 'stream-json'];
