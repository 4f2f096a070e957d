import { readFileSync } from 'node:fs';
import { hostname } from 'node:os';
import type Anthropic from '@anthropic-ai/sdk';
import { isHeader } from './store.js';
import { SESSION_FORMAT_VERSION, type HeaderRecord } from './records.js';

/** What a session file holds that a continuation needs. */
export interface LoadedSession {
  path: string;
  header: HeaderRecord;
  /** The message records, in order, as written. */
  messages: Anthropic.MessageParam[];
  /** The results of commands that finished, by tool_use id, whether or not their message was written. */
  commandResults: Map<string, { content: string; isError: boolean }>;
  /** The working directory of the session's latest run. */
  cwd: string;
  /** The last line was cut off (its writer was killed while writing it) and was left out. */
  truncatedTail: boolean;
  /** The process of the run that last started writing the file, on this machine, while it has not written its result. */
  writerPid: number | undefined;
  /** How the latest run ended (its result's subtype), when it wrote its result; undefined when it was cut off. */
  endedBy: string | undefined;
}

/** A file that cannot be continued: missing, unreadable, not a session, or corrupt. The message names the file. */
export class SessionFileError extends Error {
  override name = 'SessionFileError';
}

export function loadSession(path: string): LoadedSession {
  let text: string;
  try {
    text = readFileSync(path, 'utf8');
  } catch (error) {
    throw new SessionFileError(`Cannot read session file ${path}: ${(error as Error).message}`);
  }
  const lines = text.split('\n');
  // A file written whole ends with a newline, so the last piece is empty; anything else is the line being written.
  const tail = lines.pop() ?? '';
  const header = tryParse(lines[0] ?? tail);
  if (!isHeader(header))
    throw new SessionFileError(`${path} is not a session file: it does not start with an agent session header.`);
  if (typeof header.version !== 'number' || header.version > SESSION_FORMAT_VERSION) {
    throw new SessionFileError(
      `${path} was written in session format version ${String(header.version)}; this agent reads version ${SESSION_FORMAT_VERSION}.`,
    );
  }
  const records = lines.map((line, index) => parseLine(line, index + 1, path));
  let truncatedTail = false;
  if (tail.trim() !== '') {
    const last = tryParse(tail);
    if (last === undefined) truncatedTail = true;
    else records.push(last);
  }
  const loaded: LoadedSession = {
    path,
    header,
    messages: [],
    commandResults: new Map(),
    cwd: header.cwd,
    truncatedTail,
    writerPid: undefined,
    endedBy: undefined,
  };
  records.forEach((record, index) => readRecord(loaded, record, index + 1));
  return loaded;
}

function readRecord(loaded: LoadedSession, record: unknown, line: number): void {
  const r = record as { type?: unknown; [key: string]: unknown };
  switch (r.type) {
    case 'session':
    case 'resume':
      loaded.writerPid = typeof r.pid === 'number' && r.host === hostname() ? r.pid : undefined;
      loaded.endedBy = undefined;
      if (r.type === 'resume' && typeof r.cwd === 'string') loaded.cwd = r.cwd;
      break;
    case 'result':
      loaded.writerPid = undefined;
      loaded.endedBy = typeof r.subtype === 'string' ? r.subtype : 'unknown';
      break;
    case 'message':
      if (!isMessage(r.message))
        throw new SessionFileError(
          `${loaded.path} line ${line}: a message record without a valid message; the file is corrupt.`,
        );
      loaded.messages.push(r.message);
      break;
    case 'command':
      if (typeof r.id === 'string' && typeof r.result === 'string') {
        loaded.commandResults.set(r.id, { content: r.result, isError: r.is_error === true });
      }
      break;
  }
}

function parseLine(line: string, number: number, path: string): unknown {
  const record = tryParse(line);
  if (record === undefined)
    throw new SessionFileError(
      `${path} line ${number} is not a JSON record; the file is corrupt or not a session file.`,
    );
  return record;
}

function tryParse(line: string): object | undefined {
  try {
    const value: unknown = JSON.parse(line);
    return typeof value === 'object' && value !== null && !Array.isArray(value) ? value : undefined;
  } catch {
    return undefined;
  }
}

function isMessage(value: unknown): value is Anthropic.MessageParam {
  const m = value as { role?: unknown; content?: unknown } | null;
  if (typeof m !== 'object' || m === null || (m.role !== 'user' && m.role !== 'assistant')) return false;
  if (typeof m.content === 'string') return true;
  return (
    Array.isArray(m.content) &&
    m.content.every((block: unknown) => typeof (block as { type?: unknown } | null)?.type === 'string')
  );
}
