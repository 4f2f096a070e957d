// Thinking on the wire, as the real API takes it: the `thinking` and `output_config.effort` settings, signed thinking
// blocks, and the rules for sending them back (anthropic-wire.md, Thinking). The server signs what it sends and
// remembers each turn it gave by the tool_use ids in it, so a turn sent back can be checked against what it said.

import { createHmac, randomBytes } from 'node:crypto';
import type { ResolvedBlock } from './server-types.js';

type JsonObject = Record<string, unknown>;
type Check = string | undefined;

/** How the server treats the thinking settings: as the real API does, or refused as unknown fields. */
export type ThinkingSupport = 'supported' | 'rejected';

// One key for every server of the test process, so a session saved through one server resumes through another.
const KEY = 'test-server-thinking-key';
const EFFORTS = new Set(['low', 'medium', 'high', 'max']);
const MIN_BUDGET = 1024;
/** The generation that thinks adaptively, and rejects the budget form. */
const ADAPTIVE_GENERATION = /^claude-(fable|mythos|opus|sonnet|haiku)-5/;

const hmac = (text: string) => createHmac('sha256', KEY).update(text).digest('base64');

export const signThinking = (thinking: string): string => hmac(`thinking\u0000${thinking}`);

/** Opaque redacted data that the server can recognise as its own. */
export function redactedData(): string {
  const body = randomBytes(18).toString('base64');
  return `${body}.${hmac(`redacted\u0000${body}`)}`;
}

function validRedacted(data: string): boolean {
  const [body, tag] = data.split('.');
  return body !== undefined && tag !== undefined && hmac(`redacted\u0000${body}`) === tag;
}

function isRecord(value: unknown): value is JsonObject {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

const isThinking = (block: JsonObject) => block['type'] === 'thinking' || block['type'] === 'redacted_thinking';

/** The thinking and tool_use blocks of a turn, in order, as comparable strings: what must come back unchanged. */
function skeleton(blocks: ReadonlyArray<JsonObject | ResolvedBlock>): string[] {
  const out: string[] = [];
  for (const block of blocks as JsonObject[]) {
    if (block['type'] === 'thinking') out.push(`thinking:${String(block['signature'])}:${String(block['thinking'])}`);
    else if (block['type'] === 'redacted_thinking') out.push(`redacted:${String(block['data'])}`);
    else if (block['type'] === 'tool_use') out.push(`tool_use:${String(block['id'])}`);
  }
  return out;
}

/** The settings: which form, which values, and what an endpoint without thinking says. */
export function checkThinkingSettings(body: JsonObject, support: ThinkingSupport): Check {
  const thinking = body['thinking'];
  const config = isRecord(body['output_config']) ? body['output_config'] : undefined;
  if (support === 'rejected') {
    if (thinking !== undefined) return 'thinking: Extra inputs are not permitted';
    if (config && 'effort' in config) return 'output_config.effort: Extra inputs are not permitted';
    return undefined;
  }
  if (config && 'effort' in config && !EFFORTS.has(String(config['effort']))) {
    return "output_config.effort: Input should be 'low', 'medium', 'high' or 'max'";
  }
  if (thinking === undefined) return undefined;
  if (!isRecord(thinking)) return 'thinking: Input should be a valid dictionary';
  const type = thinking['type'];
  if (type === 'adaptive') {
    if ('budget_tokens' in thinking) return 'thinking.adaptive.budget_tokens: Extra inputs are not permitted';
    return undefined;
  }
  if (type === 'enabled') {
    if (ADAPTIVE_GENERATION.test(String(body['model']))) {
      return `thinking.type.enabled: not supported for ${String(body['model'])}; use thinking.type.adaptive with output_config.effort`;
    }
    const budget = thinking['budget_tokens'];
    if (typeof budget !== 'number' || !Number.isInteger(budget))
      return 'thinking.enabled.budget_tokens: Field required';
    if (budget < MIN_BUDGET)
      return `thinking.enabled.budget_tokens: Input should be greater than or equal to ${MIN_BUDGET}`;
    if (typeof body['max_tokens'] === 'number' && budget >= body['max_tokens'])
      return '`max_tokens` must be greater than `thinking.budget_tokens`';
    if ('temperature' in body && body['temperature'] !== 1)
      return '`temperature` may only be set to 1 when thinking is enabled';
    return undefined;
  }
  if (type === 'disabled') return undefined;
  return "thinking.type: Input should be 'adaptive', 'enabled' or 'disabled'";
}

/** The turns the server gave, by the tool_use ids in them. */
export class ThinkingLedger {
  readonly #turns = new Map<string, ResolvedBlock[]>();

  remember(content: ResolvedBlock[]): void {
    for (const block of content) if (block.type === 'tool_use') this.#turns.set(block.id, content);
  }

  #issued(blocks: JsonObject[]): ResolvedBlock[] | undefined {
    for (const block of blocks) {
      if (block['type'] !== 'tool_use') continue;
      const turn = this.#turns.get(String(block['id']));
      if (turn) return turn;
    }
    return undefined;
  }

  /** Every thinking block signed and unchanged, each turn's in place, and the turn in progress begun by its own. */
  check(body: JsonObject): Check {
    const messages = Array.isArray(body['messages']) ? body['messages'] : [];
    const thinkingOn = isRecord(body['thinking']) && body['thinking']['type'] !== 'disabled';
    let lastToolTurn: number | undefined;
    for (const [index, message] of messages.entries()) {
      if (!isRecord(message) || message['role'] !== 'assistant' || !Array.isArray(message['content'])) continue;
      const blocks = message['content'].filter(isRecord);
      const failure = this.#checkTurn(blocks, index);
      if (failure) return failure;
      if (blocks.some((block) => block['type'] === 'tool_use')) lastToolTurn = index;
    }
    if (!thinkingOn || lastToolTurn === undefined) return undefined;
    const blocks = (messages[lastToolTurn] as { content: JsonObject[] }).content.filter(isRecord);
    const issued = this.#issued(blocks);
    const first = blocks[0];
    if (
      !issued?.some((block) => block.type === 'thinking' || block.type === 'redacted_thinking') ||
      (first && isThinking(first))
    )
      return undefined;
    return (
      `messages.${lastToolTurn}.content.0.type: Expected \`thinking\` or \`redacted_thinking\`, but found \`${String(first?.['type'])}\`. ` +
      'When `thinking` is enabled, a final `assistant` message must start with a thinking block (preceeding the lastmost set of ' +
      '`tool_use` and `tool_result` blocks). We recommend you include thinking blocks from previous turns. To avoid this ' +
      'requirement, disable `thinking`.'
    );
  }

  #checkTurn(blocks: JsonObject[], index: number): Check {
    for (const [at, block] of blocks.entries()) {
      const where = `messages.${index}.content.${at}`;
      if (block['type'] === 'thinking') {
        if (typeof block['thinking'] !== 'string') return `${where}.thinking.thinking: Field required`;
        if (typeof block['signature'] !== 'string' || block['signature'] === '')
          return `${where}.thinking.signature: Field required`;
        if (signThinking(block['thinking']) !== block['signature'])
          return `${where}: Invalid \`signature\` in \`thinking\` block`;
      } else if (block['type'] === 'redacted_thinking') {
        if (typeof block['data'] !== 'string' || !validRedacted(block['data']))
          return `${where}: Invalid \`data\` in \`redacted_thinking\` block`;
      }
    }
    const issued = this.#issued(blocks);
    if (!issued || !blocks.some(isThinking)) return undefined; // an earlier turn's thinking may be left out
    const sent = skeleton(blocks);
    const expected = skeleton(issued);
    if (sent.length === expected.length && sent.every((part, at) => part === expected[at])) return undefined;
    return (
      `messages.${index}: \`thinking\` or \`redacted_thinking\` blocks in the latest assistant message cannot be modified. ` +
      'These blocks must remain as they were in the original response.'
    );
  }
}
