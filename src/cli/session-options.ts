import { UsageError } from '../outcome.js';
import type { SessionOptions, Variables } from '../config.js';
import { sessionsDir } from '../session/store.js';

export interface RawSessionOptions {
  resume?: string;
  continue?: boolean;
  forkSession?: boolean;
  sessionPersistence?: boolean;
}

/** --resume, --continue, --fork-session and --no-session-persistence, checked against each other. */
export function resolveSessionOptions(raw: RawSessionOptions, env: Variables): SessionOptions {
  const resume = raw.resume?.trim();
  if (resume === '') throw new UsageError('--resume needs a session id or a session file.');
  if (resume !== undefined && raw.continue) {
    throw new UsageError(
      '--resume and --continue cannot be used together: --resume names a session, --continue takes the latest one here.',
    );
  }
  if (raw.forkSession && resume === undefined && !raw.continue) {
    throw new UsageError('--fork-session goes with --resume or --continue: it branches off the session they continue.');
  }
  return {
    resume,
    continueLatest: Boolean(raw.continue),
    fork: Boolean(raw.forkSession),
    persist: raw.sessionPersistence !== false,
    dir: sessionsDir(env),
  };
}
