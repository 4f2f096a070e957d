import { spawn } from 'node:child_process';
import { mkdtempSync, readFileSync, realpathSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { checkedOutput, jsonModeOf } from './output-schema.js';
import type { RecordedRequest, Turn } from './server.js';
import { testStateHome } from './state-home.js';

export const AGENT_BIN = resolve(import.meta.dirname, '../../bin/agent');

export interface AgentRun {
  pid: number | undefined;
  code: number | null;
  signal: NodeJS.Signals | null;
  stdout: string;
  stderr: string;
  durationMs: number;
}

export interface AgentOptions {
  cwd?: string;
  /** Replaces the default environment entries of the same name; `undefined` removes one. */
  env?: Record<string, string | undefined>;
  /** Text written to stdin then closed; 'ignore' gives /dev/null; 'open' leaves a pipe that is never written or closed. */
  stdin?: string | 'ignore' | 'open';
  timeoutMs?: number;
  /** Called once the process has started, e.g. to send it a signal later. */
  onSpawn?: (child: import('node:child_process').ChildProcess) => void;
  nodeArgs?: string[];
  /** Another `agent` to run than this checkout's bin/agent: an installed one, say. */
  bin?: string;
  /**
   * In json and stream-json modes every line printed is checked against the published schemas in schema/ (the run's
   * promise rejects otherwise); false turns that off, for a test that looks at broken output on purpose.
   */
  checkOutput?: boolean;
  /** Descriptors the agent inherits beyond stdio, by the number it sees them as: an open file's descriptor, or 'pipe'. */
  extraStdio?: Record<number, number | 'pipe'>;
}

/**
 * A clean environment: nothing from the developer's own Anthropic settings leaks into a test, and sessions are saved
 * under a state directory of the test file's own, never the real home's.
 */
export function baseEnv(serverUrl: string, stateHome: string = testStateHome()): Record<string, string> {
  return {
    PATH: process.env.PATH ?? '/usr/bin:/bin',
    HOME: process.env.HOME ?? '/root',
    LANG: 'C.UTF-8',
    ANTHROPIC_BASE_URL: serverUrl,
    ANTHROPIC_API_KEY: 'test-key',
    AGENT_RETRY_BASE_MS: '10',
    // The suite's own temporary directory (test/support/temp-root.ts), so that what a run leaves behind is seen.
    TMPDIR: tmpdir(),
    XDG_STATE_HOME: stateHome,
  };
}

/** Spawns the real bin/agent and collects everything it printed. */
export function runAgent(args: string[], serverUrl: string, options: AgentOptions = {}): Promise<AgentRun> {
  const env: Record<string, string> = { ...baseEnv(serverUrl) };
  for (const [name, value] of Object.entries(options.env ?? {})) {
    if (value === undefined) delete env[name];
    else env[name] = value;
  }
  const started = performance.now();
  const stdinMode = options.stdin === undefined || options.stdin === 'ignore' ? 'ignore' : 'pipe';
  // Run through the shebang, as a user would; node flags (for memory limits, say) need node itself.
  const [command, argv] = options.nodeArgs
    ? [process.execPath, [...options.nodeArgs, '--', options.bin ?? AGENT_BIN, ...args]]
    : [options.bin ?? AGENT_BIN, args];
  const child = spawn(command, argv, {
    cwd: options.cwd ?? tempDir(),
    env,
    stdio: [stdinMode, 'pipe', 'pipe', ...extraDescriptors(options.extraStdio ?? {})],
  });
  options.onSpawn?.(child);
  if (typeof options.stdin === 'string' && options.stdin !== 'ignore' && options.stdin !== 'open')
    child.stdin?.end(options.stdin);
  let stdout = '';
  let stderr = '';
  child.stdout!.setEncoding('utf8').on('data', (chunk: string) => (stdout += chunk));
  child.stderr!.setEncoding('utf8').on('data', (chunk: string) => (stderr += chunk));
  return new Promise((resolvePromise, reject) => {
    const timer = setTimeout(() => {
      child.kill('SIGKILL');
      reject(
        new Error(`agent did not exit within ${options.timeoutMs ?? 20_000} ms\nstdout: ${stdout}\nstderr: ${stderr}`),
      );
    }, options.timeoutMs ?? 20_000);
    child.on('error', reject);
    child.on('close', (code, signal) => {
      clearTimeout(timer);
      child.stdin?.destroy();
      try {
        checkJsonOutput(args, options, { code, stdout });
      } catch (error) {
        return reject(error);
      }
      resolvePromise({ pid: child.pid, code, signal, stdout, stderr, durationMs: performance.now() - started });
    });
  });
}

function extraDescriptors(extra: Record<number, number | 'pipe'>): Array<number | 'pipe' | 'ignore'> {
  const highest = Math.max(2, ...Object.keys(extra).map(Number));
  return Array.from({ length: highest - 2 }, (_, index) => extra[index + 3] ?? 'ignore');
}

/** A run that ended on its own (not killed, not cut off by a closed pipe) printed whole lines, each valid against schema/. */
function checkJsonOutput(args: string[], options: AgentOptions, run: { code: number | null; stdout: string }): void {
  const mode = jsonModeOf(args);
  const printsHelp = args.some((arg) => ['-h', '--help', '-V', '--version'].includes(arg));
  if (mode === undefined || options.checkOutput === false || printsHelp || run.code === null || run.code === 141)
    return;
  checkedOutput(run.stdout, mode);
}

const madeDirs = new Set<string>();

/** A new temporary directory, removed after the test file that made it (test/support/remove-temp-dirs.ts). */
export function tempDir(prefix = 'agent-test-'): string {
  const dir = realpathSync(mkdtempSync(join(tmpdir(), prefix)));
  madeDirs.add(dir);
  return dir;
}

/** Removes every directory tempDir() made so far. */
export function removeTempDirs(): void {
  for (const dir of madeDirs) rmSync(dir, { recursive: true, force: true });
  madeDirs.clear();
}

/** A turn in which the model asks for one command. */
export function bash(command: string, extra: Record<string, unknown> = {}): Turn {
  return { kind: 'message', content: [{ type: 'tool_use', name: 'bash', input: { command, ...extra } }] };
}

/** A turn in which the model gives its final answer. */
export function answer(text: string): Turn {
  return { kind: 'message', content: [{ type: 'text', text }], stop_reason: 'end_turn' };
}

/** The tool_result blocks of the last user message of a request. */
export function toolResults(
  request: RecordedRequest,
): Array<{ tool_use_id: string; content: string; is_error?: boolean }> {
  const messages = request.body.messages as Array<{ role: string; content: unknown }>;
  const last = messages.at(-1);
  if (!last || !Array.isArray(last.content)) return [];
  return (last.content as Array<Record<string, unknown>>)
    .filter((block) => block.type === 'tool_result')
    .map((block) => ({
      tool_use_id: String(block.tool_use_id),
      content: messageText(block.content),
      ...(block.is_error === true ? { is_error: true } : {}),
    }));
}

/** The text of message or tool_result content, whether a string or a list of blocks. */
export function messageText(content: unknown): string {
  if (typeof content === 'string') return content;
  if (Array.isArray(content)) return content.map((block: { text?: string }) => block.text ?? '').join('');
  return '';
}

/** A dynamic turn that answers with whatever the last command printed. */
export function answerWithLastResult(prefix = ''): Turn {
  return (request) => answer(`${prefix}${toolResults(request)[0]?.content ?? '(none)'}`);
}

/** The records of a session or transcript file, parsed line by line; tests read arbitrary fields of them. */
export function readRecords(path: string): any[] {
  return readFileSync(path, 'utf8')
    .trim()
    .split('\n')
    .map((line) => JSON.parse(line));
}
