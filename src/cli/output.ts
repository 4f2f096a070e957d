import { fanOut, type EventSink } from '../events.js';
import type { ResultObject, RunReport } from '../result.js';
import type { Session } from '../session/open.js';
import type { Config } from '../config.js';
import type { Redactor } from '../sinks/redactor.js';
import type { Ending } from './exit-code.js';
import { tellFailure } from './exit.js';
import { createHumanRenderer, type HumanRenderer } from './render/human.js';
import { createStreamJsonRenderer, resultLine, textAnswer } from './render/json.js';
import { colourWanted, createStyle } from './render/style.js';
import { stdoutIsStderr, writeStderr, type Stdout } from './streams.js';

interface Output {
  emit: EventSink;
  /** Shows how the run ended and writes its result to stdout; resolves with how the command ends. */
  finish(report: RunReport, result: ResultObject): Promise<Ending>;
}

const FALLBACK_COLUMNS = 80;

/**
 * Where a run's events go: people's view on stderr, stream-json lines on stdout, the session file (and transcript). The result itself is
 * written by finish(), which also says what went wrong with stdout. Each passes what it writes through the redactor.
 */
export async function openOutput(
  config: Config,
  stdout: Stdout,
  session: Pick<Session, 'id' | 'log'>,
  registerCleanup: (cleanup: () => void) => void,
  redactor: Redactor,
): Promise<Output> {
  const stderr = process.stderr;
  const terminal = Boolean(stderr.isTTY);
  const columns = terminal && stderr.columns > 0 ? stderr.columns : FALLBACK_COLUMNS;
  const style = createStyle(colourWanted(stderr, config.terminal));
  // A terminal that reports no width (some pseudo-terminals) would send ora's line clearing into a loop.
  const cursorMoves = terminal && stderr.columns > 0 && config.terminal.term !== 'dumb' && !config.quiet;
  const spinner = cursorMoves
    ? await (await import('./render/spinner.js')).createSpinner(stderr, style, columns, config.terminal.term)
    : undefined;
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
    redactor,
    ...(spinner ? { spinner } : {}),
  });
  // A run stopped hard (a second signal) leaves by process.exit: a command's echo held back still goes out.
  registerCleanup(human.flush);
  const sinks: EventSink[] = [human.onEvent];
  if (config.outputFormat === 'stream-json') {
    const init = {
      session_id: session.id,
      model: config.model,
      cwd: config.cwd,
      tools: ['bash'],
      instructions_files: config.instructions.files,
    };
    sinks.push(createStreamJsonRenderer(stdout.write, init, redactor));
  }
  sinks.push(session.log.onEvent);
  return {
    emit: fanOut(...sinks),
    finish: (report, result) => {
      const answerOnScreen = sameDestination && terminal;
      return finish(report, result, { config, stdout, human, redactor, answerOnScreen });
    },
  };
}

interface Finishing {
  config: Config;
  stdout: Stdout;
  human: HumanRenderer;
  answerOnScreen: boolean;
  redactor: Redactor;
}

const BROKEN_PIPE: Ending = { kind: 'interrupted', signal: 'EPIPE' };

async function finish({ outcome }: RunReport, result: ResultObject, finishing: Finishing): Promise<Ending> {
  const { config, stdout, human, answerOnScreen, redactor } = finishing;
  human.end();
  // Stopped because stdout's reader went away: silently, as a program killed by SIGPIPE would be.
  if (stdout.failure()?.kind === 'broken_pipe' || outcome.signal === 'EPIPE') return BROKEN_PIPE;
  if (outcome.message) tellFailure(redactor.plain(outcome.message));
  const answer = result.is_error ? '' : `${textAnswer(result, redactor)}\n`;
  const text = config.outputFormat === 'text' ? answer : resultLine(result, redactor);
  if (text !== '' && answerOnScreen && config.outputFormat !== 'stream-json') human.beforeAnswer();
  await stdout.flush(text);
  const failure = stdout.failure();
  if (failure?.kind === 'broken_pipe') return BROKEN_PIPE;
  if (failure) {
    tellFailure(`cannot write the result to stdout: ${redactor.plain(failure.message)}`);
    return { kind: 'result_unwritable' };
  }
  human.summary(result);
  return outcome;
}
