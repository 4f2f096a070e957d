/** How a run's session is chosen and kept, from the command line. */
export interface SessionOptions {
  /** --resume: a session id or a session file. */
  resume: string | undefined;
  /** --continue: the most recent session of the working directory. */
  continueLatest: boolean;
  /** --fork-session: the continuation gets a new id and file; the original is left as it was. */
  fork: boolean;
  /** Off with --no-session-persistence: nothing is written under the state directory. */
  persist: boolean;
  /** Where sessions are saved: $XDG_STATE_HOME/agent/sessions. */
  dir: string;
}
