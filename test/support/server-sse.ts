// The SSE event sequence of a streamed message, framed as `event: <name>\ndata: <json>\n\n`.

import type { ResolvedBlock } from './server-types.js';
import type { WireMessage } from './server-wire.js';

export interface SseEvent {
  event: string;
  data: unknown;
}

export function frame(event: SseEvent): string {
  return `event: ${event.event}\ndata: ${JSON.stringify(event.data)}\n\n`;
}

/** Splits into `pieces` parts of about equal length, on code points; late parts may be empty. */
export function splitInto(text: string, pieces: number): string[] {
  const chars = Array.from(text);
  const size = Math.ceil(chars.length / pieces);
  return Array.from({ length: pieces }, (_, index) => chars.slice(index * size, (index + 1) * size).join(''));
}

/** At least two deltas per block, one more for every 64 characters. */
function pieceCount(text: string): number {
  return Math.max(2, Math.ceil(text.length / 64));
}

function blockEvents(block: ResolvedBlock, index: number): SseEvent[] {
  const delta = (payload: Record<string, unknown>): SseEvent => ({
    event: 'content_block_delta',
    data: { type: 'content_block_delta', index, delta: payload },
  });
  let start: Record<string, unknown>;
  let deltas: SseEvent[];
  switch (block.type) {
    case 'text':
      start = { type: 'text', text: '' };
      deltas = splitInto(block.text, pieceCount(block.text)).map((text) => delta({ type: 'text_delta', text }));
      break;
    case 'tool_use': {
      start = { type: 'tool_use', id: block.id, name: block.name, input: {} };
      const json = JSON.stringify(block.input ?? {});
      deltas = splitInto(json, pieceCount(json)).map((partial_json) =>
        delta({ type: 'input_json_delta', partial_json }),
      );
      break;
    }
    case 'thinking':
      start = { type: 'thinking', thinking: '', signature: '' };
      deltas = [
        ...splitInto(block.thinking, pieceCount(block.thinking)).map((thinking) =>
          delta({ type: 'thinking_delta', thinking }),
        ),
        ...(block.signature === null ? [] : [delta({ type: 'signature_delta', signature: block.signature })]),
      ];
      break;
    case 'redacted_thinking':
      start = block;
      deltas = [];
      break;
  }
  return [
    { event: 'content_block_start', data: { type: 'content_block_start', index, content_block: start } },
    ...deltas,
    { event: 'content_block_stop', data: { type: 'content_block_stop', index } },
  ];
}

/** The whole stream of one message, from message_start to message_stop. */
export function messageEvents(message: WireMessage): SseEvent[] {
  const { usage } = message;
  const start = {
    type: 'message_start',
    message: { ...message, content: [], stop_reason: null, stop_sequence: null, usage: { ...usage, output_tokens: 1 } },
  };
  return [
    { event: 'message_start', data: start },
    { event: 'ping', data: { type: 'ping' } },
    ...message.content.flatMap(blockEvents),
    {
      event: 'message_delta',
      data: {
        type: 'message_delta',
        delta: { stop_reason: message.stop_reason, stop_sequence: null },
        // Cumulative totals, as the API sends them: the client must not add them to message_start's.
        usage,
      },
    },
    { event: 'message_stop', data: { type: 'message_stop' } },
  ];
}

/** By default a broken stream breaks just after its first content_block_delta. */
export function defaultBreakPoint(events: readonly SseEvent[]): number {
  const firstDelta = events.findIndex((event) => event.event === 'content_block_delta');
  return firstDelta === -1 ? events.length - 1 : firstDelta + 1;
}
