import type Anthropic from '@anthropic-ai/sdk';

export const INTERRUPTED_RESULT =
  'Interrupted: the previous run stopped before this command finished, so its result is unknown (it may have run in part, ' +
  'or not at all). Check the state it would have changed before relying on it.';

function notRunResult(endedBy: string): string {
  return `Not run: the previous run ended (${endedBy}) before this command started.`;
}

export interface Repaired {
  /** The conversation as saved, made valid for the API. */
  history: Anthropic.MessageParam[];
  /** Results for the tool calls the saved conversation ends with, to send as a new message; undefined when none. */
  pendingResults: Anthropic.MessageParam | undefined;
  /** Empty assistant messages left out (a reply cut off before it had any content). */
  dropped: number;
  /** Tool calls answered as interrupted, or as never run (the rest of pendingResults are results recorded before the cut). */
  interrupted: number;
}

type CommandResults = ReadonlyMap<string, { content: string; isError: boolean }>;

/**
 * Makes a saved conversation one the API accepts again after its run was cut off. Every tool_use must be answered in
 * the next message: a call whose command finished (its result was recorded) gets that result; any other gets an
 * is_error result saying it was interrupted. An assistant message with no content (cut mid-stream) is left out.
 * Consecutive messages of one role need no care: the API merges them.
 */
export function repairConversation(
  saved: readonly Anthropic.MessageParam[],
  recorded: CommandResults,
  endedBy?: string,
): Repaired {
  // A run that wrote its result ended in order (--max-turns, a budget): the calls it left unanswered never started.
  const unanswered = endedBy === undefined ? INTERRUPTED_RESULT : notRunResult(endedBy);
  const kept = saved.filter((message) => !(message.role === 'assistant' && isEmpty(message.content)));
  const history: Anthropic.MessageParam[] = [];
  let interrupted = 0;
  let pendingResults: Anthropic.MessageParam | undefined;
  kept.forEach((message, index) => {
    history.push(message);
    if (message.role !== 'assistant') return;
    const next = kept[index + 1];
    const answered = new Set(next?.role === 'user' ? resultIds(next.content) : []);
    const missing = toolUseIds(message.content).filter((id) => !answered.has(id));
    if (missing.length === 0) return;
    const results = missing.map((id): Anthropic.ToolResultBlockParam => {
      const result = recorded.get(id);
      if (!result) interrupted++;
      return resultBlock(id, result ?? { content: unanswered, isError: true });
    });
    // Results must come first in the user message after the call; a message of their own merges in front of it.
    if (next) history.push({ role: 'user', content: results });
    else pendingResults = { role: 'user', content: results };
  });
  return { history, pendingResults, dropped: saved.length - kept.length, interrupted };
}

function resultBlock(id: string, result: { content: string; isError: boolean }): Anthropic.ToolResultBlockParam {
  return {
    type: 'tool_result',
    tool_use_id: id,
    content: result.content.trim() === '' ? '(no output)' : result.content,
    ...(result.isError ? { is_error: true } : {}),
  };
}

function isEmpty(content: Anthropic.MessageParam['content']): boolean {
  return typeof content === 'string' ? content.trim() === '' : content.length === 0;
}

function toolUseIds(content: Anthropic.MessageParam['content']): string[] {
  if (typeof content === 'string') return [];
  return content.flatMap((block) => (block.type === 'tool_use' ? [block.id] : []));
}

function resultIds(content: Anthropic.MessageParam['content']): string[] {
  if (typeof content === 'string') return [];
  return content.flatMap((block) => (block.type === 'tool_result' ? [block.tool_use_id] : []));
}
