// Masking as an attacker tries to get around it: a value that reaches the run's text by a path other than a
// command's output (the note about a directory that vanished, the model's own words, an API error message), and a
// value split by an escape sequence that a terminal or a control-stripping reader would join. Every sink is looked at:
// the requests to the model, stdout in each format, stderr, the session file and the transcript.
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { answer, bash, messageText, runAgent, toolResults, type AgentRun } from '../support/run-agent.js';
import { sessionsDirOf, useScratch } from '../support/session-files.js';
import type { RecordedRequest, TestServer, Turn } from '../support/server.js';
import { useServer } from '../support/use-server.js';

const serve = useServer();
const scratch = useScratch();

const TOKEN = 'ghp_attackSecretValue0123456789';
const API_KEY = 'sk-test-masking-0123456789abcdef';
const ENV = { GITHUB_TOKEN: TOKEN, ANTHROPIC_API_KEY: API_KEY };
const FORBIDDEN = [TOKEN, API_KEY];
/** What a terminal, or a reader that drops control characters, makes of text: escape sequences and controls gone. */
const CONTROLS =
  /\u001b\[[0-?]*[ -/]*[@-~]|\u001b\][^\u0007\u001b]*(?:\u0007|\u001b\\)|\u001b[@-_]|[\u0000-\u0008\u000b-\u001f\u007f-\u009f]/g;
const joined = (text: string) => text.replace(CONTROLS, '');

function expectNoSecret(text: string, where: string): void {
  for (const value of FORBIDDEN) {
    if (text.includes(value) || joined(text).includes(value)) {
      throw new Error(`${where} shows the secret ${JSON.stringify(value)}:\n${text.slice(0, 4_000)}`);
    }
  }
}

/** Every string inside the JSON lines of `text`, each as a terminal would show it once printed. */
function jsonStrings(text: string): string {
  const strings: string[] = [];
  const walk = (value: unknown): void => {
    if (typeof value === 'string') strings.push(value);
    else if (Array.isArray(value)) value.forEach(walk);
    else if (value !== null && typeof value === 'object') {
      for (const [key, inner] of Object.entries(value)) {
        strings.push(key);
        walk(inner);
      }
    }
  };
  for (const line of text.split('\n')) if (line.trim() !== '') walk(JSON.parse(line));
  return strings.join('\n');
}

interface Place {
  cwd: string;
  state: string;
  transcript: string;
}

function newPlace(): Place {
  const cwd = scratch('agent-mask-work-');
  return { cwd, state: scratch('agent-mask-state-'), transcript: join(cwd, 'transcript.jsonl') };
}

async function runIn(place: Place, s: TestServer, args: string[]): Promise<AgentRun> {
  return runAgent(['--transcript', place.transcript, ...args, 'go'], s.url, {
    cwd: place.cwd,
    env: { ...ENV, XDG_STATE_HOME: place.state },
  });
}

/**
 * Every sink of a finished run: requests (unless `s` is left out: the model's own words go back to it as they are),
 * stdout, stderr, the session files, the transcript.
 */
function expectNoSecretAnywhere(s: TestServer | undefined, place: Place, run: AgentRun, format: string): void {
  for (const request of s?.validRequests() ?? [])
    expectNoSecret(JSON.stringify(request.body), 'a request to the model');
  expectNoSecret(run.stderr, 'stderr');
  expectNoSecret(run.stdout, `stdout (${format})`);
  if (format !== 'text') expectNoSecret(jsonStrings(run.stdout), `the strings of stdout (${format})`);
  const sessions = sessionsDirOf(place.state);
  const files = readdirSync(sessions).filter((name) => name.endsWith('.jsonl'));
  expect(files).toHaveLength(1);
  for (const [where, path] of [
    ['the session file', join(sessions, files[0]!)],
    ['the transcript', place.transcript],
  ]) {
    const text = readFileSync(path!, 'utf8');
    expectNoSecret(text, where!);
    expectNoSecret(jsonStrings(text), `the strings of ${where}`);
  }
}

/** Every tool result of the conversation so far, in order. */
function allResults(request: RecordedRequest): string[] {
  const messages = request.body.messages as Array<{ role: string; content: unknown }>;
  return messages.flatMap((message) =>
    Array.isArray(message.content)
      ? (message.content as Array<{ type: string; content?: unknown }>)
          .filter((block) => block.type === 'tool_result')
          .map((block) => messageText(block.content))
      : [],
  );
}

const FORMATS = [['text'], ['json'], ['stream-json'], ['text', '-v'], ['stream-json', '-v']];

describe('a directory named after a secret, entered and then removed', () => {
  /** The value comes from the agent's own environment; the note about the vanished directory would name it. */
  const READ_AND_VANISH =
    `S=$(tr '\\0' '\\n' < /proc/$PPID/environ | sed -n 's/^GITHUB_TOKEN=//p'); echo "read \${#S} characters"; ` +
    'mkdir "$S" && cd "$S" && rmdir "$PWD"';
  const script = (): Turn[] => [
    bash(READ_AND_VANISH),
    bash('echo next'),
    (request) => answer(allResults(request).join('\n---\n')),
  ];

  it.each(FORMATS)('never gives the value back (%s %s)', async (format, flag) => {
    const place = newPlace();
    const s = await serve(script());
    const run = await runIn(place, s, ['--output-format', format!, ...(flag ? [flag] : [])]);
    expect(run.code).toBe(0);
    const [read, next] = s
      .validRequests()
      .slice(1)
      .map((request) => toolResults(request)[0]!.content);
    expect(read).toBe(`read ${TOKEN.length} characters`);
    expect(next).toMatch(/note: the directory .*\[redacted: GITHUB_TOKEN\] no longer exists/);
    expectNoSecretAnywhere(s, place, run, format!);
  });
});

describe('the model repeats a secret it should not know', () => {
  /** Split by a colour change: a terminal shows it whole, and so does text with its controls dropped. */
  const SPLIT = `${TOKEN.slice(0, 12)}\u001b[0m${TOKEN.slice(12)}`;
  const script = (): Turn[] => [
    {
      kind: 'message',
      content: [
        // Shown with -v, as it streams.
        { type: 'thinking', thinking: `Thinking of ${TOKEN} and ${SPLIT}.` },
        // Streamed in two deltas, cut inside the value.
        { type: 'text', text: `Found: ${TOKEN}` },
        { type: 'text', text: `and ${SPLIT}; ` },
        { type: 'tool_use', name: 'bash', input: { command: `echo ${TOKEN.slice(0, 12)}; # ${SPLIT} ${API_KEY}` } },
      ],
      chunkDelayMs: 5,
    },
    answer(
      `The token is ${TOKEN}, or ${SPLIT}, and the key ${API_KEY.slice(0, 9)}\u001b]8;;\u0007${API_KEY.slice(9)}.`,
    ),
  ];

  it.each(FORMATS)('in narration, the command echo and the answer (%s %s)', async (format, flag) => {
    const place = newPlace();
    const s = await serve(script());
    const run = await runIn(place, s, ['--output-format', format!, ...(flag ? [flag] : [])]);
    expect(run.code).toBe(0);
    expectNoSecretAnywhere(undefined, place, run, format!);
    expect(run.stderr).toContain('[redacted: GITHUB_TOKEN]');
    if (flag === '-v')
      expect(run.stderr).toContain('Thinking of [redacted: GITHUB_TOKEN] and [redacted: GITHUB_TOKEN].');
  });
});

describe('a command prints a secret split by an escape sequence', () => {
  it('reaches the model, stdout and stderr masked', async () => {
    const place = newPlace();
    const printed = `printf '%s\\033[0m%s\\n' '${TOKEN.slice(0, 10)}' '${TOKEN.slice(10)}'`;
    const s = await serve([bash(printed), (request) => answer(allResults(request).join('\n'))]);
    const run = await runIn(place, s, ['-v']);
    expect(run.code).toBe(0);
    expect(toolResults(s.validRequests()[1]!)[0]!.content).toBe('[redacted: GITHUB_TOKEN]');
    expectNoSecretAnywhere(s, place, run, 'text');
  });
});

describe('an API error that quotes the credential', () => {
  it.each([['text'], ['json']])('is masked on stderr and in the result (%s)', async (format) => {
    const place = newPlace();
    const message = `invalid x-api-key: ${API_KEY.slice(0, 8)}\u001b[1m${API_KEY.slice(8)} (${TOKEN})`;
    const s = await serve([{ kind: 'http_error', status: 401, message }]);
    const run = await runIn(place, s, ['--output-format', format!]);
    expect(run.code).toBe(3);
    expect(run.stderr).toContain('[redacted: ANTHROPIC_API_KEY]');
    expectNoSecret(run.stderr, 'stderr');
    expectNoSecret(run.stdout, 'stdout');
    if (format === 'json') expectNoSecret(jsonStrings(run.stdout), 'the strings of stdout');
    expectNoSecret(readFileSync(place.transcript, 'utf8'), 'the transcript');
  });
});
