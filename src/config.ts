import type { GuardPolicy } from './guard/judge.js';
import type { ProjectInstructions } from './instructions/load.js';
import type { ModelPlan } from './api/thinking.js';

// The settings of a run. The command line builds a Config from flags, environment and dotenv file
// (src/cli/config.ts); everything else only reads one.

export type OutputFormat = 'text' | 'json' | 'stream-json';

/** The limits of one run beyond --max-turns: what it may cost and how long it may take. */
export interface RunBudget {
  /** --max-budget-usd: no model call starts once the run has cost this much. */
  maxCostUsd: number | undefined;
  /** --max-duration, in seconds of wall clock from start-up. */
  maxDurationSec: number | undefined;
}

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

/** Exactly one credential: an API key (sent in x-api-key) or a bearer token. */
export type Credentials = { apiKey: string } | { authToken: string };

/** What a run is told to do, every value checked. */
export interface Config {
  /** The main model: plans.main.model. */
  model: string;
  /** How each model is asked: the main one, and --fallback-model's. */
  plans: { main: ModelPlan; fallback: ModelPlan | undefined };
  maxTurns: number;
  /** The main model's max_tokens: plans.main.maxTokens. */
  maxTokens: number;
  timeoutSec: number;
  maxTimeoutSec: number;
  cwd: string;
  outputFormat: OutputFormat;
  /** The replacement of the built-in system prompt (--system-prompt or --system-prompt-file). */
  systemPrompt: string | undefined;
  /** Appended after the project instructions (--append-system-prompt or --append-system-prompt-file). */
  appendSystemPrompt: string | undefined;
  /** The repository's AGENTS.md / CLAUDE.md files, read once at start-up; none with --no-project-instructions. */
  instructions: ProjectInstructions;
  guard: GuardPolicy;
  sandbox: boolean;
  transcriptPath: string | undefined;
  quiet: boolean;
  verbose: boolean;
  cache: boolean;
  contextWindow: number;
  credentials: Credentials;
  baseURL: string | undefined;
  retryBaseDelayMs: number;
  streamIdleMs: number;
  /** Said on stderr as the run starts (an ignored .env setting, say). */
  warnings: string[];
  /** Globs of secret-looking variables the commands may see anyway. */
  passEnv: string[];
  /** Absolute paths shown read-only under --sandbox. */
  sandboxExpose: string[];
  /** --json-schema as given: inline JSON text or a path; read and checked by the structured-answer module. */
  jsonSchema: string | undefined;
  session: SessionOptions;
  budget: RunBudget;
}
