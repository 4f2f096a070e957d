// When stdout cannot be written: its reader gone (EPIPE) stops the run silently with 141; anything else (a full
// disk) is one plain line on stderr and exit 1. Through real shell pipelines and /dev/full.
import { spawn } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { waitUntil } from './support/processes.js';
import { AGENT_BIN, answer, baseEnv, bash, tempDir } from './support/run-agent.js';
import type { StaticTurn, Turn } from './support/server.js';
import { useServer } from './support/use-server.js';

const serve = useServer();

interface ShellRun {
  /** The agent's own exit status, from PIPESTATUS or $?. */
  agentCode: number;
  stdout: string;
  stderr: string;
  durationMs: number;
}

/** Runs a bash line in which `$AGENT` is bin/agent; `status` is where the line writes the agent's exit status. */
function runShell(line: string, serverUrl: string, cwd: string): Promise<ShellRun> {
  const started = performance.now();
  const child = spawn('bash', ['-c', `${line}; echo "$STATUS" > status`], {
    cwd,
    env: { ...baseEnv(serverUrl), AGENT: AGENT_BIN },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let stdout = '';
  let stderr = '';
  child.stdout.setEncoding('utf8').on('data', (chunk: string) => (stdout += chunk));
  child.stderr.setEncoding('utf8').on('data', (chunk: string) => (stderr += chunk));
  return new Promise((resolve) =>
    child.on('close', () =>
      resolve({
        agentCode: Number(readFileSync(join(cwd, 'status'), 'utf8')),
        stdout,
        stderr,
        durationMs: performance.now() - started,
      }),
    ),
  );
}

/** What reads the agent's stdout: `head -1`, then nothing (the marker file says when), however slowly head goes. */
const HEAD_THEN_GONE = '(head -1; exec 0<&-; : > reader-gone)';

/** `turn`, once the pipe's reader has gone: the reply whose line is the agent's first write to a closed pipe. */
function whenReaderGone(dir: string, turn: StaticTurn): Turn {
  return async () => {
    await waitUntil(() => existsSync(join(dir, 'reader-gone')), 10_000);
    return turn;
  };
}

/** A run that would take long: a first reply, then a command of 30 s, then more. */
const longRun = (dir: string): Turn[] => [
  whenReaderGone(dir, {
    kind: 'message',
    content: [
      { type: 'text', text: 'Working on it.' },
      { type: 'tool_use', name: 'bash', input: { command: 'touch started; sleep 30' } },
    ],
  }),
  bash('sleep 30'),
  answer('never reached'),
];

describe('stdout whose reader went away (EPIPE)', () => {
  it('agent --output-format stream-json … | head -1: stops at its next line, silently, exit 141, transcript complete', async () => {
    const dir = tempDir();
    const s = await serve(longRun(dir));
    const run = await runShell(
      `"$AGENT" --output-format stream-json --transcript t.jsonl go | ${HEAD_THEN_GONE}; STATUS=\${PIPESTATUS[0]}`,
      s.url,
      dir,
    );
    expect(run.agentCode).toBe(141);
    expect(JSON.parse(run.stdout)).toMatchObject({ type: 'system', subtype: 'init' });
    expect(run.durationMs).toBeLessThan(10_000);
    // Stopped like an interrupt: no further request, the command never started.
    expect(s.validRequests()).toHaveLength(1);
    expect(existsSync(join(dir, 'started'))).toBe(false);
    expect(run.stderr).not.toMatch(/agent:|Error|EPIPE|\n\s+at /);
    const records = readFileSync(join(dir, 't.jsonl'), 'utf8')
      .trim()
      .split('\n')
      .map((line) => JSON.parse(line));
    expect(records.at(-1)).toMatchObject({ type: 'result', subtype: 'error_interrupted', exit_code: 141 });
  });

  it('agent … 2>&1 | head -1: stderr on the same pipe finds out first, and the run stops there', async () => {
    const dir = tempDir();
    const s = await serve([
      {
        kind: 'message',
        content: [
          { type: 'text', text: 'First line.' },
          { type: 'tool_use', name: 'bash', input: { command: 'true' } },
        ],
      },
      whenReaderGone(dir, {
        kind: 'message',
        content: [{ type: 'tool_use', name: 'bash', input: { command: 'touch started; sleep 30' } }],
      }),
      answer('never reached'),
    ]);
    const run = await runShell(`"$AGENT" go 2>&1 | ${HEAD_THEN_GONE}; STATUS=\${PIPESTATUS[0]}`, s.url, dir);
    expect(run.agentCode).toBe(141);
    expect(run.stdout).toBe('First line.\n');
    expect(run.durationMs).toBeLessThan(10_000);
    // Found out at the first write after head went: the echo of the first command, or the second reply.
    expect(s.validRequests().length).toBeLessThanOrEqual(2);
    expect(existsSync(join(dir, 'started'))).toBe(false);
  });

  it('a text answer whose reader is gone: exit 141, nothing said', async () => {
    const s = await serve([bash('echo hi'), answer('the answer')]);
    const run = await runShell('"$AGENT" go | true; STATUS=${PIPESTATUS[0]}', s.url, tempDir());
    expect(run.agentCode).toBe(141);
    expect(run.stderr).not.toMatch(/agent:|Error|EPIPE|\n\s+at /);
    expect(run.stderr).toContain('$ echo hi');
  });
});

describe('stdout that cannot be written (a full disk)', () => {
  it.each([
    ['text', ['-q', 'go']],
    ['json', ['-q', '--output-format', 'json', 'go']],
    ['stream-json', ['-q', '--output-format', 'stream-json', 'go']],
  ])('%s > /dev/full: one plain line, exit 1', async (_format, args) => {
    const s = await serve([bash('echo hi'), answer('the answer')]);
    const run = await runShell(`"$AGENT" ${args.join(' ')} > /dev/full; STATUS=$?`, s.url, tempDir());
    expect(run.agentCode).toBe(1);
    expect(run.stderr).toBe('agent: cannot write the result to stdout: no space left on device (ENOSPC)\n');
    // The run itself went on to its end.
    expect(s.validRequests()).toHaveLength(2);
  });
});

describe('stderr that cannot be written', () => {
  it.each([
    ['a full disk', '2> /dev/full'],
    ['a reader gone', '2> >(true)'],
  ])('%s: the run goes on without it, and the answer still reaches stdout', async (_name, redirection) => {
    const s = await serve([bash('seq 1000'), answer('the answer')]);
    const run = await runShell(`"$AGENT" go ${redirection}; STATUS=$?`, s.url, tempDir());
    expect(run.agentCode).toBe(0);
    expect(run.stdout).toBe('the answer\n');
    expect(s.validRequests()).toHaveLength(2);
  });
});
