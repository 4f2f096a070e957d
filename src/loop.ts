import type Anthropic from '@anthropic-ai/sdk';
import { describeFailure } from './api/failure.js';
import type { ContextFitter } from './api/context-fit.js';
import type { CallModel } from './api/model.js';
import type { EventSink } from './events.js';
import { stoppedOutcome, type Outcome, type OutcomeKind } from './outcome.js';

/** How many times a reply cut off at max_tokens is asked to go on before the run gives up. */
export const MAX_CONTINUATIONS = 3;
const CONTINUE_PROMPT =
  'Your reply was cut off at the output token limit. Continue exactly where you stopped. ' +
  'If you were calling a tool, call it again with a shorter input.';

export interface LoopDeps {
  callModel: CallModel;
  /** Runs one tool_use block. Never throws for tool failures: they come back as is_error results. */
  runTool: (block: Anthropic.ToolUseBlock, signal: AbortSignal) => Promise<Anthropic.ToolResultBlockParam>;
  /** Keeps each request inside the context window. */
  context: ContextFitter;
  emit: EventSink;
  maxTurns: number;
  signal: AbortSignal;
  /**
   * Judges the answer when the model is done (with --json-schema): accept it, send a message back and go on, or give
   * up. Without it every finished reply is the answer.
   */
  finish?: (answer: string) => FinishVerdict;
}

export type FinishVerdict = { kind: 'accept' } | { kind: 'retry'; message: string } | { kind: 'fail'; message: string };

/** How the loop ended, and how many model calls it made. */
export type LoopEnd = Outcome & { turns: number };

/**
 * The agent loop: send the conversation, run the tools the model asks for, append the results,
 * repeat until the model stops asking. `messages` is the single source of truth and grows in place.
 */
export async function agentLoop(messages: Anthropic.MessageParam[], deps: LoopDeps): Promise<LoopEnd> {
  let turns = 0;
  let text = ''; // the latest reply's text, joined with what came before it when it continues a cut-off one
  let continuations = 0;
  const end = (kind: OutcomeKind, stopReason: string | null, message?: string): LoopEnd => ({
    kind,
    stopReason,
    finalText: text,
    turns,
    ...(message ? { message } : {}),
  });
  const stopped = (): LoopEnd => ({ ...stoppedOutcome(deps.signal, text), turns });

  for (;;) {
    const fit = deps.context.fit(messages);
    if (!fit.ok) return end('context', null, fit.message);
    const reply = await deps.callModel(messages, turns + 1, deps.signal);
    if (!reply.ok)
      return reply.failure.kind === 'aborted' ? stopped() : end('api_error', null, describeFailure(reply.failure));
    const response = reply.message;
    turns++;
    text = (continuations > 0 ? text : '') + textOf(response);
    deps.context.observe(messages, response.usage);
    messages.push({ role: 'assistant', content: assistantContent(response) });
    const lastTurn = turns >= deps.maxTurns;

    switch (finishedOrNot(response)) {
      case 'finished': {
        // With --json-schema an answer may go back to the model; otherwise it is accepted as it is.
        const verdict = deps.finish?.(text) ?? { kind: 'accept' };
        if (verdict.kind === 'accept') return end('success', response.stop_reason);
        if (verdict.kind === 'fail') return end('structured_output', response.stop_reason, verdict.message);
        if (lastTurn) return end('max_turns', response.stop_reason);
        messages.push({ role: 'user', content: verdict.message });
        continuations = 0;
        break;
      }
      case 'tool_use':
        if (lastTurn) return end('max_turns', 'tool_use');
        messages.push({ role: 'user', content: await runTools(response, deps) });
        deps.emit({ type: 'tool_results', message: messages.at(-1)! });
        if (deps.signal.aborted) return stopped();
        continuations = 0;
        break;
      case 'pause_turn':
        if (lastTurn) return end('max_turns', 'pause_turn');
        break;
      case 'max_tokens':
        if (continuations === MAX_CONTINUATIONS) return end('max_tokens', 'max_tokens');
        if (lastTurn) return end('max_turns', 'max_tokens');
        continuations++;
        messages.push({ role: 'user', content: CONTINUE_PROMPT });
        break;
      case 'refusal':
        return end('refusal', 'refusal');
      case 'model_context_window_exceeded':
        return end('context', response.stop_reason);
      default:
        return end('api_error', response.stop_reason);
    }
  }
}

/**
 * The stop reason, with the model's own ending named `finished`: end_turn, stop_sequence, and the tool_use without a
 * tool call that some gateways send (the end of the turn, with its text).
 */
function finishedOrNot(response: Anthropic.Message): string | null {
  const stop = response.stop_reason;
  if (stop === 'end_turn' || stop === 'stop_sequence') return 'finished';
  if (stop === 'tool_use' && !hasToolCall(response)) return 'finished';
  return stop;
}

/**
 * Every tool_use block of the response, in order; one user message carries all their results, in the same order.
 * Once the run is stopped, the blocks not yet run are answered as not run (the toolbox does that), so the
 * conversation stays one the API accepts.
 */
async function runTools(response: Anthropic.Message, deps: LoopDeps): Promise<Anthropic.ToolResultBlockParam[]> {
  const results: Anthropic.ToolResultBlockParam[] = [];
  for (const block of response.content) {
    if (block.type === 'tool_use') results.push(await deps.runTool(block, deps.signal));
  }
  return results;
}

function hasToolCall(response: Anthropic.Message): boolean {
  return response.content.some((block) => block.type === 'tool_use');
}

function textOf(response: Anthropic.Message): string {
  return response.content.flatMap((block) => (block.type === 'text' ? [block.text] : [])).join('');
}

/**
 * The response as it goes back into the conversation. Empty text blocks are dropped (the API rejects them), and so
 * is a tool_use cut off at max_tokens, which is never run. Thinking stays exactly as it came, in its place. A reply left with nothing gets a placeholder, since only
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
    } else if (block.type !== 'thinking' || block.signature) {
      // Thinking cut off at the token limit before its signature came could never go back; any other goes as it came.
      kept.push(block as Anthropic.ContentBlockParam);
    }
  }
  if (kept.length === 0)
    kept.push({ type: 'text', text: cutOff ? '(reply cut off at the token limit)' : '(no reply)' });
  const last = kept.at(-1);
  // After pause_turn this message is resent as the final one, which the API rejects if it ends in white space.
  if (response.stop_reason === 'pause_turn' && last?.type === 'text') last.text = last.text.trimEnd();
  return kept;
}
