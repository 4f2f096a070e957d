import type Anthropic from '@anthropic-ai/sdk';
import type { RequestParts, RequestShape } from './cache.js';

/** The usual rule of thumb for English text; code and JSON take more tokens per character. */
export const CHARS_PER_TOKEN = 4;

/** What the API charges for a typical image, whatever the size of its base64 data. */
const IMAGE_TOKENS = 1_600;
/** Role markers and block framing the raw text does not show. */
const MESSAGE_OVERHEAD_TOKENS = 4;
const BLOCK_OVERHEAD_TOKENS = 3;

type Block = Anthropic.ContentBlockParam;
type ToolResultContent = Anthropic.ToolResultBlockParam['content'];

function textTokens(chars: number): number {
  return Math.ceil(chars / CHARS_PER_TOKEN);
}

function jsonLength(value: unknown): number {
  try {
    return JSON.stringify(value)?.length ?? 0;
  } catch {
    return 0;
  }
}

/** The characters of a tool result's content that the model reads. */
export function toolResultChars(content: ToolResultContent): number {
  if (content === undefined) return 0;
  if (typeof content === 'string') return content.length;
  let chars = 0;
  for (const part of content) {
    if (part.type === 'text') chars += part.text.length;
    else if (part.type !== 'image') chars += jsonLength(part);
  }
  return chars;
}

function imageCount(content: ToolResultContent): number {
  return Array.isArray(content) ? content.filter((part) => part.type === 'image').length : 0;
}

/** Raw tokens of a tool result's content alone (no framing): what eliding it could save. */
export function toolResultTokens(content: ToolResultContent): number {
  return textTokens(toolResultChars(content)) + imageCount(content) * IMAGE_TOKENS;
}

function blockTokens(block: Block): number {
  switch (block.type) {
    case 'text':
      return textTokens(block.text.length);
    case 'tool_use':
      return textTokens(block.name.length + jsonLength(block.input));
    case 'tool_result':
      return toolResultTokens(block.content);
    case 'thinking':
      return textTokens(block.thinking.length);
    case 'redacted_thinking':
      return textTokens(block.data.length);
    case 'image':
      return IMAGE_TOKENS;
    default:
      return textTokens(jsonLength(block));
  }
}

/** Raw tokens of one message: its blocks plus framing. */
export function messageTokens(message: Anthropic.MessageParam): number {
  if (typeof message.content === 'string') return MESSAGE_OVERHEAD_TOKENS + textTokens(message.content.length);
  let tokens = MESSAGE_OVERHEAD_TOKENS;
  for (const block of message.content) tokens += BLOCK_OVERHEAD_TOKENS + blockTokens(block);
  return tokens;
}

/**
 * An uncalibrated estimate of a request's prompt tokens: characters / 4 over the system
 * prompt, the tool definitions as JSON, and every message block, plus a little framing.
 */
export function rawPromptTokens(parts: RequestParts): number {
  let tokens = shapeTokens(parts);
  for (const message of parts.messages) tokens += messageTokens(message);
  return tokens;
}

/** Raw tokens of the system prompt and the tool definitions: the part of a prompt that is the same every request. */
export function shapeTokens(shape: RequestShape): number {
  let tokens = textTokens(jsonLength(shape.tools));
  for (const block of shape.system) tokens += BLOCK_OVERHEAD_TOKENS + textTokens(block.text.length);
  return tokens;
}
