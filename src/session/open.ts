import { closeSync, existsSync, fstatSync, openSync, realpathSync } from 'node:fs';
import { dirname, resolve } from 'node:path';
import type Anthropic from '@anthropic-ai/sdk';
import { UsageError } from '../outcome.js';
import { lockHolder, sessionLock } from './lock.js';
import type { SessionOptions } from '../config.js';
import { resumeSession, type Resumed } from './resume.js';
import { newSessionId } from './session-id.js';
import { openStateDir } from './state-dir.js';
import { pruneSessions, sessionFile } from './store.js';
import { SessionLog, type SessionFileSpec } from './writer.js';
import type { Redactor } from '../sinks/redactor.js';
import { fileProblem } from '../file-problem.js';

export type { SessionOptions };

interface SessionSetup {
  options: SessionOptions;
  cwd: string;
  model: string;
  transcriptPath: string | undefined;
  agentVersion: string;
  /** The run's conversation: filled with the saved one when the run continues a session. */
  conversation: Anthropic.MessageParam[];
  /** What every record passes through on its way into the files. */
  redactor: Redactor;
}

export interface Session {
  id: string;
  log: SessionLog;
  /** Things to tell the user once stderr is set up: a session that cannot be saved, a repaired conversation. */
  notes: string[];
  /** Lets go of the session's lock. Idempotent; also safe from an exit handler. */
  release: () => void;
  /** Where the run records itself while it lives, or undefined when the state directory is not used. */
  runRecords: string | undefined;
  /** The day's prune of old sessions, if this run does it: the run waits for it before it exits. Never rejects. */
  housekeeping: Promise<void>;
}

/**
 * Sets up the session of a run: a new one, or the continuation of a saved one (loaded, repaired, locked), and the
 * files it is written to. Everything the user got wrong is a UsageError, before any request; a state directory that
 * cannot be written to is only a note, and the run goes on without saving.
 */
export function openSession(setup: SessionSetup): Session {
  const { options, conversation } = setup;
  const notes: string[] = [];
  const state = openStateDir(options.dir, options.persist);
  if (state.problem) notes.push(state.problem);
  const store = state.sessions !== undefined;
  const resumed =
    options.resume !== undefined || options.continueLatest
      ? resumeSession(options, setup.cwd, notes, state.untrusted)
      : undefined;
  const continuing = resumed && !options.fork ? resumed : undefined;
  const id = continuing ? continuing.loaded.header.session_id : newSessionId();
  const lock = sessionLock(options.dir, id);
  if (continuing) lock.claim(store, continuing.loaded.writerPid);
  let files: SessionFileSpec[];
  try {
    files = sessionFiles(setup, id, store, continuing, notes);
  } catch (error) {
    lock.release();
    throw error;
  }

  if (resumed) conversation.push(...resumed.repaired.history);
  const log = new SessionLog({
    sessionId: id,
    forkedFrom: resumed && options.fork ? resumed.loaded.header.session_id : undefined,
    model: setup.model,
    cwd: setup.cwd,
    agentVersion: setup.agentVersion,
    conversation,
    historyLength: conversation.length,
    files,
    redactor: setup.redactor,
  });
  if (resumed?.repaired.pendingResults) conversation.push(resumed.repaired.pendingResults);
  // Begun only once nothing here can fail: a run that stops at a usage error leaves the prune to the next run.
  const housekeeping = state.sessions === undefined ? Promise.resolve() : pruneInBackground(state.sessions);
  return { id, log, notes, release: () => lock.release(), runRecords: state.running, housekeeping };
}

/** Where the session is written: the state directory's file, the file it was continued from, the --transcript. */
function sessionFiles(
  setup: SessionSetup,
  id: string,
  store: boolean,
  continuing: Resumed | undefined,
  notes: string[],
): SessionFileSpec[] {
  const { options, transcriptPath } = setup;
  const files: SessionFileSpec[] = [];
  if (store) files.push(...storeFile(options.dir, id, continuing, notes));
  if (continuing && !sameFile(dirname(continuing.loaded.path), options.dir)) {
    files.push({ path: continuing.loaded.path, kind: 'append', from: 'conversation' });
  }
  if (transcriptPath) addTranscript(files, transcriptPath, id, continuing);
  return files;
}

function pruneInBackground(dir: string): Promise<void> {
  try {
    // Housekeeping, in the background: a directory that cannot be pruned must not stop the run.
    return pruneSessions(dir, (id) => lockHolder(dir, id) !== undefined).then(
      () => {},
      () => {},
    );
  } catch {
    // The marker cannot be written: another run prunes.
    return Promise.resolve();
  }
}

/** The state directory's file of the session: appended to when it holds the conversation being continued. */
function storeFile(dir: string, id: string, resumed: Resumed | undefined, notes: string[]): SessionFileSpec[] {
  const path = sessionFile(dir, id);
  const fresh: SessionFileSpec = { path, kind: 'new', from: 'conversation', inStateDir: true };
  const appended: SessionFileSpec = { ...fresh, kind: 'append' };
  if (!resumed) return [fresh];
  if (sameFile(path, resumed.loaded.path)) return [appended];
  if (!existsSync(path)) return [fresh];
  if (resumed.holdsSameConversation(path)) return [appended];
  notes.push(`${path} holds another state of session ${id} than ${resumed.loaded.path}; it is left as it is.`);
  return [];
}

/**
 * --transcript: a new file, or an empty one, or the file of this very session (appended to). Any other existing file
 * is refused rather than overwritten.
 */
function addTranscript(files: SessionFileSpec[], path: string, id: string, resumed: Resumed | undefined): void {
  const known = files.find((file) => sameFile(file.path, path));
  if (known) {
    known.from = 'start';
    return;
  }
  let fd: number;
  try {
    fd = openSync(path, existsSync(path) ? 'a' : 'wx', 0o600);
  } catch (error) {
    throw new UsageError(`Cannot write transcript ${path}: ${fileProblem(error)}.`);
  }
  const empty = fstatSync(fd).size === 0;
  if (!empty && !resumed?.holdsSameConversation(path)) {
    closeSync(fd);
    throw new UsageError(
      `Transcript ${path} already exists and is not this session's (${id}); it is left as it is.\nGive a new file, or remove that one first.`,
    );
  }
  files.push({ path, kind: empty ? 'new' : 'append', fd, from: 'start' });
}

function sameFile(a: string, b: string): boolean {
  return canonical(a) === canonical(b);
}

function canonical(path: string): string {
  try {
    return realpathSync(path);
  } catch {
    return resolve(path);
  }
}
