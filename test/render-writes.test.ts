// How the human renderer hands its text to stderr off a terminal: what one event shows goes out in one write, as soon
// as the event comes, and the bytes are those of the lines as they read.
import { describe, expect, it } from 'vitest';
import type { RunEvent } from '../src/events.js';
import { createHumanRenderer } from '../src/cli/render/human.js';
import { createStyle } from '../src/cli/render/style.js';
import { createRedactor } from '../src/sinks/redactor.js';

function renderer(verbose = false) {
  const writes: string[] = [];
  const render = createHumanRenderer({
    write: (text) => writes.push(text),
    style: createStyle(false),
    quiet: false,
    verbose,
    terminal: false,
    columns: 80,
    holdText: false,
    redactor: createRedactor([{ name: 'API_KEY', value: 'sk-secret-value' }]),
  });
  return { render, writes };
}

const commandEnd = (content: string): RunEvent => ({
  type: 'tool_end',
  id: 'toolu_1',
  command: 'make',
  content,
  isError: false,
  blocked: false,
  exitCode: 2,
  durationMs: 1_200,
});

describe('the human renderer off a terminal', () => {
  it('writes the echo as the command starts, then its preview and how it ended in one write', () => {
    const { render, writes } = renderer();
    render.onEvent({ type: 'request_start', turn: 1 });
    render.onEvent({ type: 'tool_start', id: 'toolu_1', command: 'make' });
    expect(writes).toEqual(['$ make\n']);
    render.onEvent(commandEnd('one\ntwo sk-secret-value'));
    expect(writes).toEqual(['$ make\n', '  │ one\n  │ two [redacted: API_KEY]\n  └ 1.2 s · exit code 2\n']);
    render.end();
    expect(writes).toHaveLength(2);
  });

  it('with -v, passes each piece of live output on as it comes', () => {
    const { render, writes } = renderer(true);
    render.onEvent({ type: 'tool_start', id: 'toolu_1', command: 'make' });
    render.onEvent({ type: 'tool_output', id: 'toolu_1', text: 'building' });
    expect(writes.join('')).toBe('$ make\nbuilding');
    render.onEvent({ type: 'tool_output', id: 'toolu_1', text: '…done\n' });
    render.onEvent(commandEnd('building…done'));
    expect(writes.slice(2)).toEqual(['…done\n', '  └ 1.2 s · exit code 2\n']);
  });
});
