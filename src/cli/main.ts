import { CommanderError } from 'commander';
import { resolveConfig, type Config } from './config.js';
import { resolvePrompt } from './input.js';
import { stoppedOutcome, UsageError } from '../outcome.js';
import { resultLine } from './render/json.js';
import { installSignalHandlers, stopRun, unlessAborted } from './interrupt.js';
import { parseArguments } from './program.js';
import { watchStderr, watchStdout, writeStderr, type Stdout } from './streams.js';
import { resultBeforeRun, type ResultObject } from '../result.js';
import { Transcript } from '../transcript.js';
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
  // stdout's reader gone stops the run like a signal; any other failure is reported once the result is due.
  const brokenPipe = () => stopRun(controller, 'EPIPE', cleanup);
  const stdout = watchStdout(process.stdout, (failure) => failure.kind === 'broken_pipe' && brokenPipe());
  watchStderr(brokenPipe);
  for (const signal of earlySignals) process.kill(process.pid, signal);
  try {
    await runCommand(argv, controller, cleanups, stdout);
  } catch (error) {
    // A bug, not a usage or API problem: say so plainly; the stack only on request.
    const debug = process.env.AGENT_DEBUG || argv.includes('--verbose') || argv.includes('-v');
    writeStderr(`agent: internal error: ${(error as Error)?.message ?? String(error)}\n`);
    if (debug && error instanceof Error && error.stack) writeStderr(`${error.stack}\n`);
    exit(1);
  }
}

async function runCommand(argv: string[], controller: AbortController, cleanups: Array<() => void>, stdout: Stdout): Promise<void> {
  const startedAt = performance.now();
  const failUsage = (error: unknown, format: string | undefined, tell = true) => usageFailure(error, format, startedAt, stdout, tell);

  const parsed = parseArguments(argv, VERSION);
  if (parsed instanceof CommanderError) {
    if (parsed.exitCode === 0) return exit(0);
    // commander has already said what is wrong on stderr; the machine formats still get their result object.
    return failUsage(new UsageError(parsed.message.replace(/^error: /, '')), formatIn(argv), false);
  }
  const { words, raw } = parsed;

  let config: Config;
  try {
    config = resolveConfig(raw);
  } catch (error) {
    return failUsage(error, raw.outputFormat);
  }
  const messages: Anthropic.MessageParam[] = [];
  let transcript: Transcript | undefined;
  try {
    transcript = config.transcriptPath ? Transcript.open(config.transcriptPath, messages) : undefined;
  } catch (error) {
    return failUsage(new UsageError(`Cannot write transcript ${config.transcriptPath}: ${(error as Error).message}`), config.outputFormat);
  }
  const { openOutput } = await import('./output.js');
  const output = await openOutput(config, stdout, transcript, (cleanup) => cleanups.push(cleanup));
  const emit = output.emit;
  for (const message of config.warnings) emit({ type: 'warning', message });

  let result: ResultObject;
  try {
    // Checked before the prompt is read, so a bad schema fails at once; the validator loads only with the flag.
    const structured = config.jsonSchema === undefined ? undefined : (await import('../structured/index.js')).prepareStructuredAnswer(config.jsonSchema, emit);
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
        ? resultBeforeRun(stoppedOutcome(controller.signal), config.model, startedAt)
        : await runAgent({
            config,
            prompt,
            messages,
            emit,
            signal: controller.signal,
            registerCleanup: (kill) => cleanups.push(kill),
            startedAt,
            structured,
          });
  } catch (error) {
    transcript?.close();
    return failUsage(error, config.outputFormat);
  }
  transcript?.write(result);
  transcript?.close();
  exit(await output.finish(result));
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

async function usageFailure(error: unknown, format: string | undefined, startedAt: number, stdout: Stdout, tell: boolean): Promise<void> {
  if (!(error instanceof UsageError)) throw error;
  if (tell) writeStderr(`agent: ${error.message}\n`);
  if (format === 'json' || format === 'stream-json') {
    await stdout.flush(resultLine(resultBeforeRun({ kind: 'usage', stopReason: null, finalText: '', message: error.message }, '', startedAt)));
  }
  exit(2);
}

function exit(code: number): void {
  // Wait for stderr as well; both may be slow pipes.
  process.stderr.write('', () => process.exit(code));
}
