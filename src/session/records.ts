import type Anthropic from '@anthropic-ai/sdk';
import type { ResultObject } from '../result.js';

/**
 * One file format for sessions and transcripts: JSONL, one record per line, appended and written synchronously, so a
 * file cut off at any moment still loads. The first record is the header; every record carries `ts` (ISO 8601).
 * The conversation is the `message` records in order; the rest say what happened around it.
 */
export const SESSION_FORMAT = 'agent-session';
export const SESSION_FORMAT_VERSION = 1;

/** What a run sends besides the conversation: unknown (null, empty) when it ended before its first request. */
export interface RequestShapeFacts {
  system_prompt: string | null;
  tools: Anthropic.Tool[];
}

/** Where and how a run of the session ran. */
interface RunFacts extends RequestShapeFacts {
  ts: string;
  session_id: string;
  model: string;
  cwd: string;
  agent_version: string;
  /** The machine and process writing this run's records, until it writes its result. */
  host: string;
  pid: number;
}

/** The first record of a file. */
export interface HeaderRecord extends RunFacts {
  type: 'session';
  format: typeof SESSION_FORMAT;
  version: number;
  /** Set when the session was forked from another (--fork-session). */
  forked_from?: string;
}

/** A later run of the session appending to the same file (--resume, --continue). */
interface ResumeRecord extends RunFacts {
  type: 'resume';
}

/** A message as it joins the conversation, whole. */
interface MessageRecord {
  type: 'message';
  ts: string;
  message: Anthropic.MessageParam;
}

/** A model call starts; the conversation it sends is every message record before it. */
interface RequestRecord {
  type: 'request';
  ts: string;
  turn: number;
  messages: number;
}

interface ResponseRecord {
  type: 'response';
  ts: string;
  turn: number;
  message: Anthropic.Message;
}

interface CommandRecord {
  type: 'command';
  ts: string;
  /** The tool_use id. */
  id: string;
  command: string;
  result: string;
  is_error: boolean;
  blocked: boolean;
  exit_code: number | null;
  duration_ms: number;
}

interface RetryRecord {
  type: 'retry';
  ts: string;
  attempt: number;
  max_attempts: number;
  delay_ms: number;
  reason: string;
}

interface WarningRecord {
  type: 'warning';
  ts: string;
  message: string;
}

type ResultRecord = ResultObject & { ts: string };

type SessionRecord =
  | HeaderRecord
  | ResumeRecord
  | MessageRecord
  | RequestRecord
  | ResponseRecord
  | CommandRecord
  | RetryRecord
  | WarningRecord
  | ResultRecord;

/** A record without its timestamp; the writer stamps it. */
export type UnstampedRecord = SessionRecord extends infer R ? (R extends SessionRecord ? Omit<R, 'ts'> : never) : never;
