import type Anthropic from '@anthropic-ai/sdk';
import type { RequestParts, RequestShape } from './cache.js';
import { messageTokens, shapeTokens } from './context-estimate.js';

/**
 * rawPromptTokens, kept up to date instead of recomputed: a conversation only grows at its end, so each request
 * counts just the messages added since the last one. Messages are matched by identity, so a conversation that was
 * replaced, cut short or reordered is counted again from where it stops matching. A message changed in place (an
 * elided tool result) must be passed to recount().
 */
export class PromptTokenCount {
  private shape: RequestShape | undefined;
  private shapeTotal = 0;
  private readonly counted: Anthropic.MessageParam[] = [];
  private readonly perMessage: number[] = [];
  private messagesTotal = 0;

  /** The same number rawPromptTokens(parts) gives. */
  count(parts: RequestParts): number {
    if (this.shape?.system !== parts.system || this.shape.tools !== parts.tools) {
      this.shape = { system: parts.system, tools: parts.tools };
      this.shapeTotal = shapeTokens(parts);
    }
    const { messages } = parts;
    let matching = 0;
    const shorter = Math.min(messages.length, this.counted.length);
    while (matching < shorter && messages[matching] === this.counted[matching]) matching++;
    this.truncate(matching);
    for (let i = matching; i < messages.length; i++) {
      const message = messages[i] as Anthropic.MessageParam;
      const tokens = messageTokens(message);
      this.counted.push(message);
      this.perMessage.push(tokens);
      this.messagesTotal += tokens;
    }
    return this.shapeTotal + this.messagesTotal;
  }

  /** Counts a message again after its content changed in place. */
  recount(message: Anthropic.MessageParam): void {
    const index = this.counted.indexOf(message);
    if (index < 0) return;
    const tokens = messageTokens(message);
    this.messagesTotal += tokens - (this.perMessage[index] ?? 0);
    this.perMessage[index] = tokens;
  }

  private truncate(length: number): void {
    for (let i = length; i < this.perMessage.length; i++) this.messagesTotal -= this.perMessage[i] ?? 0;
    this.counted.length = length;
    this.perMessage.length = length;
  }
}
