import { fanOut, type EventSink } from '../events.js';
import type { ResultObject, RunReport } from '../result.js';
import type { Session } from '../session/open.js';
import type { Config } from '../config.js';
import type { Ending } from './exit-code.js';
import { tellFailure } from './exit.js';
import { createHumanRenderer, type HumanRenderer } from './render/human.js';
import { createStreamJsonRenderer, resultLine, textAnswer } from './render/json.js';
import { colourWanted, createStyle } from './render/style.js';
import { stdoutIsStderr, writeStderr, type Stdout } from './streams.js';

export interface Output {
  emit: EventSink;
  /** Shows how the run ended and writes its result to stdout; resolves with how the command ends. */
  finish(report: RunReport, result: ResultObject): Promise<Ending>;
}

const FALLBACK_COLUMNS = 80;

/**
 * Where a run's events go: people's view on stderr, stream-json lines on stdout, the session file (and transcript). The result itself is
 * written by finish(), which also says what went wrong with stdout.
 */
export async function openOutput(
  config: Config,
  stdout: Stdout,
  session: Pick<Session, 'id' | 'log'>,
  registerCleanup: (cleanup: () => void) => void,
): Promise<Output> {
  const stderr = process.stderr;
  const terminal = Boolean(stderr.isTTY);
  const columns = terminal && stderr.columns > 0 ? stderr.columns : FALLBACK_COLUMNS;
  const style = createStyle(colourWanted(stderr, config.terminal));
  // A terminal that reports no width (some pseudo-terminals) would send ora's line clearing into a loop.
  const cursorMoves = terminal && stderr.columns > 0 && config.terminal.term !== 'dumb' && !config.quiet;
  const spinner = cursorMoves ? await (await import('./render/spinner.js')).createSpinner(stderr, style, columns, config.terminal.term) : undefined;
  if (spinner) registerCleanup(() => spinner.stop());
  const sameDestination = stdoutIsStderr();
  const human = createHumanRenderer({
    write: writeStderr,
    style,
    quiet: config.quiet,
    verbose: config.verbose,
    terminal,
    columns,
    holdText: sameDestination,
    prettyAnswer: terminal,
    ...(spinner ? { spinner } : {}),
  });
  const sinks: EventSink[] = [human.onEvent];
  if (config.outputFormat === 'stream-json') {
    sinks.push(createStreamJsonRenderer(stdout.write, {
      session_id: session.id,
      model: config.model,
      cwd: config.cwd,
      tools: ['bash'],
      instructions_files: config.instructions.files,
    }));
  }
  sinks.push(session.log.onEvent);
  return {
    emit: fanOut(...sinks),
    finish: (report, result) => finish(report, result, { config, stdout, human, answerOnScreen: sameDestination && terminal }),
  };
}

const BROKEN_PIPE: Ending = { kind: 'interrupted', signal: 'EPIPE' };

async function finish(
  { outcome }: RunReport,
  result: ResultObject,
  { config, stdout, human, answerOnScreen }: { config: Config; stdout: Stdout; human: HumanRenderer; answerOnScreen: boolean },
): Promise<Ending> {
  human.end();
  // Stopped because stdout's reader went away: silently, as a program killed by SIGPIPE would be.
  if (stdout.failure()?.kind === 'broken_pipe' || outcome.signal === 'EPIPE') return BROKEN_PIPE;
  if (outcome.message) tellFailure(outcome.message);
  const text = config.outputFormat === 'text' ? (result.is_error ? '' : `${textAnswer(result)}\n`) : resultLine(result);
  if (text !== '' && answerOnScreen && config.outputFormat !== 'stream-json') human.beforeAnswer();
  await stdout.flush(text);
  const failure = stdout.failure();
  if (failure?.kind === 'broken_pipe') return BROKEN_PIPE;
  if (failure) {
    tellFailure(`cannot write the result to stdout: ${failure.message}`);
    return { kind: 'result_unwritable' };
  }
  human.summary(result);
  return outcome;
}
