import type Anthropic from '@anthropic-ai/sdk';
import { describe, expect, it } from 'vitest';
import type { RunEvent } from '../src/events.js';
import { agentLoop, MAX_CONTINUATIONS, type LoopDeps } from '../src/loop.js';
import { Interrupted } from '../src/outcome.js';

type Block = Anthropic.ContentBlock;
const text = (t: string): Block => ({ type: 'text', text: t, citations: null }) as Block;
const toolUse = (id: string, command: unknown, name = 'bash'): Block =>
  ({ type: 'tool_use', id, name, input: { command } }) as Block;

function reply(content: Block[], stop_reason: Anthropic.StopReason): Anthropic.Message {
  return {
    id: 'msg_test',
    type: 'message',
    role: 'assistant',
    model: 'test',
    content,
    stop_reason,
    stop_sequence: null,
    usage: { input_tokens: 1, output_tokens: 1 },
  } as unknown as Anthropic.Message;
}

/** A scripted model: each call returns the next reply and records the conversation it was sent. */
function scripted(replies: Anthropic.Message[], overrides: Partial<LoopDeps> = {}) {
  const sent: Anthropic.MessageParam[][] = [];
  const ran: string[] = [];
  const events: RunEvent[] = [];
  const deps: LoopDeps = {
    callModel: async (messages) => {
      sent.push(structuredClone(messages));
      const next = replies.shift();
      if (!next) throw new Error('script exhausted');
      return { ok: true, message: next };
    },
    context: { fit: () => ({ ok: true, elided: 0 }), observe: () => {} },
    runTool: async (block) => {
      ran.push(block.id);
      return { type: 'tool_result', tool_use_id: block.id, content: `ran ${block.id}` };
    },
    emit: (event) => events.push(event),
    maxTurns: 10,
    signal: new AbortController().signal,
    ...overrides,
  };
  return { deps, sent, ran, events };
}

const start = (): Anthropic.MessageParam[] => [{ role: 'user', content: 'task' }];

describe('agentLoop', () => {
  it('runs every tool_use of a response in order and answers them in one user message', async () => {
    const { deps, sent, ran } = scripted([
      reply([text('two things'), toolUse('a', 'ls'), toolUse('b', 'pwd')], 'tool_use'),
      reply([text('done')], 'end_turn'),
    ]);
    const messages = start();
    const end = await agentLoop(messages, deps);
    expect(end).toEqual({ kind: 'success', stopReason: 'end_turn', finalText: 'done', turns: 2 });
    expect(ran).toEqual(['a', 'b']);
    const results = sent[1]!.at(-1)!;
    expect(results.role).toBe('user');
    expect((results.content as Anthropic.ToolResultBlockParam[]).map((block) => block.tool_use_id)).toEqual(['a', 'b']);
    expect(messages).toHaveLength(4);
  });

  it('treats stop_sequence as a finished answer', async () => {
    const { deps } = scripted([reply([text('fin')], 'stop_sequence')]);
    expect(await agentLoop(start(), deps)).toMatchObject({ kind: 'success', finalText: 'fin' });
  });

  it('asks the model to continue after max_tokens, never runs the cut-off tool_use, and joins the text', async () => {
    const { deps, sent, ran } = scripted([
      reply([text('first half '), toolUse('cut', 'rm -rf build')], 'max_tokens'),
      reply([text('second half')], 'end_turn'),
    ]);
    const end = await agentLoop(start(), deps);
    expect(ran).toEqual([]);
    expect(end).toMatchObject({ kind: 'success', finalText: 'first half second half' });
    const second = sent[1]!;
    expect(second.at(-2)).toEqual({ role: 'assistant', content: [{ type: 'text', text: 'first half ' }] });
    expect(second.at(-1)!.role).toBe('user');
    expect(JSON.stringify(second)).not.toContain('rm -rf build');
  });

  it(`gives up after ${MAX_CONTINUATIONS} continuations`, async () => {
    const cut = () => reply([text('more')], 'max_tokens');
    const { deps, sent } = scripted([cut(), cut(), cut(), cut(), reply([text('never')], 'end_turn')]);
    const end = await agentLoop(start(), deps);
    expect(end.kind).toBe('max_tokens');
    expect(sent).toHaveLength(MAX_CONTINUATIONS + 1);
  });

  it('resends the conversation as it is after pause_turn', async () => {
    const { deps, sent } = scripted([reply([text('working  ')], 'pause_turn'), reply([text('ok')], 'end_turn')]);
    expect((await agentLoop(start(), deps)).kind).toBe('success');
    expect(sent[1]!.at(-1)).toEqual({ role: 'assistant', content: [{ type: 'text', text: 'working' }] });
  });

  it.each([
    ['refusal', 'refusal'],
    ['model_context_window_exceeded', 'context'],
  ] as const)('ends on %s', async (stopReason, kind) => {
    const { deps } = scripted([reply([text('no')], stopReason)]);
    expect((await agentLoop(start(), deps)).kind).toBe(kind);
  });

  it('stops at max turns without running the last requested tools', async () => {
    const { deps, sent, ran } = scripted(
      [
        reply([toolUse('a', 'true')], 'tool_use'),
        reply([toolUse('b', 'true')], 'tool_use'),
        reply([text('x')], 'end_turn'),
      ],
      { maxTurns: 2 },
    );
    const end = await agentLoop(start(), deps);
    expect(end.kind).toBe('max_turns');
    expect(sent).toHaveLength(2);
    expect(ran).toEqual(['a']);
  });

  it('drops empty text blocks, which the API would reject when sent back', async () => {
    const { deps, sent } = scripted([
      reply([text(''), toolUse('a', 'ls')], 'tool_use'),
      reply([text('ok')], 'end_turn'),
    ]);
    await agentLoop(start(), deps);
    expect(sent[1]![1]!.content).toEqual([{ type: 'tool_use', id: 'a', name: 'bash', input: { command: 'ls' } }]);
  });

  it('ends interrupted once stopped, with every tool_use of the reply answered', async () => {
    const controller = new AbortController();
    const { deps, ran } = scripted([reply([toolUse('a', 'x'), toolUse('b', 'y')], 'tool_use')], {
      signal: controller.signal,
      runTool: async (block, signal) => {
        if (signal.aborted) return { type: 'tool_result', tool_use_id: block.id, content: 'not run', is_error: true };
        ran.push(block.id);
        controller.abort(new Interrupted('SIGTERM'));
        return { type: 'tool_result', tool_use_id: block.id, content: 'x' };
      },
    });
    const messages = start();
    const end = await agentLoop(messages, deps);
    expect(end).toMatchObject({ kind: 'interrupted', signal: 'SIGTERM', turns: 1 });
    expect(ran).toEqual(['a']);
    const answered = (messages.at(-1)!.content as Anthropic.ToolResultBlockParam[]).map((block) => block.tool_use_id);
    expect(answered).toEqual(['a', 'b']);
  });

  it('ends the turn with its text when the reply says tool_use but holds no tool call', async () => {
    const { deps, sent, ran } = scripted([reply([text('all done')], 'tool_use')]);
    const messages = start();
    const end = await agentLoop(messages, deps);
    expect(end).toMatchObject({ kind: 'success', stopReason: 'tool_use', finalText: 'all done', turns: 1 });
    expect(ran).toEqual([]);
    expect(sent).toHaveLength(1);
    expect(messages.at(-1)!.role).toBe('assistant');
  });

  it('fits the context before every call, and ends with its message when the conversation cannot fit', async () => {
    const fits: number[] = [];
    const { deps, sent } = scripted([reply([toolUse('a', 'ls')], 'tool_use'), reply([text('never')], 'end_turn')], {
      context: {
        fit: (messages) => (
          fits.push(messages.length), messages.length < 3 ? { ok: true, elided: 0 } : { ok: false, message: 'too big' }
        ),
        observe: () => {},
      },
    });
    const end = await agentLoop(start(), deps);
    expect(fits).toEqual([1, 3]);
    expect(sent).toHaveLength(1);
    expect(end).toMatchObject({ kind: 'context', message: 'too big', turns: 1 });
  });

  it('turns a failed model call into an api_error outcome with its hint, keeping the last text', async () => {
    const replies = [reply([text('looking'), toolUse('a', 'ls')], 'tool_use')];
    const { deps } = scripted([], {
      callModel: async () => {
        const next = replies.shift();
        if (next) return { ok: true, message: next };
        return {
          ok: false,
          failure: {
            kind: 'api',
            message: '401 authentication_error: invalid x-api-key',
            hint: 'Check ANTHROPIC_API_KEY.',
            status: 401,
            requestId: undefined,
          },
        };
      },
    });
    const end = await agentLoop(start(), deps);
    expect(end).toMatchObject({ kind: 'api_error', finalText: 'looking', turns: 1 });
    expect(end.message).toBe(
      'API request failed: 401 authentication_error: invalid x-api-key\nCheck ANTHROPIC_API_KEY.',
    );
  });
});
