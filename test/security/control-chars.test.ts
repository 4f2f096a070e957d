// Text from outside (the model, a command, an API error, a validator quoting the model's answer) carries escape
// sequences meant for whoever reads the output: a clipboard write, a link, a new window title, a cleared screen, a
// moved cursor, a carriage return that hides what came before. None of them may reach a terminal, a file or a log raw;
// JSON lines carry them escaped. The agent's own colours and spinner are the only escape sequences, on a terminal only.
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { answer, baseEnv, runAgent, tempDir, type AgentRun } from '../support/run-agent.js';
import { sessionsDirOf, useScratch } from '../support/session-files.js';
import type { Turn } from '../support/server.js';
import { runOnTerminal, screenOf } from '../support/terminal.js';
import { useServer } from '../support/use-server.js';

const serve = useServer();
const scratch = useScratch();

const ESC = '\u001b';
const HOSTILE = {
  clipboard: `${ESC}]52;c;cm0gLXJmIH4=${ESC}\\`,
  link: `${ESC}]8;;https://evil.example/${ESC}\\click${ESC}]8;;${ESC}\\`,
  title: `${ESC}]0;pwned\u0007`,
  clear: `${ESC}[2J${ESC}[H`,
  cursor: `${ESC}[5A${ESC}[2K`,
  blink: `${ESC}[5m`,
  csi8bit: '\u009b31m',
  hidden: 'rm -rf ~\rls     ',
  bell: '\u0007\u0008\u007f',
};
const ALL = Object.values(HOSTILE).join(' ');
/** Any C0 or C1 control but newline and tab. */
const RAW_CONTROL = /[\u0000-\u0008\u000b-\u001f\u007f-\u009f]/;

function expectNoRawControl(text: string, where: string): void {
  const at = text.search(RAW_CONTROL);
  if (at !== -1)
    throw new Error(
      `${where} carries a raw control character at ${at}: ${JSON.stringify(text.slice(Math.max(0, at - 40), at + 40))}`,
    );
}

/** A command that leaves the shell in a directory with escape sequences in its name, then removes that directory. */
const VANISH = `d=$(printf 'dir\\033]0;pwned\\007\\033[2J'); mkdir "$d" && cd "$d" && rmdir "$PWD"`;

const script = (): Turn[] => [
  {
    kind: 'message',
    content: [
      { type: 'thinking', thinking: `Thinking ${ALL} over.` },
      { type: 'text', text: `Narration ${ALL} ends.` },
      { type: 'tool_use', name: 'bash', input: { command: `echo hi # ${ALL}` } },
    ],
    chunkDelayMs: 5,
  },
  { kind: 'message', content: [{ type: 'tool_use', name: 'bash', input: { command: VANISH } }] },
  {
    kind: 'message',
    content: [
      {
        type: 'tool_use',
        name: 'bash',
        input: { command: `printf 'out ${HOSTILE.title.replace('\u0007', '\\a')} x\\n'; echo next` },
      },
    ],
  },
  answer(`The answer ${ALL} done.`),
];

function placeRun(args: string[]): {
  cwd: string;
  state: string;
  transcript: string;
  run: (url: string) => Promise<AgentRun>;
} {
  const cwd = scratch('agent-ctl-work-');
  const state = scratch('agent-ctl-state-');
  const transcript = join(cwd, 'transcript.jsonl');
  const run = (url: string) =>
    runAgent(['--transcript', transcript, ...args, 'go'], url, { cwd, env: { XDG_STATE_HOME: state } });
  return { cwd, state, transcript, run };
}

function expectCleanFiles(state: string, transcript: string): void {
  const sessions = sessionsDirOf(state);
  for (const name of readdirSync(sessions).filter((file) => file.endsWith('.jsonl'))) {
    expectNoRawControl(readFileSync(join(sessions, name), 'utf8'), 'the session file');
  }
  expectNoRawControl(readFileSync(transcript, 'utf8'), 'the transcript');
}

describe('off a terminal: pipes, files, a CI log', () => {
  it.each([[[]], [['-v']], [['-q']]])('text %j: stderr and stdout carry no raw control', async (flags) => {
    const s = await serve(script());
    const place = placeRun(flags);
    const run = await place.run(s.url);
    expect(run.code).toBe(0);
    expectNoRawControl(run.stderr, 'stderr');
    expectNoRawControl(run.stdout, 'stdout');
    expect(run.stdout).toContain('The answer');
    expect(run.stdout).toContain('click');
    // A carriage return that would hide the start of a line is a line break instead: both parts stay visible.
    expect(run.stdout).toContain('rm -rf ~\nls');
    if (!flags.includes('-q')) {
      expect(run.stderr).toContain('Narration');
      expect(run.stderr).toContain('$ echo hi # ');
    }
    // The preview shows the executor's note about the directory that vanished (-v shows the live output instead).
    if (flags.length === 0) expect(run.stderr).toMatch(/note: the directory .*dir.* no longer exists/);
    if (flags.includes('-v')) expect(run.stderr).toContain('Thinking');
    expectCleanFiles(place.state, place.transcript);
  });

  it.each([
    [['--output-format', 'json']],
    [['--output-format', 'stream-json']],
    [['--output-format', 'stream-json', '-v']],
  ])('%j: every line is JSON with its controls escaped, the text kept', async (flags) => {
    const s = await serve(script());
    const place = placeRun(flags);
    const run = await place.run(s.url);
    expect(run.code).toBe(0);
    expectNoRawControl(run.stdout, 'stdout');
    expectNoRawControl(run.stderr, 'stderr');
    const lines = run.stdout
      .trim()
      .split('\n')
      .map((line) => JSON.parse(line));
    // JSON keeps the model's text as it was: the escapes are in it, escaped.
    expect(lines.at(-1).result).toBe(`The answer ${ALL} done.`);
    expectCleanFiles(place.state, place.transcript);
  });
});

describe('on a terminal', () => {
  /** The agent's own sequences: its colours (bold, dim, red, yellow, cyan and their ends) and the spinner's. */
  const OWN =
    /\u001b\[(?:1|2|22|31|33|36|39)m|\u001b\[\?25[hl]|\u001b\[\?2026[hl]|\u001b\[1G|\u001b\[0K|\u001b\[2K|\r\n/g;

  it('shows the text, and no escape sequence but its own', async () => {
    const s = await serve(script());
    const dir = tempDir();
    const run = await runOnTerminal('$AGENT go > out.txt < /dev/null', { env: baseEnv(s.url), cwd: dir });
    expect(run.code).toBe(0);
    expectNoRawControl(run.bytes.replace(OWN, ''), 'the terminal');
    const screen = (await screenOf(run.bytes)).join('\n');
    expect(screen).toContain('Narration');
    expect(screen).toContain('The answer');
    expectNoRawControl(readFileSync(join(dir, 'out.txt'), 'utf8'), 'stdout in a file');
  });

  it('with stdout on the terminal too', async () => {
    const s = await serve(script());
    const run = await runOnTerminal('$AGENT go < /dev/null', { env: baseEnv(s.url), cwd: tempDir() });
    expect(run.code).toBe(0);
    expectNoRawControl(run.bytes.replace(OWN, ''), 'the terminal');
    expect((await screenOf(run.bytes)).join('\n')).toContain('The answer');
  });
});

describe('messages that quote text from outside', () => {
  it('an API error message', async () => {
    const s = await serve([{ kind: 'http_error', status: 400, message: `bad request ${ALL}` }]);
    const place = placeRun(['--output-format', 'json']);
    const run = await place.run(s.url);
    expect(run.code).toBe(3);
    expectNoRawControl(run.stderr, 'stderr');
    expect(run.stderr).toContain('bad request');
    expectNoRawControl(run.stdout, 'stdout');
    expect(JSON.parse(run.stdout).error).toContain('bad request');
  });

  it.each(['text', 'json'])(
    '--json-schema problems that quote the answer, as warnings and as the final error (%s)',
    async (format) => {
      const key = `k${HOSTILE.title}${HOSTILE.csi8bit}`;
      const notJson = `{"a": ${HOSTILE.clipboard}}`;
      const s = await serve([
        answer(JSON.stringify({ [key]: 1 })),
        answer(notJson),
        answer(JSON.stringify({ a: 'x', [key]: 2 })),
      ]);
      const schema = JSON.stringify({
        type: 'object',
        properties: { a: { type: 'string' } },
        additionalProperties: false,
      });
      const place = placeRun(['--json-schema', schema, '--output-format', format]);
      const run = await place.run(s.url);
      expect(run.code).toBe(1);
      expectNoRawControl(run.stderr, 'stderr');
      expect(run.stderr).toContain('must NOT have additional properties');
      expectNoRawControl(run.stdout, 'stdout');
      expectCleanFiles(place.state, place.transcript);
    },
  );
});
