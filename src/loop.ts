import type Anthropic from '@anthropic-ai/sdk';
import type { EventSink } from './events.js';
import type { OutcomeKind } from './outcome.js';

/** How many times a reply cut off at max_tokens is asked to go on before the run gives up. */
export const MAX_CONTINUATIONS = 3;
const CONTINUE_PROMPT =
  'Your reply was cut off at the output token limit. Continue exactly where you stopped. ' +
  'If you were calling a tool, call it again with a shorter input.';

export interface LoopDeps {
  /** One model call with the whole conversation. Throws on failure (see run.ts for how failures map to outcomes). */
  callModel: (messages: Anthropic.MessageParam[], signal: AbortSignal) => Promise<Anthropic.Message>;
  /** Runs one tool_use block. Never throws for tool failures: they come back as is_error results. */
  runTool: (block: Anthropic.ToolUseBlock, signal: AbortSignal) => Promise<Anthropic.ToolResultBlockParam>;
  emit: EventSink;
  maxTurns: number;
  signal: AbortSignal;
}

export interface LoopEnd {
  kind: OutcomeKind;
  stopReason: string | null;
  finalText: string;
}

/**
 * The agent loop: send the conversation, run the tools the model asks for, append the results,
 * repeat until the model stops asking. `messages` is the single source of truth and grows in place.
 */
export async function agentLoop(messages: Anthropic.MessageParam[], deps: LoopDeps): Promise<LoopEnd> {
  let cutOffText = '';
  let continuations = 0;
  for (let turn = 1; ; turn++) {
    const response = await deps.callModel(messages, deps.signal);
    const text = cutOffText + textOf(response);
    messages.push({ role: 'assistant', content: assistantContent(response) });
    const lastTurn = turn >= deps.maxTurns;

    switch (response.stop_reason) {
      case 'end_turn':
      case 'stop_sequence':
        return { kind: 'success', stopReason: response.stop_reason, finalText: text };
      case 'tool_use':
        if (lastTurn) return { kind: 'max_turns', stopReason: 'tool_use', finalText: text };
        messages.push({ role: 'user', content: await runTools(response, deps) });
        deps.emit({ type: 'tool_results', message: messages.at(-1)! });
        cutOffText = '';
        continuations = 0;
        break;
      case 'pause_turn':
        if (lastTurn) return { kind: 'max_turns', stopReason: 'pause_turn', finalText: text };
        break;
      case 'max_tokens':
        if (continuations === MAX_CONTINUATIONS) return { kind: 'max_tokens', stopReason: 'max_tokens', finalText: text };
        if (lastTurn) return { kind: 'max_turns', stopReason: 'max_tokens', finalText: text };
        continuations++;
        cutOffText = text;
        messages.push({ role: 'user', content: CONTINUE_PROMPT });
        break;
      case 'refusal':
        return { kind: 'refusal', stopReason: 'refusal', finalText: text };
      case 'model_context_window_exceeded':
        return { kind: 'context', stopReason: response.stop_reason, finalText: text };
      default:
        return { kind: 'api_error', stopReason: response.stop_reason, finalText: text };
    }
  }
}

/** Every tool_use block of the response, in order; one user message carries all their results, in the same order. */
async function runTools(response: Anthropic.Message, deps: LoopDeps): Promise<Anthropic.ToolResultBlockParam[]> {
  const results: Anthropic.ToolResultBlockParam[] = [];
  for (const block of response.content) {
    if (block.type !== 'tool_use') continue;
    deps.signal.throwIfAborted();
    results.push(await deps.runTool(block, deps.signal));
  }
  deps.signal.throwIfAborted();
  return results;
}

function textOf(response: Anthropic.Message): string {
  return response.content.flatMap((block) => (block.type === 'text' ? [block.text] : [])).join('');
}

/**
 * The response as it goes back into the conversation. Empty text blocks are dropped (the API rejects them), and so
 * is a tool_use cut off at max_tokens, which is never run. A reply left with nothing gets a placeholder, since only
 * the final assistant message may be empty.
 */
function assistantContent(response: Anthropic.Message): Anthropic.ContentBlockParam[] {
  const cutOff = response.stop_reason === 'max_tokens';
  const kept: Anthropic.ContentBlockParam[] = [];
  for (const block of response.content) {
    if (block.type === 'text') {
      if (block.text.trim() !== '') kept.push({ type: 'text', text: block.text });
    } else if (block.type === 'tool_use') {
      if (!cutOff) kept.push({ type: 'tool_use', id: block.id, name: block.name, input: block.input });
    } else {
      kept.push(block as Anthropic.ContentBlockParam);
    }
  }
  if (kept.length === 0) kept.push({ type: 'text', text: cutOff ? '(reply cut off at the token limit)' : '(no reply)' });
  const last = kept.at(-1);
  // After pause_turn this message is resent as the final one, which the API rejects if it ends in white space.
  if (response.stop_reason === 'pause_turn' && last?.type === 'text') last.text = last.text.trimEnd();
  return kept;
}
