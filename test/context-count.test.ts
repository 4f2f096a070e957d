import type Anthropic from '@anthropic-ai/sdk';
import { describe, expect, it } from 'vitest';
import type { RequestParts } from '../src/api/cache.js';
import { PromptTokenCount } from '../src/api/context-count.js';
import { rawPromptTokens } from '../src/api/context-estimate.js';
import { ContextWindow } from '../src/api/context-fit.js';

function startParts(): RequestParts {
  return {
    system: [
      { type: 'text', text: 'You are a coding agent.' },
      { type: 'text', text: 'Answer briefly.' },
    ],
    tools: [{ name: 'bash', description: 'Run a command.', input_schema: { type: 'object', properties: {} } }],
    messages: [{ role: 'user', content: 'Find out why the build is slow.' }],
  };
}

/** One turn of every block kind the estimate counts differently. */
function appendTurn(parts: RequestParts, turn: number, resultChars: number): void {
  const id = `toolu_${turn}`;
  parts.messages.push({
    role: 'assistant',
    content: [
      { type: 'thinking', thinking: `thinking about step ${turn}`, signature: 'sig' },
      { type: 'text', text: `Step ${turn}.` },
      { type: 'tool_use', id, name: 'bash', input: { command: `make step${turn}`, turn } },
    ],
  });
  const result: Anthropic.ToolResultBlockParam =
    turn % 3 === 0
      ? { type: 'tool_result', tool_use_id: id, content: [{ type: 'text', text: 'x'.repeat(resultChars) }] }
      : { type: 'tool_result', tool_use_id: id, content: `line ${turn}\n`.repeat(resultChars / 8) };
  parts.messages.push({ role: 'user', content: [result] });
}

describe('PromptTokenCount', () => {
  it('gives the from-scratch count as the conversation grows, is cut short, replaced and rewritten', () => {
    const count = new PromptTokenCount();
    const parts = startParts();
    for (let turn = 1; turn <= 30; turn++) {
      appendTurn(parts, turn, 800 + turn * 40);
      expect(count.count(parts), `turn ${turn}`).toBe(rawPromptTokens(parts));
      expect(count.count(parts), `turn ${turn}, again`).toBe(rawPromptTokens(parts));
    }
    parts.messages.length = 21;
    expect(count.count(parts)).toBe(rawPromptTokens(parts));
    parts.messages[7] = { role: 'user', content: 'a different message in the same place' };
    expect(count.count(parts)).toBe(rawPromptTokens(parts));
    const resumed = { ...parts, messages: structuredClone(parts.messages).slice(0, 9) };
    expect(count.count(resumed)).toBe(rawPromptTokens(resumed));
    const otherShape = { ...startParts(), messages: resumed.messages };
    otherShape.system.push({ type: 'text', text: 'And one more section of the system prompt.' });
    expect(count.count(otherShape)).toBe(rawPromptTokens(otherShape));
  });

  it('counts a message changed in place again once told', () => {
    const count = new PromptTokenCount();
    const parts = startParts();
    for (let turn = 1; turn <= 4; turn++) appendTurn(parts, turn, 4_000);
    count.count(parts);
    const message = parts.messages[2] as Anthropic.MessageParam & { content: Anthropic.ContentBlockParam[] };
    message.content[0] = { type: 'tool_result', tool_use_id: 'toolu_1', content: 'elided' };
    count.recount(message);
    expect(count.count(parts)).toBe(rawPromptTokens(parts));
  });
});

describe('ContextWindow estimate, kept up to date', () => {
  it('equals a fresh estimate of the same conversation on every turn, across rounds of elision', () => {
    const options = { contextWindow: 60_000, maxOutputTokens: 4_000 };
    const budget = new ContextWindow(options);
    const parts = startParts();
    let elided = 0;
    for (let turn = 1; turn <= 40; turn++) {
      appendTurn(parts, turn, 9_000);
      const fit = budget.fit(parts);
      expect(fit.ok, `turn ${turn}`).toBe(true);
      if (fit.ok) elided += fit.elided;
      // An uncalibrated window that has never seen this conversation counts it from scratch.
      expect(budget.estimate(parts), `turn ${turn}`).toBe(new ContextWindow(options).estimate(parts));
    }
    expect(elided).toBeGreaterThan(10);
  });
});
