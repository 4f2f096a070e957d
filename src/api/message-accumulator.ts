import type Anthropic from '@anthropic-ai/sdk';
import { AnthropicError, APIUserAbortError } from '@anthropic-ai/sdk/core/error';
import { partialParse } from '@anthropic-ai/sdk/_vendor/partial-json-parser/parser';

type Block = Anthropic.ContentBlock;
type ToolBlock = Extract<Block, { type: 'tool_use' | 'server_tool_use' }>;

/**
 * Builds the final Message from the raw stream events, as the SDK's MessageStream does, without its per-event copies,
 * listeners and snapshots: text and thinking are appended in place, tool input is joined and parsed once at its
 * block's end. The message is complete once `message_stop` has come.
 */
export class MessageAccumulator {
  private snapshot: Anthropic.Message | undefined;
  private final: Anthropic.Message | undefined;
  private readonly toolJson = new Map<number, string>();

  add(event: Anthropic.RawMessageStreamEvent): void {
    if (event.type === 'message_start') {
      if (this.snapshot)
        throw new AnthropicError(`Unexpected event order, got ${event.type} before receiving "message_stop"`);
      this.snapshot = event.message;
      return;
    }
    const snapshot = this.snapshot;
    if (!snapshot || this.final) return;
    switch (event.type) {
      case 'message_stop':
        this.finishToolInputs(snapshot);
        this.final = snapshot;
        return;
      case 'message_delta':
        mergeDelta(snapshot, event);
        return;
      case 'content_block_start':
        snapshot.content.push({ ...event.content_block });
        return;
      case 'content_block_delta':
        this.addDelta(snapshot, event);
        return;
      case 'content_block_stop':
        this.finishToolInput(snapshot, event.index);
        return;
    }
  }

  /** The completed message; throws as the SDK does when the stream ended before one was complete. */
  message(): Anthropic.Message {
    if (!this.snapshot) throw new AnthropicError('request ended without sending any chunks');
    if (!this.final) throw new AnthropicError('stream ended without producing a Message with role=assistant');
    return this.final;
  }

  private addDelta(snapshot: Anthropic.Message, event: Anthropic.RawContentBlockDeltaEvent): void {
    const block = snapshot.content[event.index];
    if (!block) return;
    const delta = event.delta;
    switch (delta.type) {
      case 'text_delta':
        if (block.type === 'text') block.text = (block.text || '') + delta.text;
        return;
      case 'citations_delta':
        if (block.type === 'text') block.citations = [...(block.citations ?? []), delta.citation];
        return;
      case 'input_json_delta':
        if (tracksToolInput(block))
          this.toolJson.set(event.index, (this.toolJson.get(event.index) ?? '') + delta.partial_json);
        return;
      case 'thinking_delta':
        if (block.type === 'thinking') block.thinking += delta.thinking;
        return;
      case 'signature_delta':
        if (block.type === 'thinking') block.signature = delta.signature;
        return;
    }
  }

  private finishToolInput(snapshot: Anthropic.Message, index: number): void {
    const json = this.toolJson.get(index);
    if (json === undefined) return;
    this.toolJson.delete(index);
    const block = snapshot.content[index];
    if (block && tracksToolInput(block)) snapshot.content[index] = withInput(block, json);
  }

  /** A block whose stop never came keeps what its input held so far, as the SDK's lazy parse would give it. */
  private finishToolInputs(snapshot: Anthropic.Message): void {
    for (const index of [...this.toolJson.keys()]) this.finishToolInput(snapshot, index);
  }
}

function tracksToolInput(block: Block): block is ToolBlock {
  return block.type === 'tool_use' || block.type === 'server_tool_use';
}

/** The block with its input last, as the SDK rebuilds it; complete JSON is parsed strictly, a cut-off tail repaired. */
function withInput(block: ToolBlock, json: string): ToolBlock {
  const { input: _started, ...rest } = block;
  return { ...rest, input: json ? parseToolInput(json) : {} } as ToolBlock;
}

function parseToolInput(json: string): unknown {
  try {
    return JSON.parse(json);
  } catch {
    return partialParse(json);
  }
}

/** The usage counters other than output_tokens are whole-message totals, omitted when they don't apply. */
function mergeDelta(snapshot: Anthropic.Message, event: Anthropic.RawMessageDeltaEvent): void {
  const target = snapshot as Anthropic.Message & Record<string, unknown>;
  const delta = event.delta as Anthropic.RawMessageDeltaEvent.Delta & Record<string, unknown>;
  snapshot.stop_reason = delta.stop_reason;
  snapshot.stop_sequence = delta.stop_sequence;
  target.stop_details = delta.stop_details;
  const usage = snapshot.usage as unknown as Record<string, unknown>;
  const update = event.usage as unknown as Record<string, unknown>;
  usage.output_tokens = update.output_tokens;
  if (delta.container != null) target.container = delta.container;
  for (const key of USAGE_TOTALS) if (update[key] != null) usage[key] = update[key];
}

const USAGE_TOTALS = [
  'input_tokens',
  'cache_creation_input_tokens',
  'cache_read_input_tokens',
  'server_tool_use',
  'output_tokens_details',
] as const;

/**
 * A failure as MessageStream reports it, so that retry classification reads the same errors: an abort as the SDK's
 * abort, anything that is not already the SDK's own error (a socket's, a parse's) wrapped with it as the cause.
 */
export function asStreamError(error: unknown): AnthropicError {
  if (isAbortError(error) || error instanceof APIUserAbortError) return new APIUserAbortError();
  if (error instanceof AnthropicError) return error;
  if (!(error instanceof Error)) return new AnthropicError(String(error));
  const wrapped = new AnthropicError(error.message);
  (wrapped as { cause?: unknown }).cause = error;
  return wrapped;
}

function isAbortError(error: unknown): boolean {
  if (typeof error !== 'object' || error === null) return false;
  const { name, message } = error as { name?: unknown; message?: unknown };
  return name === 'AbortError' || (message !== undefined && String(message).includes('FetchRequestCanceledException'));
}
