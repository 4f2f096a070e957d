import type { RunEvent } from '../../events.js';
import type { ResultObject } from '../../result.js';
import type { TextFilter } from '../../shell/secret-mask.js';
import type { Redactor } from '../../sinks/redactor.js';
import { answerRule, commandStatus, oneLine, preview, summaryLine } from './format.js';
import type { Spinner } from './spinner.js';
import type { Style } from './style.js';
import { nowMs } from '../../clock.js';

interface HumanOptions {
  write: (text: string) => void;
  style: Style;
  quiet: boolean;
  verbose: boolean;
  /** stderr is a terminal: the answer rule and the closing summary are shown. */
  terminal: boolean;
  /** The terminal's width, for the rule. */
  columns: number;
  /** Only where the cursor may move: stderr is a terminal that is not dumb. */
  spinner?: Spinner;
  /**
   * When stdout and stderr lead to the same place, the final answer would show twice, so the model's text is held
   * until its reply ends and shown only if the reply goes on to call a tool.
   */
  holdText: boolean;
  /** stderr is a terminal: an answer accepted against --json-schema is shown pretty-printed there. */
  prettyAnswer?: boolean;
  /** Every text from outside (the model's, a command's, a message) passes through it before any styling is added. */
  redactor: Redactor;
}

type ToolEnd = Extract<RunEvent, { type: 'tool_end' }>;

/**
 * Off a terminal, how long a command's echo waits for the command to end, so that a quick command's echo, preview
 * and status go out in one write (one wake-up of whoever reads stderr, not two). Anything printed meanwhile, or the
 * command running longer, writes it at once; no one reading a log can tell 50 ms.
 */
const ECHO_HOLD_MS = 50;

export function createHumanRenderer(options: HumanOptions): HumanRenderer {
  return new HumanRenderer(options);
}

/**
 * stderr is for people: each command as `$ command` with a preview of its output, the model's narration, warnings.
 * On a terminal, the one line that may be redrawn is the spinner's, and it is only ever drawn at the start of an empty
 * line: text once written is never moved over or erased. Text from outside is shown plain and masked (see Redactor);
 * the only escape sequences are the style's and the spinner's.
 */
export class HumanRenderer {
  private heldText = '';
  private textBlock = -1;
  /** The block being shown as it streams (thinking, or text not held back), through a filter of its own. */
  private narration: TextFilter | undefined;
  private atLineStart = true;
  private liveOutput = false;
  /** What the spinner shows, while it shows something: it comes back under anything printed meanwhile. */
  private live: { label: string; since: number } | undefined;
  /** The command shown on the spinner line, not printed yet. */
  private pendingEcho: string | undefined;

  /**
   * Without a spinner, what one event prints goes out in one write (its line group), not a write per piece. With
   * one, pieces go out at once, so that they stay in order with the spinner's own drawing.
   */
  private unwritten = '';
  private echoHold: NodeJS.Timeout | undefined;

  constructor(private readonly options: HumanOptions) {}

  readonly onEvent = (event: RunEvent): void => {
    this.show(event);
    if (event.type === 'tool_start' && !this.options.terminal) this.holdEcho();
    else this.writeOut();
  };

  private show(event: RunEvent): void {
    const { plain } = this.options.redactor;
    if (event.type === 'warning') return this.notice(`warning: ${plain(event.message)}`);
    if (event.type === 'retry') {
      const attempt = `attempt ${event.attempt} of ${event.maxAttempts}`;
      return this.notice(`retrying in ${(event.delayMs / 1000).toFixed(1)} s (${attempt}): ${plain(event.reason)}`);
    }
    if (this.options.quiet) return;
    switch (event.type) {
      case 'notice':
        if (this.options.verbose) this.print(this.options.style.dim(`${plain(event.message)}\n`));
        return;
      case 'request_start':
        this.heldText = '';
        this.textBlock = -1;
        return this.showLive('Waiting for the model…');
      case 'text_delta':
        return this.onText(event.text, event.block);
      case 'thinking_delta':
        // Thinking is not the answer: shown, dimmed, only to who asked for everything.
        if (!this.options.verbose) return;
        this.clearLive();
        return this.print(this.options.style.dim(this.streamed(event.text, this.enterBlock(event.block))));
      case 'response':
        return this.onResponse(event.message.stop_reason);
      case 'tool_start':
        return this.onToolStart(this.options.redactor.visible(event.command));
      case 'tool_output':
        // Already cleaned and masked, by the same secrets, where it is captured (the full-output file needs that too):
        // a second pass here would double what -v costs per megabyte of output.
        if (!this.options.verbose) return;
        this.liveOutput = true;
        return this.print(event.text);
      case 'structured_answer':
        if (this.options.prettyAnswer) this.print(`${this.options.redactor.json(event.value, 2)}\n`);
        return;
      case 'tool_end':
        return this.onToolEnd({ ...event, content: plain(event.content) });
    }
  }

  /** Writes out a command's echo still held back (see ECHO_HOLD_MS): for an exit that comes before end(). */
  readonly flush = (): void => this.writeOut();

  /** The run is over: the spinner goes, a command still on it is written out, the line is ended. */
  end(): void {
    this.clearLive();
    this.endNarration();
    if (this.pendingEcho !== undefined) this.print(this.echo(this.pendingEcho));
    this.pendingEcho = undefined;
    this.endLine();
    this.writeOut();
  }

  /** Just before the answer goes to stdout on this same terminal: a rule on stderr that sets it apart. */
  beforeAnswer(): void {
    if (this.options.quiet || !this.options.terminal) return;
    this.print(`${this.options.style.dim(answerRule(this.options.columns))}\n`);
    this.writeOut();
  }

  /** The closing line on a terminal: turns, commands, time, cost. */
  summary(result: ResultObject): void {
    if (this.options.quiet || !this.options.terminal) return;
    this.print(`${this.options.style.dim(summaryLine(result))}\n`);
    this.writeOut();
  }

  /** Blocks of one reply (thinking, text, a tool call, more text) go on lines of their own: true for a new block. */
  private enterBlock(block: number): boolean {
    const newBlock = this.textBlock !== -1 && block !== this.textBlock;
    this.textBlock = block;
    if (newBlock) this.endNarration();
    return newBlock;
  }

  /** A piece of the block being streamed, plain and masked. */
  private streamed(text: string, newBlock: boolean): string {
    const shown = (this.narration ??= this.options.redactor.plainStream()).push(text);
    return newBlock ? `\n${shown}` : shown;
  }

  /** What the block's filter still holds (the start of what could have been a secret) is shown once it ends. */
  private endNarration(): void {
    const rest = this.narration?.end() ?? '';
    this.narration = undefined;
    this.print(this.options.style.dim(rest));
  }

  private onText(text: string, block: number): void {
    const newBlock = this.enterBlock(block);
    if (this.options.holdText) {
      this.heldText += newBlock ? `\n${text}` : text;
      return;
    }
    this.clearLive();
    this.print(this.options.style.dim(this.streamed(text, newBlock)));
  }

  private onResponse(stopReason: string | null): void {
    this.clearLive();
    this.endNarration();
    if (this.options.holdText && stopReason !== 'end_turn' && stopReason !== 'stop_sequence') {
      this.print(this.options.style.dim(this.options.redactor.plain(this.heldText)));
    }
    this.heldText = '';
    this.endLine();
  }

  private onToolStart(command: string): void {
    this.liveOutput = false;
    if (this.options.spinner && !this.options.verbose) {
      this.pendingEcho = command;
      this.showLive(`$ ${oneLine(command)}`);
    } else {
      this.endLine();
      this.print(this.echo(command));
    }
  }

  private onToolEnd(event: ToolEnd): void {
    const { style, verbose } = this.options;
    const status = commandStatus(event.durationMs, event.exitCode, style);
    if (this.pendingEcho !== undefined) {
      this.clearLive();
      this.print(this.echo(this.pendingEcho, event.blocked ? '' : status));
      this.pendingEcho = undefined;
    } else if (this.liveOutput) {
      this.endLine();
    }
    if (event.blocked) return this.print(style.red(`  ✗ ${event.content}\n`));
    if (!verbose) this.print(preview(event.content, style, event.isError, event.exitCode));
    else if (!this.liveOutput) this.print(`${event.content}\n`);
    // Where the echo was written as the command started, how it ended comes after its output.
    if ((!this.options.spinner || verbose) && status) this.print(`  ${style.dim('└')} ${status}\n`);
  }

  private echo(command: string, status = ''): string {
    const { style, verbose } = this.options;
    return `${style.cyan('$')} ${style.bold(verbose ? command : oneLine(command))}${status ? `  ${status}` : ''}\n`;
  }

  private notice(text: string): void {
    this.endLine();
    this.print(this.options.style.yellow(`${text}\n`));
  }

  private print(text: string): void {
    if (text === '') return;
    const { spinner } = this.options;
    this.atLineStart = text.endsWith('\n');
    if (!spinner) {
      this.unwritten += text;
      return;
    }
    spinner.stop();
    this.options.write(text);
    if (this.live && this.atLineStart) spinner.start(this.live.label, this.live.since);
  }

  private holdEcho(): void {
    if (this.unwritten === '' || this.echoHold) return;
    this.echoHold = setTimeout(() => this.writeOut(), ECHO_HOLD_MS);
    // A run that ends meanwhile writes the echo from end(); the timer alone does not keep it alive.
    this.echoHold.unref();
  }

  private writeOut(): void {
    clearTimeout(this.echoHold);
    this.echoHold = undefined;
    if (this.unwritten === '') return;
    const text = this.unwritten;
    this.unwritten = '';
    this.options.write(text);
  }

  private endLine(): void {
    if (!this.atLineStart) this.print('\n');
  }

  private showLive(label: string): void {
    this.endLine();
    this.live = { label, since: nowMs() };
    this.options.spinner?.start(this.live.label, this.live.since);
  }

  private clearLive(): void {
    this.live = undefined;
    this.options.spinner?.stop();
  }
}
