// How the human renderer hands its text to stderr off a terminal: what one event shows goes out in one write, as soon
// as the event comes, and the bytes are those of the lines as they read. A command's echo waits up to 50 ms for the
// command's end, so that a quick command is one write.
import { afterEach, describe, expect, it, vi } from 'vitest';
import type { RunEvent } from '../src/events.js';
import { createHumanRenderer } from '../src/cli/render/human.js';
import { createStyle } from '../src/cli/render/style.js';
import { createRedactor } from '../src/sinks/redactor.js';
import { answer, bash, runAgent } from './support/run-agent.js';
import { useServer } from './support/use-server.js';

const serve = useServer();
afterEach(() => {
  vi.useRealTimers();
});

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
  it('writes a quick command, its echo, preview and how it ended, in one write', () => {
    const { render, writes } = renderer();
    render.onEvent({ type: 'request_start', turn: 1 });
    render.onEvent({ type: 'tool_start', id: 'toolu_1', command: 'make' });
    expect(writes).toEqual([]);
    render.onEvent(commandEnd('one\ntwo sk-secret-value'));
    expect(writes).toEqual(['$ make\n  │ one\n  │ two [redacted: API_KEY]\n  └ 1.2 s · exit code 2\n']);
    render.end();
    expect(writes).toHaveLength(1);
  });

  it('writes the echo of a command still running after 50 ms, then the rest when it ends', () => {
    vi.useFakeTimers();
    const { render, writes } = renderer();
    render.onEvent({ type: 'tool_start', id: 'toolu_1', command: 'make' });
    vi.advanceTimersByTime(49);
    expect(writes).toEqual([]);
    vi.advanceTimersByTime(1);
    expect(writes).toEqual(['$ make\n']);
    render.onEvent(commandEnd('one'));
    expect(writes).toEqual(['$ make\n', '  │ one\n  └ 1.2 s · exit code 2\n']);
  });

  it('writes a held echo at once with anything shown meanwhile, and on flush', () => {
    const { render, writes } = renderer();
    render.onEvent({ type: 'tool_start', id: 'toolu_1', command: 'make' });
    render.onEvent({ type: 'warning', message: 'disk almost full' });
    expect(writes).toEqual(['$ make\nwarning: disk almost full\n']);
    render.onEvent({ type: 'tool_start', id: 'toolu_2', command: 'make test' });
    render.flush();
    expect(writes.at(-1)).toBe('$ make test\n');
  });

  it('with -v, passes each piece of live output on as it comes', () => {
    const { render, writes } = renderer(true);
    render.onEvent({ type: 'tool_start', id: 'toolu_1', command: 'make' });
    render.onEvent({ type: 'tool_output', id: 'toolu_1', text: 'building' });
    expect(writes).toEqual(['$ make\nbuilding']);
    render.onEvent({ type: 'tool_output', id: 'toolu_1', text: '…done\n' });
    render.onEvent(commandEnd('building…done'));
    expect(writes.slice(1)).toEqual(['…done\n', '  └ 1.2 s · exit code 2\n']);
  });
});

describe('through the binary, stderr a pipe', () => {
  it("shows a long command's echo as it starts, long before the command ends", async () => {
    const s = await serve([bash('sleep 1; echo finished'), answer('done')]);
    let text = '';
    let echoAt: number | undefined;
    let endAt: number | undefined;
    const run = await runAgent(['go'], s.url, {
      onSpawn: (child) =>
        child.stderr!.on('data', (chunk) => {
          text += String(chunk);
          if (echoAt === undefined && text.includes('$ sleep 1; echo finished')) echoAt = performance.now();
          if (endAt === undefined && text.includes('│ finished')) endAt = performance.now();
        }),
    });
    expect(run.code).toBe(0);
    expect(endAt! - echoAt!).toBeGreaterThan(700);
  });
});
