// What a person sees, for every combination of stdout and stderr: a terminal, a file, a pipe, the same terminal,
// /dev/null. Terminal cases run on a real pseudo-terminal; the bytes are checked for cursor movements and the final
// screen line by line; files and pipes must hold exactly the expected bytes.
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { baseEnv, tempDir } from './support/run-agent.js';
import type { Turn } from './support/server.js';
import { normalised, overwrites, runOnTerminal, screenOf } from './support/terminal.js';
import { useServer } from './support/use-server.js';

const serve = useServer();

const NARRATION = 'Step 1: running a command.';
const ANSWER = 'THE-FINAL-ANSWER';
/** The narration and the answer stream in several pieces, with the spinner drawn between replies. */
const conversation = (): Turn[] => [
  {
    kind: 'message',
    content: [
      { type: 'text', text: NARRATION },
      { type: 'tool_use', name: 'bash', input: { command: 'echo looked' } },
    ],
    delayMs: 200,
    chunkDelayMs: 30,
  },
  { kind: 'message', content: [{ type: 'text', text: ANSWER }], delayMs: 200, chunkDelayMs: 30 },
];

const RULE = `── answer ${'─'.repeat(50)}`;
const SUMMARY = '2 turns · 1 command · N s · $N';
/** stderr on the terminal, the answer elsewhere: the answer's text streams as the last narration. */
const STREAMED = [NARRATION, '$ echo looked  N s', '  │ looked', ANSWER, SUMMARY];
/** Both on the terminal: the answer once, on stdout, set apart by a rule. */
const SHARED = [NARRATION, '$ echo looked  N s', '  │ looked', RULE, ANSWER, SUMMARY];
/** stderr in a file or a pipe: plain lines, how each command ended after its output. */
const LOG = `${NARRATION}\n$ echo looked\n  │ looked\n  └ N s\n${ANSWER}\n`;

interface Case {
  name: string;
  line: string;
  screen: string[];
  files?: Record<string, string>;
}

const CASES: Case[] = [
  { name: 'stdout and stderr on the same terminal', line: '$AGENT go', screen: SHARED },
  { name: 'stdout to a file', line: '$AGENT go > out.txt', screen: STREAMED, files: { 'out.txt': `${ANSWER}\n` } },
  {
    name: 'stdout to a pipe',
    line: '$AGENT go | cat > out.txt',
    screen: STREAMED,
    files: { 'out.txt': `${ANSWER}\n` },
  },
  { name: 'stdout to /dev/null', line: '$AGENT go > /dev/null', screen: STREAMED },
  { name: 'stderr to a file', line: '$AGENT go 2> err.txt', screen: [ANSWER], files: { 'err.txt': LOG } },
  {
    name: 'stderr to a pipe',
    line: '$AGENT go 2>&1 >/dev/tty | cat > err.txt',
    screen: [ANSWER],
    files: { 'err.txt': LOG },
  },
  { name: 'stderr to /dev/null', line: '$AGENT go 2> /dev/null', screen: [ANSWER] },
  { name: 'both to one file', line: '$AGENT go > log.txt 2>&1', screen: [], files: { 'log.txt': LOG } },
  { name: 'both to one pipe', line: '$AGENT go 2>&1 | cat > log.txt', screen: [], files: { 'log.txt': LOG } },
  {
    name: 'each to its own file',
    line: '$AGENT go > out.txt 2> err.txt',
    screen: [],
    files: { 'out.txt': `${ANSWER}\n`, 'err.txt': LOG },
  },
];

describe('every combination of stdout and stderr', () => {
  it.each(CASES)('$name', async ({ line, screen, files }) => {
    const server = await serve(conversation());
    const dir = tempDir();
    const run = await runOnTerminal(`{ ${line}; } < /dev/null`, { env: baseEnv(server.url), cwd: dir });
    expect(run.code).toBe(0);
    expect(overwrites(run.bytes)).toEqual([]);
    expect(normalised(await screenOf(run.bytes))).toEqual(screen);
    for (const [name, expected] of Object.entries(files ?? {})) {
      const bytes = readFileSync(join(dir, name), 'utf8');
      expect(bytes, `${name} holds no escape sequence`).not.toContain('\u001b');
      expect(normalised(bytes.split('\n')).join('\n'), name).toBe(expected);
    }
  });

  it('json to a file: the result object alone, the terminal as with text', async () => {
    const server = await serve(conversation());
    const dir = tempDir();
    const run = await runOnTerminal('$AGENT --output-format json go > out.json < /dev/null', {
      env: baseEnv(server.url),
      cwd: dir,
    });
    expect(run.code).toBe(0);
    expect(overwrites(run.bytes)).toEqual([]);
    expect(normalised(await screenOf(run.bytes))).toEqual(STREAMED);
    const text = readFileSync(join(dir, 'out.json'), 'utf8');
    expect(text.split('\n')).toHaveLength(2);
    expect(JSON.parse(text)).toMatchObject({ type: 'result', result: ANSWER, num_turns: 2, commands: 1 });
  });
});

describe('while a command runs on a terminal', () => {
  it('spins with the elapsed seconds beside the command, then shows its duration and exit code', async () => {
    const command = 'sleep 2.6; echo slept; exit 4';
    const server = await serve([
      { kind: 'message', content: [{ type: 'tool_use', name: 'bash', input: { command } }] },
      { kind: 'message', content: [{ type: 'text', text: ANSWER }] },
    ]);
    const run = await runOnTerminal(`$AGENT go > out.txt < /dev/null`, { env: baseEnv(server.url), cwd: tempDir() });
    expect(run.code).toBe(0);
    expect(overwrites(run.bytes)).toEqual([]);
    // The spinner's frames: the command, and from the first second on, the seconds.
    const frames = run.bytes.split('\u001b[?2026h').map((frame) => frame.replace(/\u001b\[[0-9;?]*[A-Za-z]/g, ''));
    expect(frames.some((frame) => frame.endsWith(`$ ${command}`))).toBe(true);
    expect(frames.some((frame) => frame.endsWith(`$ ${command}  1 s`))).toBe(true);
    expect(frames.some((frame) => frame.endsWith(`$ ${command}  2 s`))).toBe(true);
    const screen = await screenOf(run.bytes);
    expect(screen[0]).toMatch(new RegExp(`^\\$ ${escape(command)}  [2-9]\\.\\d s · exit code 4$`));
    expect(screen.slice(1)).toEqual([
      '  │ slept',
      ANSWER,
      expect.stringMatching(/^2 turns · 1 command · \d\.\d s · \$\d\.\d{4}$/),
    ]);
  });

  it('shows no spinner, rule or summary with -q: only the answer', async () => {
    const server = await serve(conversation());
    const run = await runOnTerminal('$AGENT -q go < /dev/null', { env: baseEnv(server.url), cwd: tempDir() });
    expect(run.code).toBe(0);
    expect(run.bytes).not.toContain('\u001b[?2026h');
    expect(await screenOf(run.bytes)).toEqual([ANSWER]);
  });
});

describe('colour', () => {
  const COLOUR = /\u001b\[[0-9;]*m/;

  it.each([
    ['no variable', {}, true],
    ['NO_COLOR empty', { NO_COLOR: '' }, true],
    ['NO_COLOR=1', { NO_COLOR: '1' }, false],
    ['FORCE_COLOR=0', { FORCE_COLOR: '0' }, false],
  ] as const)('on a terminal, %s: colour %s', async (_name, env, coloured) => {
    const server = await serve(conversation());
    const run = await runOnTerminal('$AGENT go < /dev/null', {
      env: { ...baseEnv(server.url), ...env },
      cwd: tempDir(),
    });
    expect(run.code).toBe(0);
    expect(COLOUR.test(run.bytes)).toBe(coloured);
    expect(normalised(await screenOf(run.bytes))).toEqual(SHARED);
  });

  it('off a terminal only with FORCE_COLOR, and never on stdout', async () => {
    const server = await serve([...conversation(), ...conversation(), ...conversation()]);
    const dir = tempDir();
    const plain = await runOnTerminal('$AGENT go > out.txt 2> err.txt < /dev/null', {
      env: baseEnv(server.url),
      cwd: dir,
    });
    expect(plain.code).toBe(0);
    expect(readFileSync(join(dir, 'err.txt'), 'utf8')).not.toMatch(COLOUR);
    const forced = await runOnTerminal('$AGENT go > out.txt 2> err.txt < /dev/null', {
      env: { ...baseEnv(server.url), FORCE_COLOR: '1' },
      cwd: dir,
    });
    expect(forced.code).toBe(0);
    const err = readFileSync(join(dir, 'err.txt'), 'utf8');
    expect(err).toMatch(COLOUR);
    expect(err.replace(/\u001b\[[0-9;]*m/g, '')).toContain('$ echo looked\n');
    expect(readFileSync(join(dir, 'out.txt'), 'utf8')).toBe(`${ANSWER}\n`);
    // FORCE_COLOR wins over NO_COLOR, as in Node itself (which says so in a warning of its own).
    const both = await runOnTerminal('$AGENT go > out.txt 2> err.txt < /dev/null', {
      env: { ...baseEnv(server.url), FORCE_COLOR: '1', NO_COLOR: '1' },
      cwd: dir,
    });
    expect(both.code).toBe(0);
    expect(readFileSync(join(dir, 'err.txt'), 'utf8')).toMatch(COLOUR);
  });
});

function escape(text: string): string {
  return text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
}
