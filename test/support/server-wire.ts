// Shapes the test server puts on the wire: ids, messages and error bodies.

import { randomBytes } from 'node:crypto';
import type { Block, ResolvedBlock, StopReason, Usage } from './server-types.js';
import { redactedData, signThinking } from './server-thinking.js';

const ID_ALPHABET = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789';

function randomId(prefix: string, length = 24): string {
  const bytes = randomBytes(length);
  let id = prefix;
  for (const byte of bytes) id += ID_ALPHABET[byte % ID_ALPHABET.length];
  return id;
}

export const newRequestId = (): string => randomId('req_');
export const newMessageId = (): string => randomId('msg_');
export const newToolUseId = (): string => randomId('toolu_');

const ERROR_TYPES: Record<number, string> = {
  400: 'invalid_request_error',
  401: 'authentication_error',
  403: 'permission_error',
  404: 'not_found_error',
  408: 'timeout_error',
  409: 'conflict_error',
  413: 'request_too_large',
  429: 'rate_limit_error',
  500: 'api_error',
  529: 'overloaded_error',
};

export function defaultErrorType(status: number): string {
  return ERROR_TYPES[status] ?? (status >= 500 ? 'api_error' : 'invalid_request_error');
}

export function errorBody(type: string, message: string, requestId: string): string {
  return JSON.stringify({ type: 'error', error: { type, message }, request_id: requestId });
}

/** Fills in what a script may leave out: tool_use ids, thinking signatures and redacted data. */
export function resolveContent(blocks: readonly Block[]): ResolvedBlock[] {
  return blocks.map((block): ResolvedBlock => {
    switch (block.type) {
      case 'text':
        return { type: 'text', text: block.text };
      case 'tool_use':
        return { type: 'tool_use', id: block.id ?? newToolUseId(), name: block.name, input: block.input };
      case 'thinking':
        return {
          type: 'thinking',
          thinking: block.thinking,
          signature: block.signature === undefined ? signThinking(block.thinking) : block.signature,
        };
      case 'redacted_thinking':
        return { type: 'redacted_thinking', data: block.data ?? redactedData() };
    }
  });
}

export function defaultStopReason(content: readonly ResolvedBlock[]): StopReason {
  return content.some((block) => block.type === 'tool_use') ? 'tool_use' : 'end_turn';
}

export interface WireMessage {
  id: string;
  type: 'message';
  role: 'assistant';
  model: string;
  content: ResolvedBlock[];
  stop_reason: StopReason | null;
  stop_sequence: null;
  usage: Usage;
}

export function buildMessage(
  model: string,
  content: ResolvedBlock[],
  stopReason: StopReason,
  usage: Usage,
): WireMessage {
  return {
    id: newMessageId(),
    type: 'message',
    role: 'assistant',
    model,
    content,
    stop_reason: stopReason,
    stop_sequence: null,
    usage,
  };
}
