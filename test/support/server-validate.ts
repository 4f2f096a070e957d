// The request rules the real Messages API enforces, with its messages. Each check returns the
// first failure it finds, or undefined when the request passes.

import { cacheControlCount, countTokens } from './server-tokens.js';
import { checkStructuredOutputs, type StructuredOutputs } from './server-structured.js';
import type { ApiFailure } from './server-types.js';
import { checkThinkingSettings, type ThinkingLedger, type ThinkingSupport } from './server-thinking.js';

type JsonObject = Record<string, unknown>;
type Check = string | undefined;

const TOOL_NAME = /^[a-zA-Z0-9_-]{1,128}$/;
const DROPPED_SAMPLING_FIELDS = ['temperature', 'top_p', 'top_k'] as const;
const MAX_CACHE_BREAKPOINTS = 4;
const BLOCK_TYPES = new Set([
  'text',
  'image',
  'document',
  'search_result',
  'tool_use',
  'tool_result',
  'thinking',
  'redacted_thinking',
  'server_tool_use',
  'web_search_tool_result',
]);

function isRecord(value: unknown): value is JsonObject {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

function invalid(message: string): ApiFailure {
  return { status: 400, type: 'invalid_request_error', message };
}

export interface ValidateOptions {
  /** count_tokens takes no max_tokens. */
  requireMaxTokens: boolean;
  contextWindow?: number;
  charsPerToken: number;
  structuredOutputs: StructuredOutputs;
  thinking?: ThinkingSupport;
  /** The turns the server gave, to check the thinking sent back against. */
  ledger?: ThinkingLedger;
}

export function validateMessagesRequest(body: unknown, options: ValidateOptions): ApiFailure | undefined {
  if (!isRecord(body)) return invalid('request body must be a JSON object');
  const message =
    checkTopLevel(body, options) ??
    checkSystem(body['system']) ??
    checkTools(body['tools']) ??
    checkMessages(body['messages'] as unknown[]) ??
    checkCacheBreakpoints(body) ??
    checkThinkingSettings(body, options.thinking ?? 'supported') ??
    checkStructuredOutputs(body, options.structuredOutputs) ??
    options.ledger?.check(body);
  if (message !== undefined) return invalid(message);
  if (options.contextWindow !== undefined) {
    const tokens = countTokens(body, options.charsPerToken);
    if (tokens > options.contextWindow) {
      return invalid(`prompt is too long: ${tokens} tokens > ${options.contextWindow} maximum`);
    }
  }
  return undefined;
}

function checkTopLevel(body: JsonObject, options: ValidateOptions): Check {
  if (typeof body['model'] !== 'string' || body['model'] === '') return 'model: Field required';
  if (options.requireMaxTokens) {
    const maxTokens = body['max_tokens'];
    if (maxTokens === undefined) return 'max_tokens: Field required';
    if (typeof maxTokens !== 'number' || !Number.isInteger(maxTokens))
      return 'max_tokens: Input should be a valid integer';
    if (maxTokens < 1) return 'max_tokens: Input should be greater than or equal to 1';
  }
  for (const field of DROPPED_SAMPLING_FIELDS) {
    if (field in body) return `${field}: Extra inputs are not permitted`;
  }
  const messages = body['messages'];
  if (messages === undefined) return 'messages: Field required';
  if (!Array.isArray(messages)) return 'messages: Input should be a valid list';
  if (messages.length === 0) return 'messages: at least one message is required';
  if (body['stream'] !== undefined && typeof body['stream'] !== 'boolean')
    return 'stream: Input should be a valid boolean';
  return undefined;
}

function checkTextBlock(block: JsonObject, where: string): Check {
  if (typeof block['text'] !== 'string') return `${where}.text: Field required`;
  // The API rejects whitespace-only text with the same complaint as empty text.
  if (block['text'].trim() === '') return `${where.split('.')[0]}: text content blocks must be non-empty`;
  return undefined;
}

function checkSystem(system: unknown): Check {
  if (system === undefined || typeof system === 'string') return undefined;
  if (!Array.isArray(system)) return 'system: Input should be a valid string or list';
  for (const [index, block] of system.entries()) {
    if (!isRecord(block) || block['type'] !== 'text') return `system.${index}.type: Input should be 'text'`;
    const failure = checkTextBlock(block, `system.${index}`);
    if (failure) return failure;
  }
  return undefined;
}

function checkTools(tools: unknown): Check {
  if (tools === undefined) return undefined;
  if (!Array.isArray(tools)) return 'tools: Input should be a valid list';
  const seen = new Set<string>();
  for (const [index, tool] of tools.entries()) {
    if (!isRecord(tool)) return `tools.${index}: Input should be a valid dictionary`;
    const name = tool['name'];
    if (typeof name !== 'string') return `tools.${index}.name: Field required`;
    if (!TOOL_NAME.test(name)) return `tools.${index}.name: String should match pattern '^[a-zA-Z0-9_-]{1,128}$'`;
    if (seen.has(name)) return 'tools: Tool names must be unique.';
    seen.add(name);
    // Server and versioned tools (`type: "bash_20250124"`, ...) carry no input_schema.
    const isCustom = tool['type'] === undefined || tool['type'] === 'custom';
    if (!isCustom) continue;
    const schema = tool['input_schema'];
    if (schema === undefined) return `tools.${index}.input_schema: Field required`;
    if (!isRecord(schema) || schema['type'] !== 'object')
      return `tools.${index}.input_schema.type: Input should be 'object'`;
  }
  return undefined;
}

interface Message {
  index: number;
  role: 'user' | 'assistant';
  blocks: JsonObject[];
}

function normaliseMessages(messages: unknown[]): Message[] | string {
  const out: Message[] = [];
  for (const [index, message] of messages.entries()) {
    if (!isRecord(message)) return `messages.${index}: Input should be a valid dictionary`;
    const role = message['role'];
    if (role !== 'user' && role !== 'assistant') return `messages.${index}.role: Input should be 'user' or 'assistant'`;
    const content = message['content'];
    let blocks: unknown[];
    if (typeof content === 'string') blocks = content === '' ? [] : [{ type: 'text', text: content }];
    else if (Array.isArray(content)) blocks = content;
    else return `messages.${index}.content: Field required`;
    for (const [at, block] of blocks.entries()) {
      if (!isRecord(block) || typeof block['type'] !== 'string')
        return `messages.${index}.content.${at}.type: Field required`;
      if (!BLOCK_TYPES.has(block['type'])) {
        return `messages.${index}.content.${at}.type: Input tag '${block['type']}' found using 'type' does not match any of the expected tags`;
      }
    }
    out.push({ index, role, blocks: blocks as JsonObject[] });
  }
  return out;
}

function checkBlocks(message: Message): Check {
  for (const [at, block] of message.blocks.entries()) {
    const where = `messages.${message.index}.content.${at}`;
    if (block['type'] === 'text') {
      const failure = checkTextBlock(block, where);
      if (failure) return failure;
    }
    if (block['type'] === 'tool_use') {
      if (message.role !== 'assistant') return `${where}: \`tool_use\` blocks may only appear in assistant messages`;
      if (typeof block['id'] !== 'string' || typeof block['name'] !== 'string')
        return `${where}: tool_use blocks need an id and a name`;
      if (!isRecord(block['input'])) return `${where}.input: Input should be a valid dictionary`;
    }
    if (block['type'] === 'tool_result') {
      if (message.role !== 'user') return `${where}: \`tool_result\` blocks may only appear in user messages`;
      if (typeof block['tool_use_id'] !== 'string') return `${where}.tool_use_id: Field required`;
      const inner = block['content'];
      if (Array.isArray(inner)) {
        for (const [innerAt, part] of inner.entries()) {
          if (isRecord(part) && part['type'] === 'text') {
            const failure = checkTextBlock(part, `${where}.content.${innerAt}`);
            if (failure) return failure;
          }
        }
      }
    }
  }
  return undefined;
}

/** The API merges consecutive messages of one role; the merged message keeps the first index. */
function mergeRoles(messages: Message[]): Message[] {
  const merged: Message[] = [];
  for (const message of messages) {
    const last = merged.at(-1);
    if (last && last.role === message.role) last.blocks = [...last.blocks, ...message.blocks];
    else merged.push({ ...message, blocks: [...message.blocks] });
  }
  return merged;
}

function idsOf(blocks: JsonObject[], type: 'tool_use' | 'tool_result'): string[] {
  const key = type === 'tool_use' ? 'id' : 'tool_use_id';
  return blocks.filter((block) => block['type'] === type).map((block) => String(block[key]));
}

function checkToolPairing(merged: Message[]): Check {
  for (const [position, message] of merged.entries()) {
    const next = merged[position + 1];
    if (message.role === 'assistant') {
      const asked = idsOf(message.blocks, 'tool_use');
      const answered = new Set(next ? idsOf(next.blocks, 'tool_result') : []);
      const unanswered = asked.filter((id) => !answered.has(id));
      if (unanswered.length > 0) {
        return (
          `messages.${message.index}: \`tool_use\` ids were found without \`tool_result\` blocks immediately after: ` +
          `${unanswered.join(', ')}. Each \`tool_use\` block must have a corresponding \`tool_result\` block in the next message.`
        );
      }
      continue;
    }
    const previous = merged[position - 1];
    const asked = new Set(previous ? idsOf(previous.blocks, 'tool_use') : []);
    let seenOther = false;
    for (const [at, block] of message.blocks.entries()) {
      if (block['type'] !== 'tool_result') {
        seenOther = true;
        continue;
      }
      const id = String(block['tool_use_id']);
      if (!asked.has(id)) {
        return (
          `messages.${message.index}.content.${at}: unexpected \`tool_use_id\` found in \`tool_result\` blocks: ${id}. ` +
          'Each `tool_result` block must have a corresponding `tool_use` block in the previous message.'
        );
      }
      if (seenOther) {
        return `messages.${message.index}: \`tool_result\` blocks must come first in the message content, before any other content`;
      }
    }
  }
  return undefined;
}

function checkMessages(raw: unknown[]): Check {
  const messages = normaliseMessages(raw);
  if (typeof messages === 'string') return messages;
  if (messages[0]?.role !== 'user') return 'messages: first message must use the "user" role';
  for (const [position, message] of messages.entries()) {
    const isFinalAssistant = position === messages.length - 1 && message.role === 'assistant';
    if (message.blocks.length === 0 && !isFinalAssistant) {
      return `messages.${message.index}: all messages must have non-empty content except for the optional final assistant message`;
    }
    const failure = checkBlocks(message);
    if (failure) return failure;
  }
  const last = messages.at(-1);
  const lastBlock = last?.blocks.at(-1);
  if (last?.role === 'assistant' && lastBlock?.['type'] === 'text') {
    const text = String(lastBlock['text']);
    if (text !== text.trimEnd()) return 'messages: final assistant content cannot end with trailing whitespace';
  }
  return checkToolPairing(mergeRoles(messages));
}

function checkCacheBreakpoints(body: JsonObject): Check {
  const blocks: unknown[] = [];
  if (Array.isArray(body['tools'])) blocks.push(...body['tools']);
  if (Array.isArray(body['system'])) blocks.push(...body['system']);
  for (const message of body['messages'] as unknown[]) {
    const content = isRecord(message) ? message['content'] : undefined;
    if (Array.isArray(content)) blocks.push(...content);
  }
  const found = blocks.reduce<number>((sum, block) => sum + cacheControlCount(block), 0);
  if (found > MAX_CACHE_BREAKPOINTS) {
    return `A maximum of ${MAX_CACHE_BREAKPOINTS} blocks with cache_control may be provided. Found ${found}.`;
  }
  return undefined;
}
