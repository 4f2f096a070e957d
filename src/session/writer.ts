import { constants, openSync, writeSync } from 'node:fs';
import { hostname } from 'node:os';
import type Anthropic from '@anthropic-ai/sdk';
import type { RunEvent } from '../events.js';
import type { ResultObject } from '../result.js';
import type { Redactor } from '../sinks/redactor.js';
import { closeQuietly, dropPartialLastLine } from './file-tail.js';
import { SESSION_FORMAT, SESSION_FORMAT_VERSION, type RequestShapeFacts, type UnstampedRecord } from './records.js';

/** How long a request's records wait for the request to get out before they are written all the same. */

/** One file the session is written to. */
export interface SessionFileSpec {
  path: string;
  /** `new`: starts with the header and the conversation so far; `append`: an existing file of this session. */
  kind: 'new' | 'append';
  /** An open descriptor (a --transcript, claimed at start-up); without one the file is opened at its first record. */
  fd?: number;
  /** Written from the start (a --transcript), or only once the conversation has something to save. */
  from: 'start' | 'conversation';
  /** A file of the state directory: never opened through a symbolic link. */
  inStateDir?: boolean;
}

interface SessionLogSetup {
  sessionId: string;
  forkedFrom: string | undefined;
  model: string;
  cwd: string;
  agentVersion: string;
  /** The conversation, which the run grows in place; its first `historyLength` messages were saved before this run. */
  conversation: Anthropic.MessageParam[];
  historyLength: number;
  files: SessionFileSpec[];
  /** Every record passes through it: the files never hold a secret's value or a raw control character. */
  redactor: Redactor;
}

interface FileState {
  spec: SessionFileSpec;
  fd: number | undefined;
  started: boolean;
  dropped: boolean;
}

/**
 * Writes a run into its session files (the state directory's, a --transcript) as it goes: each message as it joins
 * the conversation, each request, response, command, retry and warning, and the result. Every record is written
 * whole by one synchronous call (the records of one step together), and before the run waits on anything, so
 * whatever kills the process, the file ends with whole records (but maybe part of the last write) and loads.
 */
export class SessionLog {
  private readonly files: FileState[];
  /** The conversation as it stood before this run, kept as written then (the context step may elide it later). */
  private history: string[];
  private written: number;
  private shape: RequestShapeFacts = { system_prompt: null, tools: [] };
  /** Files start once the header can name the system prompt, or once the run ends without one. */
  private ready = false;
  /** This run has added to the conversation: from here on, the state directory's file is worth writing. */
  private grown = false;
  /** Every line so far, for a file that starts late; dropped once every file has started. */
  private backlog: string[] | undefined;
  /** Lines stamped but not written yet: they go out together, with the next record that is not held. */
  private pending = '';
  private flushSoon: NodeJS.Immediate | undefined;
  /** The time of the latest record: a file that starts with it has its header stamped so. */
  private lastTs = '';
  /** Told once about each file that cannot be written; the run goes on without it. */
  warn: (message: string) => void = () => {};

  constructor(private readonly setup: SessionLogSetup) {
    this.files = setup.files.map((spec) => ({ spec, fd: spec.fd, started: false, dropped: false }));
    this.written = setup.historyLength;
    const needsHistory = setup.files.some((file) => file.kind === 'new');
    const saved = needsHistory ? setup.conversation.slice(0, setup.historyLength) : [];
    this.history = saved.map((message) => setup.redactor.json(resumable(message, setup.redactor)));
    this.backlog = this.files.length > 0 ? [] : undefined;
  }

  /** The system prompt and tools of this run, recorded in the header (or resume record). */
  describe(shape: { system: string; tools: Anthropic.Tool[] }): void {
    this.shape = { system_prompt: shape.system, tools: shape.tools };
    this.ready = true;
  }

  readonly onEvent = (event: RunEvent): void => {
    if (this.files.length === 0) return;
    switch (event.type) {
      case 'request_start':
        // The messages the request carries, and its record, are on disk before it goes out.
        this.sync(true);
        this.write({ type: 'request', turn: event.turn, messages: this.setup.conversation.length });
        break;
      case 'response':
        // A reply that calls a tool is followed, before anything waits, by the command it asks for (or the results).
        this.write(
          { type: 'response', turn: event.turn, message: event.message },
          event.message.stop_reason === 'tool_use',
        );
        break;
      case 'tool_start':
        // The reply that asked for the command has just joined the conversation; it is on disk before the command runs.
        this.sync();
        break;
      case 'tool_results':
        // The results go out with the request that carries them, which follows before anything waits.
        this.sync(true);
        break;
      case 'tool_end':
        this.write(
          {
            type: 'command',
            id: event.id,
            command: event.command,
            result: event.content,
            is_error: event.isError,
            blocked: event.blocked,
            exit_code: event.exitCode ?? null,
            duration_ms: event.durationMs ?? 0,
          },
          true,
        );
        break;
      case 'retry':
        this.write({
          type: 'retry',
          attempt: event.attempt,
          max_attempts: event.maxAttempts,
          delay_ms: event.delayMs,
          reason: event.reason,
        });
        break;
      case 'warning':
        this.write({ type: 'warning', message: event.message });
        break;
    }
  };

  /** The last messages and the result, then every file closed. */
  finish(result: ResultObject): void {
    this.ready = true;
    this.sync(true);
    this.write(result);
    this.close();
  }

  close(): void {
    this.flush();
    for (const file of this.files) {
      if (file.fd !== undefined) closeQuietly(file.fd);
      file.fd = undefined;
      file.dropped = true;
    }
  }

  /**
   * Writes the messages that joined the conversation since the last look, up to `upTo` of them in all (`hold`: with
   * the next record).
   */
  private sync(hold = false): void {
    const { conversation } = this.setup;
    if (this.written < conversation.length) this.grown = true;
    while (this.written < conversation.length) {
      const message = conversation[this.written]!;
      this.written++;
      this.write({ type: 'message', message: resumable(message, this.setup.redactor) }, true);
    }
    if (!hold) this.flush();
  }

  /**
   * Stamps the record; it goes out at once, or with `hold` together with the records that follow it before the run
   * waits on anything (the model, a command), in one write: every file still ends with whole records. Whatever holds
   * a record, it is written by the next turn of the event loop at the latest.
   */
  private write(record: UnstampedRecord, hold = false): void {
    this.lastTs = new Date().toISOString();
    const line = this.stamp(record, this.lastTs);
    this.backlog?.push(line);
    this.pending += line;
    if (!hold) this.flush();
    else this.flushSoon ??= setImmediate(() => this.flush());
  }

  /** Writes the records not written yet, in one call per file; a file that can start starts with them. */
  flush(): void {
    if (this.flushSoon !== undefined) clearImmediate(this.flushSoon);
    this.flushSoon = undefined;
    if (this.pending === '') return;
    const chunk = this.pending;
    this.pending = '';
    for (const file of this.files) {
      if (file.dropped) continue;
      if (file.started) this.put(file, chunk);
      else if (this.ready && (file.spec.from === 'start' || this.grown)) this.start(file, this.lastTs);
    }
    if (this.files.every((file) => file.started || file.dropped)) {
      this.backlog = undefined;
      this.history = [];
    }
  }

  /** Opens the file if needed; writes the header and history (or a resume record), then every line so far. */
  private start(file: FileState, ts: string): void {
    file.started = true;
    if (file.fd === undefined) {
      try {
        // An existing file is only appended to, never created: one that vanished meanwhile is not recreated headless.
        const noFollow = file.spec.inStateDir ? constants.O_NOFOLLOW : 0;
        file.fd = openSync(
          file.spec.path,
          file.spec.kind === 'new' ? 'wx' : constants.O_RDWR | constants.O_APPEND | noFollow,
          0o600,
        );
        if (file.spec.kind === 'append') dropPartialLastLine(file.fd);
      } catch (error) {
        this.drop(file, error);
        return;
      }
    }
    const { sessionId, forkedFrom, model, cwd, agentVersion } = this.setup;
    const facts = {
      session_id: sessionId,
      model,
      cwd,
      ...this.shape,
      agent_version: agentVersion,
      host: hostname(),
      pid: process.pid,
    };
    const preamble =
      file.spec.kind === 'append'
        ? [this.stamp({ type: 'resume', ...facts }, ts)]
        : [
            this.stamp(
              {
                type: 'session',
                format: SESSION_FORMAT,
                version: SESSION_FORMAT_VERSION,
                ...(forkedFrom ? { forked_from: forkedFrom } : {}),
                ...facts,
              },
              ts,
            ),
            ...this.history.map((message) => `{"type":"message","ts":"${ts}","message":${message}}\n`),
          ];
    this.put(file, [...preamble, ...(this.backlog ?? [])].join(''));
  }

  /** The record as one line, its timestamp right after its type. */
  private stamp(record: UnstampedRecord, ts: string): string {
    const { type, ...rest } = record;
    return `${this.setup.redactor.json({ type, ts, ...rest })}\n`;
  }

  private put(file: FileState, line: string): boolean {
    if (file.dropped || file.fd === undefined) return false;
    try {
      writeSync(file.fd, line);
      return true;
    } catch (error) {
      this.drop(file, error);
      return false;
    }
  }

  private drop(file: FileState, error: unknown): void {
    if (file.fd !== undefined) closeQuietly(file.fd);
    file.fd = undefined;
    file.dropped = true;
    this.warn(
      `cannot write ${file.spec.path} (${(error as NodeJS.ErrnoException).code ?? (error as Error).message}); the run goes on without it.`,
    );
  }
}

/**
 * The message as a later --resume can send it back. A thinking block is signed: masking a secret in it would make the
 * API refuse the whole conversation, so a reply whose thinking shows a secret is saved without its thinking (the API
 * takes an earlier turn without its thinking, never one with only part of it).
 */
function resumable(message: Anthropic.MessageParam, redactor: Redactor): Anthropic.MessageParam {
  if (message.role !== 'assistant' || typeof message.content === 'string') return message;
  const isThought = (block: Anthropic.ContentBlockParam) =>
    block.type === 'thinking' || block.type === 'redacted_thinking';
  const shown = (text: string) => JSON.parse(redactor.json(text)) === text;
  const intact = message.content.every((block) =>
    block.type === 'thinking' ? shown(block.thinking) : block.type === 'redacted_thinking' ? shown(block.data) : true,
  );
  if (intact) return message;
  return { ...message, content: message.content.filter((block) => !isThought(block)) };
}
