import type Anthropic from '@anthropic-ai/sdk';
import { describe, expect, it } from 'vitest';
import type { RequestParts } from '../src/api/cache.js';
import { ContextWindow } from '../src/api/context-fit.js';
import { rawPromptTokens } from '../src/api/context-estimate.js';

const WINDOW = 200_000;
const ELIDED = /^\[output elided to save context: \d+ characters; re-run the command if you need it\]$/;

function baseParts(): RequestParts {
  return {
    system: [{ type: 'text', text: 'You are a coding agent. You run bash commands in /work, non-interactively.' }],
    tools: [
      {
        name: 'bash',
        description: 'Run a bash command.',
        input_schema: {
          type: 'object',
          properties: { command: { type: 'string' }, timeout: { type: 'number' } },
          required: ['command'],
        },
      },
    ],
    messages: [{ role: 'user', content: 'Find out why the build is slow.' }],
  };
}

/** A command output of exactly `chars` characters, different for each turn. */
function output(turn: number, chars: number): string {
  const line = `turn ${turn}: some build log line with timings and paths /src/x.ts\n`;
  return line.repeat(Math.ceil(chars / line.length)).slice(0, chars);
}

function appendTurn(parts: RequestParts, turn: number, result: string, isError = false): void {
  const id = `toolu_${turn}`;
  parts.messages.push({
    role: 'assistant',
    content: [
      { type: 'text', text: `Looking at step ${turn}.` },
      { type: 'tool_use', id, name: 'bash', input: { command: `make step${turn}` } },
    ],
  });
  parts.messages.push({
    role: 'user',
    content: [{ type: 'tool_result', tool_use_id: id, content: result, is_error: isError }],
  });
}

function blocks(message: Anthropic.MessageParam | undefined): Anthropic.ContentBlockParam[] {
  if (!message || typeof message.content === 'string') throw new Error('expected block content');
  return message.content;
}

/** Every tool_use is answered, in the very next message, by a tool_result with its id. */
function expectPairingIntact(messages: Anthropic.MessageParam[]): void {
  messages.forEach((message, i) => {
    if (message.role !== 'assistant') return;
    const uses = blocks(message).filter((b): b is Anthropic.ToolUseBlockParam => b.type === 'tool_use');
    if (uses.length === 0) return;
    const answers = blocks(messages[i + 1]).filter(
      (b): b is Anthropic.ToolResultBlockParam => b.type === 'tool_result',
    );
    expect(answers.map((a) => a.tool_use_id)).toEqual(uses.map((u) => u.id));
  });
}

/** What a model's tokenizer might report: denser than chars/4, plus fixed overhead. */
function reportedTokens(parts: RequestParts): number {
  return Math.round(rawPromptTokens(parts) * 1.15) + 400;
}

describe('ContextWindow', () => {
  it('keeps a 45-turn run with ~28,000-character results inside the window, eliding in batches', () => {
    const budget = new ContextWindow({ contextWindow: WINDOW, maxOutputTokens: 16_000 });
    const parts = baseParts();
    const originals = new Map<string, string>();
    let turnsThatChangedHistory = 0;
    let totalElided = 0;

    for (let turn = 1; turn <= 45; turn++) {
      const result = output(turn, 28_000);
      originals.set(`toolu_${turn}`, result);
      const history = JSON.stringify(parts.messages);
      const historyLength = parts.messages.length;
      appendTurn(parts, turn, result, turn % 7 === 0);

      const fit = budget.fit(parts);
      expect(fit.ok, `turn ${turn}`).toBe(true);
      if (fit.ok) totalElided += fit.elided;
      if (JSON.stringify(parts.messages.slice(0, historyLength)) !== history) turnsThatChangedHistory++;

      // "Send" the request: it must fit, by the estimate and by what the server would count.
      expect(budget.estimate(parts)).toBeLessThan(WINDOW);
      expect(reportedTokens(parts)).toBeLessThan(WINDOW - 16_000);
      expect(blocks(parts.messages.at(-1))[0]).toMatchObject({ tool_use_id: `toolu_${turn}`, content: result });
      expectPairingIntact(parts.messages);
      budget.observe(parts, reportedTokens(parts));
    }

    // 45 × ~8,000 tokens would overflow the window twice over, so elision must have happened,
    // but in a few rounds, not on every turn.
    expect(totalElided).toBeGreaterThan(20);
    expect(turnsThatChangedHistory).toBeGreaterThanOrEqual(2);
    expect(turnsThatChangedHistory).toBeLessThanOrEqual(10);

    const results = parts.messages.flatMap((m) =>
      m.role === 'user' && typeof m.content !== 'string' ? m.content : [],
    );
    const toolResults = results.filter((b): b is Anthropic.ToolResultBlockParam => b.type === 'tool_result');
    expect(toolResults).toHaveLength(45);
    const elided = toolResults.filter((r) => typeof r.content === 'string' && ELIDED.test(r.content));
    expect(elided.length).toBe(totalElided);
    for (const r of elided) {
      expect(r.content).toBe(
        `[output elided to save context: ${originals.get(r.tool_use_id)?.length} characters; re-run the command if you need it]`,
      );
      expect(r.is_error).toBe(Number(r.tool_use_id.slice('toolu_'.length)) % 7 === 0);
    }
    // The newest results are whole; the elided ones are the oldest.
    for (const r of toolResults.slice(-3)) expect(r.content).toBe(originals.get(r.tool_use_id));
    const firstWhole = toolResults.findIndex((r) => r.content === originals.get(r.tool_use_id));
    expect(toolResults.slice(0, firstWhole).every((r) => elided.includes(r))).toBe(true);
  });

  it('leaves a conversation below the threshold untouched', () => {
    const budget = new ContextWindow({ maxOutputTokens: 16_000 });
    const parts = baseParts();
    for (let turn = 1; turn <= 5; turn++) appendTurn(parts, turn, output(turn, 28_000));
    const before = structuredClone(parts);
    expect(budget.fit(parts)).toEqual({ ok: true, elided: 0 });
    expect(parts).toEqual(before);
  });

  it('calibrates later estimates by the ratio the server reported', () => {
    const budget = new ContextWindow({ maxOutputTokens: 16_000 });
    const parts = baseParts();
    for (let turn = 1; turn <= 3; turn++) appendTurn(parts, turn, output(turn, 28_000));
    const raw = rawPromptTokens(parts);
    const before = budget.estimate(parts);
    expect(before).toBeGreaterThanOrEqual(raw);

    budget.observe(parts, Math.round(raw * 1.3));
    const after = budget.estimate(parts);
    expect(after).toBeGreaterThan(before);
    expect(after).toBeCloseTo(raw * 1.3, -1);
    appendTurn(parts, 4, output(4, 28_000));
    expect(budget.estimate(parts)).toBeGreaterThan(rawPromptTokens(parts) * 1.29);
  });

  it('never calibrates below chars/4, and ignores empty or tiny observations', () => {
    const budget = new ContextWindow({ maxOutputTokens: 16_000 });
    const parts = baseParts();
    for (let turn = 1; turn <= 3; turn++) appendTurn(parts, turn, output(turn, 28_000));
    const raw = rawPromptTokens(parts);
    const initial = budget.estimate(parts);

    budget.observe(parts, 0);
    expect(budget.estimate(parts)).toBe(initial);
    budget.observe(baseParts(), 100_000);
    expect(budget.estimate(parts)).toBe(initial);
    budget.observe(parts, Math.round(raw * 0.3));
    expect(budget.estimate(parts)).toBe(raw);
  });

  it('fails when the latest result alone is larger than the window', () => {
    const budget = new ContextWindow({ contextWindow: WINDOW, maxOutputTokens: 16_000 });
    const parts = baseParts();
    for (let turn = 1; turn <= 4; turn++) appendTurn(parts, turn, output(turn, 28_000));
    const huge = output(5, 1_000_000);
    appendTurn(parts, 5, huge);

    const fit = budget.fit(parts);
    expect(fit.ok).toBe(false);
    if (fit.ok) return;
    expect(fit.limit).toBe(WINDOW - 16_000);
    expect(fit.estimate).toBeGreaterThan(fit.limit);
    expect(blocks(parts.messages.at(-1))[0]).toMatchObject({ content: huge });
    expectPairingIntact(parts.messages);
  });

  it('accepts a request above the low mark when nothing more may be elided but it fits', () => {
    const budget = new ContextWindow({ contextWindow: WINDOW, maxOutputTokens: 16_000, keepRecentResults: 3 });
    const parts = baseParts();
    for (let turn = 1; turn <= 3; turn++) appendTurn(parts, turn, output(turn, 180_000));
    const before = structuredClone(parts);
    const estimate = budget.estimate(parts);
    expect(estimate).toBeGreaterThan(budget.limits.trigger);
    expect(estimate).toBeLessThan(budget.limits.hardLimit);

    expect(budget.fit(parts)).toEqual({ ok: true, elided: 0 });
    expect(parts).toEqual(before);
  });

  it('keeps every result of the latest turn whole, even past keepRecentResults', () => {
    const budget = new ContextWindow({ contextWindow: 50_000, maxOutputTokens: 4_000, keepRecentResults: 1 });
    const parts = baseParts();
    appendTurn(parts, 1, output(1, 60_000));
    const ids = ['toolu_a', 'toolu_b', 'toolu_c'];
    parts.messages.push({
      role: 'assistant',
      content: ids.map((id) => ({ type: 'tool_use', id, name: 'bash', input: { command: 'ls' } })),
    });
    parts.messages.push({
      role: 'user',
      content: ids.map((id) => ({ type: 'tool_result', tool_use_id: id, content: output(9, 30_000) })),
    });

    const fit = budget.fit(parts);
    expect(fit).toEqual({ ok: true, elided: 1 });
    expect(blocks(parts.messages[2])[0]).toMatchObject({ content: expect.stringMatching(ELIDED) });
    for (const block of blocks(parts.messages.at(-1))) expect(block).toMatchObject({ content: output(9, 30_000) });
    expectPairingIntact(parts.messages);
  });

  it('reserves room for max_tokens, but at most a quarter of the window', () => {
    expect(new ContextWindow({ maxOutputTokens: 16_000 }).limits).toEqual({
      trigger: 150_000,
      lowMark: 100_000,
      hardLimit: 184_000,
    });
    expect(new ContextWindow({ maxOutputTokens: 128_000 }).limits).toEqual({
      trigger: 150_000,
      lowMark: 100_000,
      hardLimit: 150_000,
    });
    expect(
      new ContextWindow({ contextWindow: 1_000_000, maxOutputTokens: 128_000, threshold: 0.9 }).limits.trigger,
    ).toBe(872_000);
    expect(() => new ContextWindow({ maxOutputTokens: 1_000, threshold: 1.5 })).toThrow(RangeError);
  });
});
