import { fstatSync } from 'node:fs';
import { Command, CommanderError, Option } from 'commander';
import { resolveConfig, OUTPUT_FORMATS, type Config, type RawOptions } from './config.js';
import { fanOut, type EventSink } from '../events.js';
import { resolvePrompt } from './input.js';
import { stoppedOutcome, UsageError } from '../outcome.js';
import { createHumanRenderer } from './render/human.js';
import { createStreamJsonRenderer, resultLine } from './render/json.js';
import { colourWanted, createStyle } from './render/style.js';
import { installSignalHandlers, unlessAborted } from './interrupt.js';
import { resultBeforeRun, type ResultObject } from '../result.js';
import { openSession, type Session } from '../session/open.js';
import { armDeadline } from '../budget.js';
import type Anthropic from '@anthropic-ai/sdk';

declare const AGENT_VERSION: string;
/** Set by the bundler; unbundled runs (tests importing the source) fall back to a dev marker. */
const VERSION = typeof AGENT_VERSION === 'string' ? AGENT_VERSION : '0.0.0-dev';

/**
 * Runs the command. `earlySignals` are the SIGINT/SIGTERM that arrived while the CLI was still loading (the bin
 * shim holds them); they are delivered again once the real handlers are in place.
 */
export async function main(argv: string[], earlySignals: NodeJS.Signals[] = []): Promise<void> {
  const cleanups: Array<() => void> = [];
  // Last registered, first run: the commands are killed before their directories are removed.
  const cleanup = () => cleanups.splice(0).reverse().forEach((kill) => kill());
  process.on('exit', cleanup);
  const controller = new AbortController();
  installSignalHandlers(controller, cleanup);
  for (const signal of earlySignals) process.kill(process.pid, signal);
  try {
    await runCommand(argv, controller, cleanups);
  } catch (error) {
    // A bug, not a usage or API problem: say so plainly; the stack only on request.
    const debug = process.env.AGENT_DEBUG || argv.includes('--verbose') || argv.includes('-v');
    process.stderr.write(`agent: internal error: ${(error as Error)?.message ?? String(error)}\n`);
    if (debug && error instanceof Error && error.stack) process.stderr.write(`${error.stack}\n`);
    exit(1);
  }
}

async function runCommand(argv: string[], controller: AbortController, cleanups: Array<() => void>): Promise<void> {
  const startedAt = performance.now();
  process.stdout.on('error', ignoreBrokenPipe);

  const parsed = parseArguments(argv);
  if (parsed instanceof CommanderError) {
    if (parsed.exitCode === 0) return exit(0);
    // commander has already said what is wrong on stderr; the machine formats still get their result object.
    return failUsage(new UsageError(parsed.message.replace(/^error: /, '')), formatIn(argv), startedAt, false);
  }
  const { words, raw } = parsed;

  let config: Config;
  try {
    config = resolveConfig(raw);
  } catch (error) {
    return failUsage(error, raw.outputFormat, startedAt);
  }
  // The model's commands never see the API credentials.
  delete process.env.ANTHROPIC_API_KEY;
  delete process.env.ANTHROPIC_AUTH_TOKEN;

  const disarmDeadline = armDeadline(controller, config.budget, startedAt);
  const messages: Anthropic.MessageParam[] = [];
  let session: Session;
  try {
    const { session: options, cwd, model, transcriptPath } = config;
    session = openSession({ options, cwd, model, transcriptPath, agentVersion: VERSION, conversation: messages });
  } catch (error) {
    return failUsage(error, config.outputFormat, startedAt);
  }
  cleanups.push(session.release);
  const emit = await createSinks(config, session);
  session.log.warn = (message) => emit({ type: 'warning', message });
  for (const message of session.notes) emit({ type: 'warning', message });

  let result: ResultObject;
  try {
    // Reading stdin can take a while (a slow producer, or the wait for piped context); a signal ends it too.
    const prompt = await unlessAborted(
      resolvePrompt({
        words,
        promptFile: raw.promptFile,
        readStdin: raw.stdin !== false,
        stdin: process.stdin,
        warn: (message) => emit({ type: 'warning', message }),
      }),
      controller.signal,
    );
    const { runAgent } = await import('../run.js');
    result =
      prompt === undefined || controller.signal.aborted
        ? resultBeforeRun(stoppedOutcome(controller.signal), config.model, startedAt, session.id)
        : await runAgent({
            config,
            prompt,
            messages,
            emit,
            signal: controller.signal,
            registerCleanup: (kill) => cleanups.push(kill),
            startedAt,
            session: { id: session.id, describe: (shape) => session.log.describe(shape) },
          });
  } catch (error) {
    session.log.close();
    session.release();
    return failUsage(error, config.outputFormat, startedAt, true, session.id);
  }
  disarmDeadline();
  session.log.finish(result);
  session.release();
  if (result.error) process.stderr.write(`agent: ${result.error}\n`);
  await writeStdout(config.outputFormat === 'text' ? (result.is_error ? '' : `${result.result}\n`) : resultLine(result));
  exit(result.exit_code);
}

/** Returns the prompt words and raw options, or commander's error when it already answered (help, version, bad flag). */
function parseArguments(argv: string[]): { words: string[]; raw: RawOptions } | CommanderError {
  const program = new Command('agent')
    .description('A one-shot coding agent: gives a model a bash tool and runs it until the task is done.')
    .argument('[prompt...]', 'the task; without words, the prompt is read from stdin')
    .version(VERSION, '-V, --version')
    .option('-m, --model <id>', 'model id (default: MODEL_ID, ANTHROPIC_MODEL, or a current Sonnet)')
    .option('--max-turns <n>', 'at most n model calls; reaching it is exit 1', '100')
    .option('--max-tokens <n>', 'max_tokens of each model call', '16000')
    .option('-t, --timeout <seconds>', 'per-command time limit', '120')
    .option('--max-timeout <seconds>', 'the longest time limit the model may ask for', '600')
    .option('-C, --cwd <dir>', 'working directory of the run')
    .addOption(new Option('--output-format <format>', 'text, json or stream-json').default('text'))
    .option('--system-prompt <text>', 'replace the built-in system prompt')
    .option('--append-system-prompt <text>', 'append to the system prompt')
    .option('--allow <rule>', 'allow-list rule (repeatable): only commands matching a rule run', collect, [])
    .option('--deny <rule>', 'extra deny rule (repeatable)', collect, [])
    .option('--dangerously-skip-guard', 'turn off the built-in deny rules (--allow and --deny still apply)')
    .option('--sandbox', 'run every command under bubblewrap: read-only system, no network')
    .option('--transcript <file>', 'write the whole run as JSONL, in the session file format')
    .option('-r, --resume <session>', 'continue a saved session: its id, or a session or transcript file')
    .option('-c, --continue', 'continue the most recent session of this working directory')
    .option('--fork-session', 'with --resume or --continue: continue under a new session id, leaving the original as it was')
    .option('--no-session-persistence', 'save nothing under the state directory')
    .option('--max-budget-usd <n>', 'no model call starts once the run has cost n dollars; reaching it is exit 1')
    .option('--max-duration <seconds>', 'wall-clock limit of the whole run; reaching it is exit 1')
    .option('--no-stdin', 'never read stdin as context')
    .option('--env-file <path>', 'dotenv file to load (default: .env in the working directory)')
    .option('-f, --prompt-file <path>', 'read the prompt from a file (- for stdin)')
    .option('--no-cache', 'send no prompt-caching breakpoints')
    .option('--context-window <tokens>', "the model's context window, for budgeting", '200000')
    .option('-q, --quiet', 'only warnings and errors on stderr')
    .option('-v, --verbose', 'full command output on stderr')
    .addHelpText('after', `\nOutput formats: ${OUTPUT_FORMATS.join(', ')}. Exit codes: 0 done, 1 unfinished, 2 usage, 3 API failure, 130/143 interrupted.`)
    .showHelpAfterError('(run agent --help for usage)')
    .exitOverride()
    .configureOutput({ outputError: (text, write) => write(`agent: ${text.replace(/^error: /, '')}`) });
  try {
    program.parse(argv, { from: 'user' });
  } catch (error) {
    if (error instanceof CommanderError) return error;
    throw error;
  }
  return { words: program.args, raw: program.opts<RawOptions>() };
}

function collect(value: string, previous: string[]): string[] {
  return [...previous, value];
}

async function createSinks(config: Config, session: Session): Promise<EventSink> {
  // A terminal that reports no width (some pseudo-terminals) would send ora's line clearing into a loop.
  const interactive = Boolean(process.stderr.isTTY && process.stderr.columns > 0) && !config.quiet;
  const spinner = interactive ? await createSpinner() : undefined;
  const sinks: EventSink[] = [
    createHumanRenderer({
      write: (text) => process.stderr.write(text),
      style: createStyle(colourWanted(process.stderr, process.env)),
      quiet: config.quiet,
      verbose: config.verbose,
      ...(spinner ? { spinner } : {}),
      holdText: sameDestination(),
    }),
  ];
  if (config.outputFormat === 'stream-json') {
    const init = { session_id: session.id, model: config.model, cwd: config.cwd, tools: ['bash'] };
    sinks.push(createStreamJsonRenderer((line) => process.stdout.write(line), init));
  }
  sinks.push(session.log.onEvent);
  return fanOut(...sinks);
}

/** stdout and stderr lead to the same terminal, file or pipe (`>log 2>&1`), where the answer would show twice. */
function sameDestination(): boolean {
  try {
    const out = fstatSync(1);
    const err = fstatSync(2);
    return out.dev === err.dev && out.ino === err.ino && out.rdev === err.rdev;
  } catch {
    return false;
  }
}

async function createSpinner() {
  const { default: ora } = await import('ora');
  const spinner = ora({ stream: process.stderr, discardStdin: false });
  return {
    start: (text: string) => void spinner.start(text),
    stop: () => void spinner.stop(),
  };
}

/** The --output-format the words ask for, read without commander (for when commander itself failed). */
function formatIn(argv: string[]): string | undefined {
  let format: string | undefined;
  for (let i = 0; i < argv.length && argv[i] !== '--'; i++) {
    const word = argv[i]!;
    if (word === '--output-format') format = argv[i + 1];
    else if (word.startsWith('--output-format=')) format = word.slice('--output-format='.length);
  }
  return format;
}

async function failUsage(error: unknown, format: string | undefined, startedAt: number, tell = true, sessionId?: string): Promise<void> {
  if (!(error instanceof UsageError)) throw error;
  if (tell) process.stderr.write(`agent: ${error.message}\n`);
  if (format === 'json' || format === 'stream-json') {
    await writeStdout(resultLine(resultBeforeRun({ kind: 'usage', stopReason: null, finalText: '', message: error.message }, '', startedAt, sessionId)));
  }
  exit(2);
}

function writeStdout(text: string): Promise<void> {
  return new Promise((resolve) => {
    if (text === '') return resolve();
    process.stdout.write(text, () => resolve());
  });
}

function exit(code: number): void {
  // Wait for stderr as well; both may be slow pipes.
  process.stderr.write('', () => process.exit(code));
}

function ignoreBrokenPipe(error: NodeJS.ErrnoException): void {
  if (error.code !== 'EPIPE') throw error;
}
