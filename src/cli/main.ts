import { fstatSync } from 'node:fs';
import type Anthropic from '@anthropic-ai/sdk';
import { armDeadline } from '../budget.js';
import type { EventSink } from '../events.js';
import { stoppedOutcome, UsageError, type Outcome } from '../outcome.js';
import type { RunReport } from '../result.js';
import { openSession, type Session } from '../session/open.js';
import type { Config, Variables } from '../config.js';
import { prepareSecrets, type RunSecrets } from '../secrets.js';
import { createRedactor, type Redactor } from '../sinks/redactor.js';
import { resolveConfig, type RawOptions } from './config.js';
import { processEnvironment } from './environment.js';
import type { Ending } from './exit-code.js';
import { exitWith, tellFailure } from './exit.js';
import { resolvePrompt } from './input.js';
import { installSignalHandlers, stopRun, unlessAborted } from './interrupt.js';
import { openOutput } from './output.js';
import { plainArguments } from './plain-arguments.js';
import { parseArguments } from './program.js';
import { resultLine } from './render/json.js';
import { reportBeforeRun, resultObject } from './result-object.js';
import { stdinStream } from './stdin.js';
import { watchStderr, watchStdout, writeStderr, type Stdout } from './streams.js';
import { nowMs } from '../clock.js';

declare const AGENT_VERSION: string;
/** Set by the bundler; unbundled runs (tests importing the source) fall back to a dev marker. */
const VERSION = typeof AGENT_VERSION === 'string' ? AGENT_VERSION : '0.0.0-dev';

/**
 * Runs the command. `earlySignals` are the SIGINT/SIGTERM that arrived while the CLI was still loading (the bin
 * shim holds them); they are delivered again once the real handlers are in place.
 */
export async function main(argv: string[], earlySignals: NodeJS.Signals[] = []): Promise<void> {
  const env = processEnvironment();
  const cleanups: Array<() => void> = [];
  // Last registered, first run: the commands are killed before their directories are removed.
  const cleanup = () =>
    cleanups
      .splice(0)
      .reverse()
      .forEach((kill) => kill());
  process.on('exit', cleanup);
  const controller = new AbortController();
  installSignalHandlers(controller, cleanup);
  // stdout's reader gone stops the run like a signal; any other failure is reported once the result is due.
  const brokenPipe = () => stopRun(controller, 'EPIPE', cleanup);
  const stdout = watchStdout(process.stdout, (failure) => failure.kind === 'broken_pipe' && brokenPipe());
  watchStderr(brokenPipe);
  for (const signal of earlySignals) process.kill(process.pid, signal);
  let ending: Ending;
  try {
    ending = await runCommand(argv, env, controller, cleanups, stdout);
  } catch (error) {
    // A bug, not a usage or API problem: say so plainly; the stack only on request.
    const debug = env.AGENT_DEBUG || argv.includes('--verbose') || argv.includes('-v');
    tellFailure(`internal error: ${plainOnly.plain((error as Error)?.message ?? String(error))}`);
    if (debug && error instanceof Error && error.stack) writeStderr(`${plainOnly.plain(error.stack)}\n`);
    ending = { kind: 'internal_error' };
  }
  exitWith(ending);
}

async function runCommand(
  argv: string[],
  env: Variables,
  controller: AbortController,
  cleanups: Array<() => void>,
  stdout: Stdout,
): Promise<Ending> {
  const startedAt = nowMs();
  // Until the configuration names the secrets, messages are only cleaned of control characters.
  let redactor = plainOnly;
  const failUsage = (error: unknown, format: string | undefined, tell = true) =>
    usageFailure(error, { format, startedAt, stdout, tell, redactor });

  const parsed = plainArguments(argv) ?? (await parseArguments(argv, VERSION));
  if (parsed instanceof Error) {
    if (parsed.exitCode === 0) return { kind: 'help_shown' };
    // commander has already said what is wrong on stderr; the machine formats still get their result object.
    return failUsage(new UsageError(parsed.message.replace(/^error: /, '')), formatIn(argv), false);
  }
  const { words, raw } = parsed;

  const messages: Anthropic.MessageParam[] = [];
  let prepared: Prepared;
  try {
    prepared = prepareRun(raw, env, messages, (named) => (redactor = named));
  } catch (error) {
    return failUsage(error, raw.outputFormat);
  }
  const { config, secrets, session } = prepared;
  const disarmDeadline = armDeadline(controller, config.budget, startedAt);
  // An exit that cannot wait for the run's end still writes the records held back for the step's single write.
  cleanups.push(session.release, () => session.log.flush());
  // Loading the agent overlaps with what comes before it (the output's set-up, reading stdin).
  const agentModule = import('../run.js');
  agentModule.catch(() => {});
  const output = await openRunOutput(config, stdout, session, cleanups, redactor);

  let report: RunReport;
  try {
    const emit = output.emit;
    report = await run({
      config,
      raw,
      words,
      messages,
      session,
      secrets,
      emit,
      controller,
      cleanups,
      startedAt,
      agentModule,
    });
  } catch (error) {
    session.log.close();
    session.release();
    const ending = await failUsage(error, config.outputFormat);
    await session.housekeeping;
    return ending;
  }
  disarmDeadline();
  const result = resultObject(report, session.id);
  session.log.finish(result);
  session.release();
  const ending = await output.finish(report, result);
  // The answer is out first; then the day's prune, if this run does it, is let finish.
  await session.housekeeping;
  return ending;
}

interface Prepared {
  config: Config;
  secrets: RunSecrets;
  session: Session;
}

/** The run's settings, its secrets and its session; `named` gets the redactor as soon as the secrets are known. */
function prepareRun(
  raw: RawOptions,
  env: Variables,
  conversation: Anthropic.MessageParam[],
  named: (redactor: Redactor) => void,
): Prepared {
  const config = resolveConfig(raw, env);
  const secrets = prepareSecrets(config);
  named(secrets.redactor);
  const { session: options, cwd, model, transcriptPath } = config;
  const redactor = secrets.redactor;
  const session = openSession({ options, cwd, model, transcriptPath, agentVersion: VERSION, conversation, redactor });
  return { config, secrets, session };
}

/** Where the run's events go, with what was said before the run began (warnings, the instructions read). */
async function openRunOutput(
  config: Config,
  stdout: Stdout,
  session: Session,
  cleanups: Array<() => void>,
  redactor: Redactor,
) {
  const output = await openOutput(config, stdout, session, (cleanup) => cleanups.push(cleanup), redactor);
  session.log.warn = (message) => output.emit({ type: 'warning', message });
  for (const message of [...config.warnings, ...session.notes]) output.emit({ type: 'warning', message });
  output.emit({ type: 'notice', message: config.instructions.summary });
  return output;
}

interface RunSetup {
  config: Config;
  raw: RawOptions;
  words: string[];
  messages: Anthropic.MessageParam[];
  session: Session;
  secrets: RunSecrets;
  emit: EventSink;
  controller: AbortController;
  cleanups: Array<() => void>;
  startedAt: number;
  agentModule: Promise<typeof import('../run.js')>;
}

/** Reads the prompt and runs the agent; a UsageError thrown here is reported by the caller. */
async function run(setup: RunSetup): Promise<RunReport> {
  const { config, raw, words, messages, session, secrets, emit, controller, cleanups, startedAt, agentModule } = setup;
  // Checked before the prompt is read, so a bad schema fails at once; the validator loads only with the flag.
  const structured =
    config.jsonSchema === undefined
      ? undefined
      : (await import('../structured/index.js')).prepareStructuredAnswer(config.jsonSchema, emit);
  // Reading stdin can take a while (a slow producer, or the wait for piped context); a signal ends it too.
  const prompt = await unlessAborted(
    resolvePrompt({
      words,
      promptFile: raw.promptFile,
      readStdin: raw.stdin !== false,
      stdin: stdinStream(),
      stdinIsDevice: isCharacterDevice(0),
      warn: (message) => emit({ type: 'warning', message }),
    }),
    controller.signal,
  );
  if (prompt === undefined || controller.signal.aborted)
    return reportBeforeRun(stoppedOutcome(controller.signal), config.model, startedAt);
  const { runAgent } = await agentModule;
  return runAgent({
    config,
    prompt,
    messages,
    emit,
    signal: controller.signal,
    registerCleanup: (kill) => cleanups.push(kill),
    startedAt,
    structured,
    session: { describe: (shape) => session.log.describe(shape) },
    runRecords: session.runRecords,
    secrets,
  });
}

function isCharacterDevice(fd: number): boolean {
  try {
    return fstatSync(fd).isCharacterDevice();
  } catch {
    return false;
  }
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

interface UsageFailure {
  format: string | undefined;
  startedAt: number;
  stdout: Stdout;
  /** False when commander has already said what is wrong. */
  tell: boolean;
  redactor: Redactor;
}

/** A run that never started: its result object has no session id, since there is no session to resume. */
async function usageFailure(
  error: unknown,
  { format, startedAt, stdout, tell, redactor }: UsageFailure,
): Promise<Ending> {
  if (!(error instanceof UsageError)) throw error;
  if (tell) tellFailure(redactor.plain(error.message));
  const outcome: Outcome = { kind: 'usage', stopReason: null, finalText: '', message: error.message };
  if (format === 'json' || format === 'stream-json') {
    await stdout.flush(resultLine(resultObject(reportBeforeRun(outcome, '', startedAt), undefined), redactor));
  }
  return outcome;
}

const plainOnly = createRedactor([]);
