import type { RunEvent } from '../../events.js';
import type { Style } from './style.js';

const PREVIEW_LINES = 4;
const PREVIEW_WIDTH = 160;
const ECHO_WIDTH = 200;

export interface HumanOptions {
  write: (text: string) => void;
  style: Style;
  quiet: boolean;
  verbose: boolean;
  /** A spinner while waiting for the model; only given when stderr is a terminal. */
  spinner?: { start(text: string): void; stop(): void };
  /**
   * When stdout and stderr lead to the same place, the final answer would show twice, so the model's text is held
   * until its reply ends and shown only if the reply goes on to call a tool.
   */
  holdText: boolean;
  /** stderr is a terminal: an answer accepted against --json-schema is shown pretty-printed there. */
  prettyAnswer?: boolean;
}

/** stderr is for people: the spinner, each command as `$ command` with a preview of its output, the model's narration, warnings. */
export function createHumanRenderer(options: HumanOptions): (event: RunEvent) => void {
  const { write, style, quiet, verbose, spinner } = options;
  let heldText = '';
  let textBlock = -1;
  let atLineStart = true;
  let liveOutput = false;

  const print = (text: string) => {
    if (text === '') return;
    spinner?.stop();
    write(text);
    atLineStart = text.endsWith('\n');
  };
  const endLine = () => {
    if (!atLineStart) print('\n');
  };

  return (event) => {
    if (event.type === 'warning') {
      endLine();
      print(style.yellow(`warning: ${event.message}\n`));
      return;
    }
    if (event.type === 'retry') {
      endLine();
      print(style.yellow(`retrying in ${(event.delayMs / 1000).toFixed(1)} s (attempt ${event.attempt} of ${event.maxAttempts}): ${event.reason}\n`));
      return;
    }
    if (quiet) return;
    switch (event.type) {
      case 'request_start':
        heldText = '';
        textBlock = -1;
        spinner?.start('Waiting for the model…');
        break;
      case 'text_delta': {
        // Separate text blocks of one reply (text, a tool call, more text) as lines of their own.
        const text = textBlock !== -1 && event.block !== textBlock ? `\n${event.text}` : event.text;
        textBlock = event.block;
        if (options.holdText) heldText += text;
        else print(style.dim(text));
        break;
      }
      case 'response':
        spinner?.stop();
        if (options.holdText && event.message.stop_reason !== 'end_turn' && event.message.stop_reason !== 'stop_sequence') {
          print(style.dim(heldText));
        }
        heldText = '';
        endLine();
        break;
      case 'tool_start':
        endLine();
        print(`${style.cyan('$')} ${style.bold(verbose ? event.command : oneLine(event.command, ECHO_WIDTH))}\n`);
        liveOutput = false;
        break;
      case 'tool_output':
        if (verbose) {
          liveOutput = true;
          print(event.text);
        }
        break;
      case 'structured_answer':
        if (options.prettyAnswer) print(`${JSON.stringify(event.value, null, 2)}\n`);
        break;
      case 'tool_end':
        if (liveOutput) endLine();
        if (event.blocked) print(style.red(`  ✗ ${event.content}\n`));
        else if (!verbose) print(preview(event.content, style, event.isError));
        else if (!liveOutput) print(`${event.content}\n`);
        break;
    }
  };
}

function oneLine(command: string, width: number): string {
  const lines = command.split('\n');
  const first = lines[0] ?? '';
  const cut = first.length > width ? `${first.slice(0, width - 1)}…` : first;
  return lines.length > 1 ? `${cut} … (+${lines.length - 1} lines)` : cut;
}

function preview(content: string, style: Style, isError: boolean): string {
  const lines = content.replace(/\n+$/, '').split('\n');
  const shown = lines.slice(0, PREVIEW_LINES).map((line) => `  ${style.dim('│')} ${clip(line)}`);
  if (lines.length > PREVIEW_LINES) {
    const last = lines.at(-1) ?? '';
    shown.push(`  ${style.dim(`│ … ${lines.length - PREVIEW_LINES} more lines in the result`)}`);
    if (isError) shown.push(`  ${style.dim('│')} ${style.red(clip(last))}`);
  }
  return `${shown.join('\n')}\n`;
}

function clip(line: string): string {
  return line.length > PREVIEW_WIDTH ? `${line.slice(0, PREVIEW_WIDTH - 1)}…` : line;
}
