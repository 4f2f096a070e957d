import { closeSync, openSync, writeSync } from 'node:fs';
import type Anthropic from '@anthropic-ai/sdk';
import type { RunEvent } from './events.js';

/**
 * The whole run as JSONL: each request's new messages, each response, each command with its result, and the result.
 * Lines are written synchronously, so a run that is interrupted still leaves a complete file behind.
 */
export class Transcript {
  private written = 0;
  private constructor(
    private readonly fd: number,
    private readonly conversation: Anthropic.MessageParam[],
  ) {}

  static open(path: string, conversation: Anthropic.MessageParam[]): Transcript {
    return new Transcript(openSync(path, 'w'), conversation);
  }

  readonly onEvent = (event: RunEvent): void => {
    switch (event.type) {
      case 'request_start':
        this.write({ type: 'request', turn: event.turn, new_messages: this.conversation.slice(this.written) });
        this.written = this.conversation.length;
        break;
      case 'response':
        this.write({ type: 'response', turn: event.turn, message: event.message });
        break;
      case 'tool_end':
        this.write({ type: 'command', id: event.id, command: event.command, result: event.content, is_error: event.isError, blocked: event.blocked });
        break;
      case 'retry':
      case 'warning':
        this.write(event);
        break;
    }
  };

  write(record: object): void {
    writeSync(this.fd, `${JSON.stringify(record)}\n`);
  }

  close(): void {
    closeSync(this.fd);
  }
}
