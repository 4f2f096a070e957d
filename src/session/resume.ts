import { existsSync, statSync } from 'node:fs';
import { resolve } from 'node:path';
import { UsageError } from '../outcome.js';
import { loadSession, SessionFileError, type LoadedSession } from './load.js';
import type { SessionOptions } from '../config.js';
import { repairConversation, type Repaired } from './repair.js';
import { isSessionId, latestSessionIn, sessionFile } from './store.js';

export interface Resumed {
  loaded: LoadedSession;
  repaired: Repaired;
  /** The file at `path` is this session's and holds the conversation as loaded, so it may be appended to. */
  holdsSameConversation(path: string): boolean;
}

/**
 * Finds, loads and repairs the session that --resume or --continue names; what cannot be continued is a UsageError.
 * `untrusted` says why the state directory is not the user's own: then no session is looked up in it.
 */
export function resumeSession(options: SessionOptions, cwd: string, notes: string[], untrusted?: string): Resumed {
  const loaded = load(locate(options, cwd, untrusted));
  const repaired = repairConversation(loaded.messages, loaded.commandResults, loaded.endedBy);
  const id = loaded.header.session_id;
  if (loaded.truncatedTail)
    notes.push(
      `the last line of ${loaded.path} is incomplete (the run writing it was killed, or is writing it still) and is left out.`,
    );
  if (loaded.cwd !== cwd) notes.push(`session ${id} ran in ${loaded.cwd}; this run works in ${cwd}.`);
  if (repaired.dropped > 0) notes.push(`an unfinished reply at the end of session ${id} is left out.`);
  if (repaired.interrupted > 0) {
    const commands = repaired.interrupted === 1 ? '1 command' : `${repaired.interrupted} commands`;
    const them = repaired.interrupted === 1 ? 'it was' : 'they were';
    notes.push(
      loaded.endedBy === undefined
        ? `session ${id} was cut off during ${commands}; the model is told ${them} interrupted.`
        : `session ${id} ended (${loaded.endedBy}) before running ${commands} the model asked for; the model is told ${them} not run.`,
    );
  }
  return {
    loaded,
    repaired,
    holdsSameConversation(path) {
      try {
        const other = loadSession(path);
        return other.header.session_id === id && other.messages.length === loaded.messages.length;
      } catch {
        return false;
      }
    },
  };
}

function locate(options: SessionOptions, cwd: string, untrusted: string | undefined): string {
  const refuseUntrusted = () => {
    if (untrusted)
      throw new UsageError(`Cannot look for the session: ${untrusted}.\nGive --resume the session file itself.`);
  };
  if (options.continueLatest) {
    refuseUntrusted();
    const latest = latestSessionIn(options.dir, cwd);
    if (!latest)
      throw new UsageError(`No session to continue: none of the sessions in ${options.dir} was started in ${cwd}.`);
    return latest;
  }
  const wanted = options.resume ?? '';
  const asPath = resolve(wanted);
  if (existsSync(asPath) && statSync(asPath).isFile()) return asPath;
  if (isSessionId(wanted)) {
    refuseUntrusted();
    const path = sessionFile(options.dir, wanted.toLowerCase());
    if (!existsSync(path)) throw new UsageError(`No session ${wanted} in ${options.dir}.`);
    return path;
  }
  if (wanted.includes('/') || wanted.endsWith('.jsonl')) throw new UsageError(`No session file ${asPath}.`);
  throw new UsageError(
    `--resume takes a session id (a UUID, as in the result's session_id) or a session file; '${wanted}' is neither.`,
  );
}

function load(path: string): LoadedSession {
  try {
    return loadSession(path);
  } catch (error) {
    if (error instanceof SessionFileError) throw new UsageError(error.message);
    throw error;
  }
}
