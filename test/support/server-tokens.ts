// Deterministic token counting and a simulation of the API's prompt caching.
//
// Token count of a request, `countTokens`:
// - the request is cut into units, in cache order: each tool definition, each system text
//   block (a string system is one block), then each content block of each message (string
//   content is one block);
// - a unit costs ceil(chars / charsPerToken) + BLOCK_OVERHEAD tokens, where chars is the length of its
//   text: the tool definition as JSON, the text of a text or thinking block, a tool_use's name
//   plus its input as JSON, a tool_result's text (non-text parts as JSON), anything else as JSON;
// - each message adds MESSAGE_OVERHEAD, booked on its first unit;
// - the count is the sum over the units. `cache_control` never counts.
//
// The default of 3 characters per token is what real tokenizers give on code and logs, and it is
// deliberately not the product's own estimate (characters / 4, with its own overheads): a budget
// that only agreed with itself would pass every test here and still overflow a real window.

import { createHash } from 'node:crypto';
import type { ResolvedBlock, Usage } from './server-types.js';

export const DEFAULT_CHARS_PER_TOKEN = 3;
export const BLOCK_OVERHEAD = 5;
export const MESSAGE_OVERHEAD = 7;
/** Prefixes shorter than this are not cached (as for Sonnet-class models); that is no error. */
export const MIN_CACHEABLE_TOKENS = 1024;
/** How many blocks before a breakpoint the API looks back for an earlier cached prefix. */
export const CACHE_LOOKBACK_BLOCKS = 20;

interface Unit {
  tokens: number;
  breakpoint: boolean;
  /** Canonical JSON of the unit without cache_control, including where it sits. */
  canonical: string;
}

type Json = null | boolean | number | string | Json[] | { [key: string]: Json };

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/** JSON with sorted keys and every `cache_control` field removed, at any depth. */
export function canonicalJson(value: unknown): string {
  return JSON.stringify(stripCacheControl(value));
}

function stripCacheControl(value: unknown): Json {
  if (Array.isArray(value)) return value.map(stripCacheControl);
  if (isRecord(value)) {
    const out: { [key: string]: Json } = {};
    for (const key of Object.keys(value).sort()) {
      if (key === 'cache_control' || value[key] === undefined) continue;
      out[key] = stripCacheControl(value[key]);
    }
    return out;
  }
  if (typeof value === 'string' || typeof value === 'number' || typeof value === 'boolean') return value;
  return null;
}

/** Whether a block, or a block nested in a tool_result's content, carries cache_control. */
export function cacheControlCount(block: unknown): number {
  if (!isRecord(block)) return 0;
  let count = block['cache_control'] != null ? 1 : 0;
  const content = block['content'];
  if (block['type'] === 'tool_result' && Array.isArray(content)) {
    for (const inner of content) if (isRecord(inner) && inner['cache_control'] != null) count += 1;
  }
  return count;
}

function blockChars(block: unknown): number {
  if (typeof block === 'string') return block.length;
  if (!isRecord(block)) return canonicalJson(block).length;
  switch (block['type']) {
    case 'text':
      return typeof block['text'] === 'string' ? block['text'].length : 0;
    case 'thinking':
      return typeof block['thinking'] === 'string' ? block['thinking'].length : 0;
    case 'redacted_thinking':
      return typeof block['data'] === 'string' ? block['data'].length : 0;
    case 'tool_use':
      return String(block['name'] ?? '').length + canonicalJson(block['input'] ?? {}).length;
    case 'tool_result': {
      const content = block['content'];
      if (typeof content === 'string') return content.length;
      if (!Array.isArray(content)) return 0;
      return content.reduce<number>((sum, inner) => sum + blockChars(inner), 0);
    }
    default:
      return canonicalJson(block).length;
  }
}

function unitTokens(chars: number, charsPerToken: number): number {
  return Math.ceil(chars / charsPerToken) + BLOCK_OVERHEAD;
}

function asBlocks(content: unknown): unknown[] {
  if (typeof content === 'string') return [{ type: 'text', text: content }];
  return Array.isArray(content) ? content : [];
}

/** The request cut into units in cache order: tools, system, then message blocks. */
function units(body: unknown, charsPerToken: number): Unit[] {
  if (!isRecord(body)) return [];
  const out: Unit[] = [];
  const tools = Array.isArray(body['tools']) ? body['tools'] : [];
  for (const tool of tools) {
    const canonical = canonicalJson({ tool });
    out.push({
      tokens: unitTokens(canonicalJson(tool).length, charsPerToken),
      breakpoint: cacheControlCount(tool) > 0,
      canonical,
    });
  }
  for (const block of asBlocks(body['system'])) {
    out.push({
      tokens: unitTokens(blockChars(block), charsPerToken),
      breakpoint: cacheControlCount(block) > 0,
      canonical: canonicalJson({ system: block }),
    });
  }
  const messages = Array.isArray(body['messages']) ? body['messages'] : [];
  for (const message of messages) {
    const role = isRecord(message) ? message['role'] : undefined;
    const blocks = asBlocks(isRecord(message) ? message['content'] : undefined);
    if (blocks.length === 0) {
      out.push({ tokens: MESSAGE_OVERHEAD, breakpoint: false, canonical: canonicalJson({ role, empty: true }) });
      continue;
    }
    blocks.forEach((block, index) => {
      const first = index === 0;
      out.push({
        tokens: unitTokens(blockChars(block), charsPerToken) + (first ? MESSAGE_OVERHEAD : 0),
        breakpoint: cacheControlCount(block) > 0,
        // `first` marks where a message starts, so the chain of units is unambiguous.
        canonical: canonicalJson({ role, first, block }),
      });
    });
  }
  return out;
}

/** The server's deterministic token count of a request (see the top of this file). */
export function countTokens(body: unknown, charsPerToken = DEFAULT_CHARS_PER_TOKEN): number {
  return units(body, charsPerToken).reduce((sum, unit) => sum + unit.tokens, 0);
}

/** One token per `charsPerToken` characters of what the response says, at least 1. */
export function outputTokens(content: readonly ResolvedBlock[], charsPerToken = DEFAULT_CHARS_PER_TOKEN): number {
  const chars = content.reduce((sum, block) => sum + blockChars(block), 0);
  return Math.max(1, Math.ceil(chars / charsPerToken));
}

export type InputUsage = Omit<Usage, 'output_tokens'>;

/**
 * Prompt caching as the API does it, per server instance. A breakpoint (a block carrying
 * cache_control) marks a prefix. The longest already-cached prefix found at a breakpoint, or
 * up to CACHE_LOOKBACK_BLOCKS blocks before one, is read; the tokens from there to the
 * furthest cacheable breakpoint are written. Cache keys are hashes of the canonical prefix
 * (model included: caches are per model). Entries never expire within a test.
 */
export class CacheSimulator {
  readonly #cached = new Map<string, number>();

  constructor(readonly charsPerToken = DEFAULT_CHARS_PER_TOKEN) {}

  account(body: unknown): InputUsage {
    const all = units(body, this.charsPerToken);
    const model = isRecord(body) ? String(body['model'] ?? '') : '';
    const hashes: string[] = [];
    const prefixTokens: number[] = [];
    let hash = createHash('sha256').update(model).digest('hex');
    let tokens = 0;
    for (const unit of all) {
      hash = createHash('sha256').update(hash).update(unit.canonical).digest('hex');
      tokens += unit.tokens;
      hashes.push(hash);
      prefixTokens.push(tokens);
    }
    const total = tokens;
    const breakpoints = all.flatMap((unit, index) => (unit.breakpoint ? [index] : []));

    let read = 0;
    let readEnd = -1;
    for (const breakpoint of breakpoints) {
      for (let index = breakpoint; index >= 0 && index >= breakpoint - CACHE_LOOKBACK_BLOCKS; index -= 1) {
        const cached = this.#cached.get(hashes[index] ?? '');
        if (cached !== undefined && cached > read) {
          read = cached;
          readEnd = index;
        }
      }
    }

    let creation = 0;
    for (const breakpoint of breakpoints) {
      const prefix = prefixTokens[breakpoint] ?? 0;
      if (prefix < MIN_CACHEABLE_TOKENS) continue;
      this.#cached.set(hashes[breakpoint] ?? '', prefix);
      if (breakpoint > readEnd) creation = Math.max(creation, prefix - read);
    }

    return {
      input_tokens: total - read - creation,
      cache_creation_input_tokens: creation,
      cache_read_input_tokens: read,
    };
  }
}
