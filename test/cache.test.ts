import type Anthropic from '@anthropic-ai/sdk';
import { describe, expect, it } from 'vitest';
import { conversationBreakpoints, withCacheBreakpoints, type RequestParts } from '../src/api/cache.js';

const hasCacheControl = (value: object) => 'cache_control' in value && value.cache_control != null;

/** How many blocks of the request carry cache_control, counted as the API counts them. */
function countBreakpoints(parts: RequestParts): number {
  let total = parts.tools.filter(hasCacheControl).length + parts.system.filter(hasCacheControl).length;
  for (const message of parts.messages) {
    for (const block of typeof message.content === 'string' ? [] : message.content) {
      if (hasCacheControl(block)) total++;
      if (block.type === 'tool_result' && Array.isArray(block.content))
        total += block.content.filter(hasCacheControl).length;
    }
  }
  return total;
}

const EPHEMERAL = { type: 'ephemeral' };

function tool(name: string): Anthropic.Tool {
  return { name, description: `the ${name} tool`, input_schema: { type: 'object', properties: {} } };
}

function toolUse(id: string): Anthropic.ToolUseBlockParam {
  return { type: 'tool_use', id, name: 'bash', input: { command: `echo ${id}` } };
}

function toolResult(id: string, content = `output of ${id}`): Anthropic.ToolResultBlockParam {
  return { type: 'tool_result', tool_use_id: id, content };
}

/** A prompt, then `turns` rounds of one tool call and its result. */
function conversation(turns: number): RequestParts {
  const messages: Anthropic.MessageParam[] = [{ role: 'user', content: 'list the files' }];
  for (let t = 1; t <= turns; t++) {
    messages.push({ role: 'assistant', content: [{ type: 'text', text: `step ${t}` }, toolUse(`toolu_${t}`)] });
    messages.push({ role: 'user', content: [toolResult(`toolu_${t}`)] });
  }
  return {
    system: [
      { type: 'text', text: 'You run commands.' },
      { type: 'text', text: 'Be brief.' },
    ],
    tools: [tool('bash'), tool('other')],
    messages,
  };
}

function blocks(message: Anthropic.MessageParam | undefined): Anthropic.ContentBlockParam[] {
  if (!message || typeof message.content === 'string') throw new Error('expected block content');
  return message.content;
}

describe('withCacheBreakpoints', () => {
  it('marks the last tool, the last system block, the last block and the previous user message', () => {
    const parts = conversation(2);
    const out = withCacheBreakpoints(parts);

    expect(out.tools[0]?.cache_control).toBeUndefined();
    expect(out.tools[1]?.cache_control).toEqual(EPHEMERAL);
    expect(out.system[0]?.cache_control).toBeUndefined();
    expect(out.system[1]?.cache_control).toEqual(EPHEMERAL);
    expect(blocks(out.messages[4]).at(-1)).toMatchObject({ type: 'tool_result', cache_control: EPHEMERAL });
    expect(blocks(out.messages[2]).at(-1)).toMatchObject({ type: 'tool_result', cache_control: EPHEMERAL });
    expect(blocks(out.messages[3]).some((b) => 'cache_control' in b)).toBe(false);
    expect(countBreakpoints(out)).toBe(4);
  });

  it('never produces more than 4, whatever cache_control the input already carries', () => {
    const parts = conversation(6);
    parts.tools = parts.tools.map((t) => ({ ...t, cache_control: { type: 'ephemeral' } }));
    parts.system = parts.system.map((b) => ({ ...b, cache_control: { type: 'ephemeral' } }));
    parts.messages = parts.messages.map((m) =>
      typeof m.content === 'string'
        ? m
        : ({
            ...m,
            content: m.content.map((b) =>
              b.type === 'tool_result'
                ? {
                    ...b,
                    cache_control: { type: 'ephemeral' },
                    content: [{ type: 'text', text: 'x', cache_control: { type: 'ephemeral' } }],
                  }
                : { ...b, cache_control: { type: 'ephemeral' } },
            ),
          } as Anthropic.MessageParam),
    );
    expect(countBreakpoints(parts)).toBeGreaterThan(20);

    const out = withCacheBreakpoints(parts);
    expect(countBreakpoints(out)).toBe(4);
    // Applying it again to its own output stays at 4.
    expect(countBreakpoints(withCacheBreakpoints(out))).toBe(4);
  });

  it('does not mutate the request it is given and copies only what it touches', () => {
    const parts = conversation(5);
    const before = structuredClone(parts);
    const out = withCacheBreakpoints(parts);

    expect(parts).toEqual(before);
    expect(countBreakpoints(parts)).toBe(0);
    expect(out.messages).not.toBe(parts.messages);
    expect(out.messages[5]).toBe(parts.messages[5]);
    expect(out.messages[0]).toBe(parts.messages[0]);
    expect(out.messages.at(-1)).not.toBe(parts.messages.at(-1));
  });

  it('turns a string content into a marked text block', () => {
    const out = withCacheBreakpoints({ system: [], tools: [], messages: [{ role: 'user', content: 'hello there' }] });
    expect(out.messages[0]?.content).toEqual([{ type: 'text', text: 'hello there', cache_control: EPHEMERAL }]);
    expect(countBreakpoints(out)).toBe(1);
  });

  it('handles empty requests and partial ones', () => {
    expect(countBreakpoints(withCacheBreakpoints({ system: [], tools: [], messages: [] }))).toBe(0);
    const toolsOnly = withCacheBreakpoints({ system: [], tools: [tool('bash')], messages: [] });
    expect(toolsOnly.tools[0]?.cache_control).toEqual(EPHEMERAL);
    expect(countBreakpoints(toolsOnly)).toBe(1);
    const blankPrompt = withCacheBreakpoints({
      system: [{ type: 'text', text: '' }],
      tools: [],
      messages: [{ role: 'user', content: '' }],
    });
    expect(countBreakpoints(blankPrompt)).toBe(0);
  });

  it('skips empty text and thinking blocks', () => {
    const parts: RequestParts = {
      system: [
        { type: 'text', text: 'system' },
        { type: 'text', text: '  ' },
      ],
      tools: [],
      messages: [
        { role: 'user', content: 'go' },
        {
          role: 'assistant',
          content: [
            { type: 'text', text: 'thinking it over' },
            { type: 'thinking', thinking: 'hmm', signature: 'sig' },
            { type: 'text', text: '' },
          ],
        },
      ],
    };
    const out = withCacheBreakpoints(parts);
    expect(out.system[0]?.cache_control).toEqual(EPHEMERAL);
    expect(out.system[1]).not.toHaveProperty('cache_control');
    const last = blocks(out.messages[1]);
    expect(last[0]).toMatchObject({ cache_control: EPHEMERAL });
    expect(last[1]).not.toHaveProperty('cache_control');
    expect(last[2]).not.toHaveProperty('cache_control');
  });

  it('falls back to an earlier message when the last one cannot carry a breakpoint', () => {
    const out = withCacheBreakpoints({
      system: [],
      tools: [],
      messages: [
        { role: 'user', content: 'go' },
        { role: 'assistant', content: [{ type: 'redacted_thinking', data: 'opaque' }] },
      ],
    });
    expect(out.messages[0]?.content).toEqual([{ type: 'text', text: 'go', cache_control: EPHEMERAL }]);
    expect(countBreakpoints(out)).toBe(1);
  });

  it('keeps the previous request end marked when one turn adds more than 20 blocks', () => {
    const ids = Array.from({ length: 25 }, (_, i) => `toolu_wide_${i}`);
    const parts = conversation(1);
    parts.messages.push({ role: 'assistant', content: ids.map(toolUse) });
    parts.messages.push({ role: 'user', content: ids.map((id) => toolResult(id)) });

    const out = withCacheBreakpoints(parts);
    expect(blocks(out.messages[2]).at(-1)).toMatchObject({ tool_use_id: 'toolu_1', cache_control: EPHEMERAL });
    expect(blocks(out.messages[4]).at(-1)).toMatchObject({ tool_use_id: 'toolu_wide_24', cache_control: EPHEMERAL });
    expect(countBreakpoints(out)).toBe(4);
  });
});

describe('conversationBreakpoints', () => {
  const marked = (cached: unknown) => ({
    type: 'tool_result',
    tool_use_id: 'planted',
    content: 'x',
    cache_control: cached,
  });

  it('marks each request of a growing conversation exactly as withCacheBreakpoints does, with at most 2 in the conversation', () => {
    const mark = conversationBreakpoints();
    const parts = conversation(0);
    const expectSame = (what: string) => {
      const out = mark(parts.messages);
      expect(out, what).toEqual(withCacheBreakpoints(parts).messages);
      expect(countBreakpoints({ ...parts, messages: out }), what).toBeLessThanOrEqual(2);
      return out;
    };
    for (let t = 1; t <= 12; t++) {
      parts.messages.push({ role: 'assistant', content: [{ type: 'text', text: `step ${t}` }, toolUse(`toolu_${t}`)] });
      parts.messages.push({ role: 'user', content: [toolResult(`toolu_${t}`)] });
      expectSame(`turn ${t}`);
    }
    // An old message replaced by one that carries cache_control (a resumed session, say) is cleared again.
    parts.messages[4] = { role: 'user', content: [marked(EPHEMERAL) as Anthropic.ToolResultBlockParam] };
    expect(JSON.stringify(expectSame('replaced')[4])).not.toContain('cache_control');
    expect(JSON.stringify(expectSame('again')[4])).not.toContain('cache_control');
    // Eliding a result in place, as the context window does, keeps a clean message clean.
    blocks(parts.messages[2])[0] = { ...toolResult('toolu_1'), content: '[output elided]' };
    expectSame('elided');
    parts.messages.length = 7;
    expectSame('cut short');
    parts.messages = structuredClone(parts.messages);
    expectSame('replaced whole');
  });

  it('never changes the conversation it is given', () => {
    const mark = conversationBreakpoints();
    const parts = conversation(3);
    const before = structuredClone(parts.messages);
    mark(parts.messages);
    mark(parts.messages);
    expect(parts.messages).toEqual(before);
  });
});
