// A real pseudo-terminal for tests (util-linux `script`), the screen it ends with (xterm's headless emulator), and a
// check of the cursor movements in what it received.
import { spawn } from 'node:child_process';
import xterm from '@xterm/headless';
import { AGENT_BIN } from './run-agent.js';

export const COLUMNS = 100;
const ROWS = 40;

export interface TerminalRun {
  code: number | null;
  /** Every byte the terminal received (its output side: newlines arrive as CR LF). */
  bytes: string;
}

/**
 * Runs a bash command line with stdin, stdout and stderr on a pseudo-terminal of 100 × 40, as a person at a terminal
 * would; `$AGENT` in it is bin/agent. Redirections in the line give the other combinations (`> out.txt`, `| cat`).
 */
export function runOnTerminal(
  commandLine: string,
  options: { env: Record<string, string>; cwd: string; timeoutMs?: number },
): Promise<TerminalRun> {
  const env = { ...options.env, AGENT: AGENT_BIN, TERM: options.env.TERM ?? 'xterm-256color' };
  const child = spawn('script', ['-qec', `stty cols ${COLUMNS} rows ${ROWS}; ${commandLine}`, '/dev/null'], {
    cwd: options.cwd,
    env,
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let bytes = '';
  child.stdout.setEncoding('utf8').on('data', (chunk: string) => (bytes += chunk));
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => {
      child.kill('SIGKILL');
      reject(new Error(`the terminal run did not end within ${options.timeoutMs ?? 20_000} ms; it showed:\n${bytes}`));
    }, options.timeoutMs ?? 20_000);
    child.on('close', (code) => {
      clearTimeout(timer);
      resolve({ code, bytes });
    });
  });
}

/** The screen once every byte is shown: one string per line (a wrapped line joined back), no trailing blank lines. */
export function screenOf(bytes: string): Promise<string[]> {
  const terminal = new xterm.Terminal({ cols: COLUMNS, rows: ROWS, scrollback: 5_000, allowProposedApi: true });
  return new Promise((resolve) => {
    terminal.write(bytes, () => {
      const buffer = terminal.buffer.active;
      const lines: string[] = [];
      for (let row = 0; row < buffer.length; row++) {
        const line = buffer.getLine(row)!;
        const text = line.translateToString(true);
        if (line.isWrapped && lines.length > 0) lines[lines.length - 1] += text;
        else lines.push(text);
      }
      while (lines.length > 0 && lines.at(-1) === '') lines.pop();
      terminal.dispose();
      resolve(lines);
    });
  });
}

const SGR = /^\u001b\[[0-9;]*m/;
const CURSOR_VISIBILITY = /^\u001b\[\?25[hl]/;
/** One frame of a spinner: drawn inside a synchronized-output bracket, from column 1. */
const SPINNER_FRAME =
  /^\u001b\[\?2026h\u001b\[1G(?:\u001b\[0K)?[^\u001b\r\n]*(?:\u001b\[[0-9;]*m[^\u001b\r\n]*)*\u001b\[\?2026l/;
/** The spinner's line erased. */
const SPINNER_CLEAR = /^\u001b\[1G\u001b\[0K/;
const ANY_ESCAPE = /^(?:\u001b\[[?0-9;]*[A-Za-z]|\u001b[^[])/;

/**
 * The ways in which the bytes could move over text already written, as readable strings; none is the rule. The one
 * line that may be drawn over is the spinner's: each of its frames starts at column 1 of a line that holds nothing
 * else, and an erase follows a frame. Colours and showing or hiding the cursor are fine anywhere; any other cursor
 * movement, and a carriage return that is not part of a newline, is a problem.
 */
export function overwrites(bytes: string): string[] {
  const problems: string[] = [];
  let lineHasText = false;
  let lastWasFrame = false;
  let rest = bytes;
  const where = () =>
    JSON.stringify(bytes.slice(Math.max(0, bytes.length - rest.length - 40), bytes.length - rest.length + 20));
  while (rest.length > 0) {
    const match = (pattern: RegExp) => pattern.exec(rest)?.[0];
    let token: string | undefined;
    if ((token = match(SGR) ?? match(CURSOR_VISIBILITY))) {
      // Neither moves the cursor.
    } else if ((token = match(SPINNER_FRAME))) {
      if (lineHasText) problems.push(`a spinner frame drawn over text on its line at ${where()}`);
      lastWasFrame = true;
    } else if ((token = match(SPINNER_CLEAR))) {
      if (!lastWasFrame || lineHasText) problems.push(`a line erased that was not the spinner's at ${where()}`);
      lastWasFrame = false;
    } else if ((token = match(ANY_ESCAPE))) {
      problems.push(`a cursor movement ${JSON.stringify(token)} at ${where()}`);
    } else if (rest.startsWith('\r\n')) {
      token = '\r\n';
      if (lastWasFrame) problems.push(`a newline after a spinner frame left on screen at ${where()}`);
      lineHasText = false;
      lastWasFrame = false;
    } else if (rest.startsWith('\r')) {
      token = '\r';
      problems.push(`a carriage return at ${where()}`);
    } else {
      token = rest[0]!;
      if (lastWasFrame) problems.push(`text written after a spinner frame, on its line, at ${where()}`);
      lineHasText = true;
    }
    rest = rest.slice(token.length);
  }
  if (lastWasFrame) problems.push('a spinner frame left on screen at the end');
  return problems;
}

/** Durations and costs vary from run to run: `0.0 s` → `N s`, `$0.0034` → `$N`. */
export function normalised(lines: string[]): string[] {
  return lines.map((line) => line.replace(/\d+(\.\d)? s\b/g, 'N s').replace(/\$\d+\.\d+/g, '$N'));
}
