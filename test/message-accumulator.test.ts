import type Anthropic from '@anthropic-ai/sdk';
import { AnthropicError } from '@anthropic-ai/sdk/core/error';
import { MessageStream } from '@anthropic-ai/sdk/lib/MessageStream';
import { describe, expect, it } from 'vitest';
import { asStreamError, MessageAccumulator } from '../src/api/message-accumulator.js';

type Event = Record<string, unknown>;

/** What the SDK's MessageStream builds from the same events, as plain JSON (without its parsed_output). */
async function sdkMessage(events: Event[]): Promise<unknown> {
  const lines = new TextEncoder().encode(events.map((event) => `${JSON.stringify(event)}\n`).join(''));
  const body = new ReadableStream({
    start(controller) {
      controller.enqueue(lines);
      controller.close();
    },
  });
  const { parsed_output: _parsed, ...message } = await MessageStream.fromReadableStream(body).finalMessage();
  return JSON.parse(JSON.stringify(message));
}

function ownMessage(events: Event[]): unknown {
  const accumulator = new MessageAccumulator();
  for (const event of structuredClone(events)) accumulator.add(event as unknown as Anthropic.RawMessageStreamEvent);
  return JSON.parse(JSON.stringify(accumulator.message()));
}

async function sdkFailure(events: Event[]): Promise<string> {
  return sdkMessage(events).then(
    () => 'no error',
    (error: Error) => error.message,
  );
}

function ownFailure(events: Event[]): string {
  try {
    ownMessage(events);
    return 'no error';
  } catch (error) {
    expect(error).toBeInstanceOf(AnthropicError);
    return (error as Error).message;
  }
}

const start = (usage: Record<string, unknown> = {}): Event => ({
  type: 'message_start',
  message: {
    id: 'msg_1',
    type: 'message',
    role: 'assistant',
    model: 'claude-test',
    content: [],
    stop_reason: null,
    stop_sequence: null,
    usage: { input_tokens: 12, output_tokens: 1, cache_creation_input_tokens: 0, cache_read_input_tokens: 5, ...usage },
  },
});
const blockStart = (index: number, block: Event): Event => ({
  type: 'content_block_start',
  index,
  content_block: block,
});
const delta = (index: number, payload: Event): Event => ({ type: 'content_block_delta', index, delta: payload });
const blockStop = (index: number): Event => ({ type: 'content_block_stop', index });
const messageDelta = (stopReason: string, usage: Event, extra: Event = {}): Event => ({
  type: 'message_delta',
  delta: { stop_reason: stopReason, stop_sequence: null, ...extra },
  usage,
});
const stop: Event = { type: 'message_stop' };
const toolStart = (id: string): Event => ({ type: 'tool_use', id, name: 'bash', input: {} });

const sequences: Record<string, Event[]> = {
  'text in pieces': [
    start(),
    blockStart(0, { type: 'text', text: '' }),
    delta(0, { type: 'text_delta', text: 'Hel' }),
    delta(0, { type: 'text_delta', text: 'lo, wörld 👋' }),
    blockStop(0),
    messageDelta('end_turn', { output_tokens: 9 }),
    stop,
  ],
  'text with citations': [
    start(),
    blockStart(0, { type: 'text', text: '', citations: null }),
    delta(0, { type: 'text_delta', text: 'cited' }),
    delta(0, { type: 'citations_delta', citation: { type: 'char_location', cited_text: 'a', start_char_index: 0 } }),
    delta(0, { type: 'citations_delta', citation: { type: 'char_location', cited_text: 'b', start_char_index: 1 } }),
    blockStop(0),
    messageDelta('end_turn', { output_tokens: 3 }),
    stop,
  ],
  'tool calls, one split, one with no input': [
    start(),
    blockStart(0, { type: 'text', text: '' }),
    delta(0, { type: 'text_delta', text: 'Running it.' }),
    blockStop(0),
    blockStart(1, toolStart('toolu_1')),
    delta(1, { type: 'input_json_delta', partial_json: '' }),
    delta(1, { type: 'input_json_delta', partial_json: '{"command": "ec' }),
    delta(1, { type: 'input_json_delta', partial_json: 'ho \\"hi\\" \\u00e9", "n": [1, 2.5, true, null]}' }),
    blockStop(1),
    blockStart(2, toolStart('toolu_2')),
    blockStop(2),
    blockStart(3, toolStart('toolu_3')),
    delta(3, { type: 'input_json_delta', partial_json: '' }),
    blockStop(3),
    messageDelta('tool_use', { output_tokens: 40 }),
    stop,
  ],
  'tool input cut off by max_tokens': [
    start(),
    blockStart(0, toolStart('toolu_1')),
    delta(0, { type: 'input_json_delta', partial_json: '{"command": "ls", "timeout": 12' }),
    blockStop(0),
    messageDelta('max_tokens', { output_tokens: 64 }),
    stop,
  ],
  'thinking, signed and redacted': [
    start(),
    blockStart(0, { type: 'thinking', thinking: '', signature: '' }),
    delta(0, { type: 'thinking_delta', thinking: 'Let me ' }),
    delta(0, { type: 'thinking_delta', thinking: 'think.' }),
    delta(0, { type: 'signature_delta', signature: 'sig-abc' }),
    blockStop(0),
    blockStart(1, { type: 'redacted_thinking', data: 'opaque' }),
    blockStop(1),
    blockStart(2, { type: 'text', text: '' }),
    delta(2, { type: 'text_delta', text: 'done' }),
    blockStop(2),
    messageDelta('end_turn', { output_tokens: 20 }),
    stop,
  ],
  'server tool blocks as they come': [
    start(),
    blockStart(0, { type: 'server_tool_use', id: 'srvtoolu_1', name: 'web_search', input: {} }),
    delta(0, { type: 'input_json_delta', partial_json: '{"query": "node"}' }),
    blockStop(0),
    blockStart(1, {
      type: 'web_search_tool_result',
      tool_use_id: 'srvtoolu_1',
      content: [{ type: 'web_search_result', url: 'https://example.com', title: 'x' }],
    }),
    blockStop(1),
    messageDelta('end_turn', { output_tokens: 7, server_tool_use: { web_search_requests: 1 } }),
    stop,
  ],
  'usage totals overwritten when present, output counted from the delta': [
    start({ output_tokens: 3 }),
    blockStart(0, { type: 'text', text: '' }),
    delta(0, { type: 'text_delta', text: 'x' }),
    blockStop(0),
    messageDelta(
      'stop_sequence',
      { output_tokens: 15, input_tokens: 30, cache_read_input_tokens: null },
      {
        stop_sequence: 'END',
        container: { id: 'c1', expires_at: '2030-01-01T00:00:00Z' },
      },
    ),
    messageDelta('end_turn', { output_tokens: 16, cache_creation_input_tokens: 4 }),
    stop,
  ],
  'events before the message': [
    blockStart(0, { type: 'text', text: 'ignored' }),
    start(),
    blockStart(0, { type: 'text', text: '' }),
    delta(0, { type: 'text_delta', text: 'kept' }),
    blockStop(0),
    messageDelta('end_turn', { output_tokens: 2 }),
    stop,
  ],
};

describe('the message built from raw stream events', () => {
  for (const [name, events] of Object.entries(sequences)) {
    it(`is what the SDK builds: ${name}`, async () => {
      expect(ownMessage(events)).toEqual(await sdkMessage(events));
    });
  }

  it('keeps the key order of the blocks, so transcripts read the same', async () => {
    const events = sequences['tool calls, one split, one with no input'] ?? [];
    expect(JSON.stringify(ownMessage(events))).toBe(JSON.stringify(await sdkMessage(events)));
  });

  it('parses tool input once the block has ended, not a partial object before', () => {
    const accumulator = new MessageAccumulator();
    const events = sequences['tool calls, one split, one with no input'] ?? [];
    for (const event of structuredClone(events)) accumulator.add(event as unknown as Anthropic.RawMessageStreamEvent);
    const tool = accumulator.message().content[1];
    expect(tool).toMatchObject({ type: 'tool_use', input: { command: 'echo "hi" é', n: [1, 2.5, true, null] } });
  });

  const failures: Record<string, Event[]> = {
    'no events at all': [],
    'no message_start': [blockStart(0, { type: 'text', text: '' }), stop],
    'a stream that ends before message_stop': [
      start(),
      blockStart(0, { type: 'text', text: '' }),
      delta(0, { type: 'text_delta', text: 'half' }),
    ],
    'a second message_start': [start(), start()],
  };
  for (const [name, events] of Object.entries(failures)) {
    it(`fails as the SDK does: ${name}`, async () => {
      const expected = await sdkFailure(events);
      expect(expected).not.toBe('no error');
      expect(ownFailure(events)).toBe(expected);
    });
  }

  it('fails as the SDK does on tool input that is not JSON at all: a stream error, retried', async () => {
    const events = [
      start(),
      blockStart(0, toolStart('t')),
      delta(0, { type: 'input_json_delta', partial_json: 'nope' }),
    ];
    events.push(blockStop(0), messageDelta('tool_use', { output_tokens: 1 }), stop);
    const accumulator = new MessageAccumulator();
    const add = () => {
      for (const event of structuredClone(events)) accumulator.add(event as unknown as Anthropic.RawMessageStreamEvent);
    };
    const own = (() => {
      try {
        add();
      } catch (error) {
        return asStreamError(error);
      }
    })();
    const sdk = await sdkMessage(events).catch((error: unknown) => error);
    expect(own).toBeInstanceOf(AnthropicError);
    expect(sdk).toBeInstanceOf(AnthropicError);
    expect(own?.message).toBe((sdk as Error).message);
    expect(own?.cause).toBeInstanceOf(SyntaxError);
  });
});
