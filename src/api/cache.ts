import type Anthropic from '@anthropic-ai/sdk';

/** The parts of a Messages request that make up its prompt, in the API's prefix order. */
export interface RequestParts {
  system: Anthropic.TextBlockParam[];
  tools: Anthropic.Tool[];
  messages: Anthropic.MessageParam[];
}

/** The parts of every request that stay the same for a whole run. */
export type RequestShape = Omit<RequestParts, 'messages'>;

const EPHEMERAL: Anthropic.CacheControlEphemeral = { type: 'ephemeral' };

type Block = Anthropic.ContentBlockParam;
type MessageContent = string | Block[];

function hasCacheControl(value: object): boolean {
  return 'cache_control' in value && value.cache_control != null;
}

/** Thinking blocks take no cache_control, and the API rejects empty or blank text blocks. */
function canCarryBreakpoint(block: Block): boolean {
  if (block.type === 'thinking' || block.type === 'redacted_thinking') return false;
  if (block.type === 'text') return block.text.trim() !== '';
  return true;
}

function withoutCacheControl<T extends object>(value: T): T {
  if (!hasCacheControl(value)) return value;
  const copy = { ...value } as Record<string, unknown>;
  delete copy.cache_control;
  return copy as T;
}

function marked<T extends object>(value: T): T {
  return { ...value, cache_control: { ...EPHEMERAL } };
}

function carriesCacheControl(block: Block): boolean {
  if (hasCacheControl(block)) return true;
  return block.type === 'tool_result' && Array.isArray(block.content) && block.content.some(hasCacheControl);
}

/** A block with no cache_control on it or on the blocks nested in a tool_result; copied only if changed. */
function clearBlock(block: Block): Block {
  let clean = withoutCacheControl(block);
  if (clean.type === 'tool_result' && Array.isArray(clean.content) && clean.content.some(hasCacheControl)) {
    clean = { ...clean, content: clean.content.map(withoutCacheControl) };
  }
  return clean;
}

// The conversation is read here on every request, and it rarely carries cache_control: look before copying.
function clearContent(content: MessageContent): MessageContent {
  if (typeof content === 'string' || !content.some(carriesCacheControl)) return content;
  return content.map(clearBlock);
}

/** Content with a breakpoint on its last block that can carry one, or undefined if none can. */
function markLastBlock(content: MessageContent): MessageContent | undefined {
  const blocks: Block[] = typeof content === 'string' ? [{ type: 'text', text: content }] : [...content];
  for (let i = blocks.length - 1; i >= 0; i--) {
    const block = blocks[i];
    if (block && canCarryBreakpoint(block)) {
      blocks[i] = marked(block);
      return blocks;
    }
  }
  return undefined;
}

function replaceContent(message: Anthropic.MessageParam, content: MessageContent): Anthropic.MessageParam {
  // Only cache_control changes, so each block keeps the type its message's role allows.
  return { ...message, content } as Anthropic.MessageParam;
}

/**
 * Marks the message at or before `from` whose content can carry a breakpoint, scanning back
 * at most to `stop` (exclusive). Returns the index marked, or -1.
 */
function markMessage(messages: Anthropic.MessageParam[], from: number, stop: number): number {
  for (let i = from; i > stop; i--) {
    const message = messages[i];
    if (!message) continue;
    const content = markLastBlock(message.content);
    if (content) {
      messages[i] = replaceContent(message, content);
      return i;
    }
  }
  return -1;
}

/** The user message that ended the previous request: the last user message before the final one. */
function previousUserIndex(messages: Anthropic.MessageParam[], before: number): number {
  for (let i = before - 1; i >= 0; i--) {
    if (messages[i]?.role === 'user') return i;
  }
  return -1;
}

function markLast<T extends object>(items: T[], canCarry: (item: T) => boolean): T[] {
  const result = items.map(withoutCacheControl);
  for (let i = result.length - 1; i >= 0; i--) {
    const item = result[i];
    if (item && canCarry(item)) {
      result[i] = marked(item);
      break;
    }
  }
  return result;
}

/**
 * A copy of the request with prompt-caching breakpoints: the last tool, the last system
 * block, the last block of the conversation, and the last block of the previous user message.
 * That fourth one is where the previous request's breakpoint sat, so the cache it wrote is
 * hit exactly even when a turn adds more blocks than the API's ~20-block lookback covers.
 * Any cache_control already present is dropped first, so there are never more than four.
 * The arrays and objects passed in are never changed; only touched objects are copied.
 */
export function withCacheBreakpoints(parts: RequestParts): RequestParts {
  return { ...withShapeBreakpoints(parts), messages: withMessageBreakpoints(parts.messages) };
}

/** The system prompt and tools with their breakpoints: the same for every request of a run, so made once. */
export function withShapeBreakpoints(shape: RequestShape): RequestShape {
  const tools = markLast(shape.tools, () => true);
  const system = markLast(shape.system, (block) => block.text.trim() !== '');
  return { system, tools };
}

/** The conversation with its two breakpoints, as withCacheBreakpoints places them. */
export function withMessageBreakpoints(conversation: Anthropic.MessageParam[]): Anthropic.MessageParam[] {
  return clearedFrom(conversation, 0, () => {});
}

/**
 * withMessageBreakpoints for one run's conversation, which grows at its end: a message once found free of
 * cache_control is not looked at again. Messages are matched by identity, so a conversation replaced or cut short is
 * looked at again from where it stops matching. The one change made to a message in place, eliding a tool result,
 * keeps every other field of the block, and so leaves a clean message clean.
 */
export function conversationBreakpoints(): (conversation: Anthropic.MessageParam[]) => Anthropic.MessageParam[] {
  const clean: Anthropic.MessageParam[] = [];
  return (conversation) => {
    let known = 0;
    const shorter = Math.min(clean.length, conversation.length);
    while (known < shorter && conversation[known] === clean[known]) known++;
    clean.length = known;
    return clearedFrom(conversation, known, (message, index) => {
      if (clean.length === index) clean.push(message);
    });
  };
}

/** A marked copy of the conversation whose messages from `start` on are cleared; `onClean` hears of those already clean. */
function clearedFrom(
  conversation: Anthropic.MessageParam[],
  start: number,
  onClean: (message: Anthropic.MessageParam, index: number) => void,
): Anthropic.MessageParam[] {
  const messages = conversation.slice();
  for (let i = start; i < messages.length; i++) {
    const message = messages[i] as Anthropic.MessageParam;
    const content = clearContent(message.content);
    if (content === message.content) onClean(message, i);
    else messages[i] = replaceContent(message, content);
  }
  const last = markMessage(messages, messages.length - 1, -1);
  if (last > 0) {
    const previous = previousUserIndex(messages, last);
    if (previous >= 0) markMessage(messages, previous, previous - 1);
  }
  return messages;
}
