import type { GuardPolicy } from './guard/judge.js';
import type { ProjectInstructions } from './instructions/load.js';

// The settings of a run. The command line builds a Config from flags, environment and dotenv file
// (src/cli/config.ts); everything else only reads one, and never the process's environment itself.

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

/** Variables by name, as an environment holds them. */
export type Variables = Readonly<Record<string, string>>;

/** What the run takes from its environment: the real one, plus what the dotenv file was allowed to add. */
export interface RunEnvironment {
  /** Every variable, as the commands start from them (secrets are withheld from the commands later). */
  variables: Variables;
  /**
   * What the working directory's `.env` named and the run ignored: not in any environment, but a secret-looking
   * value among them is still masked in the output (a command may read the file).
   */
  ignoredFromDotenv: Variables;
  /** The home directory: HOME, else the account's. */
  home: string;
  /** PATH, where programs the run needs (bwrap) are looked for. */
  path: string;
}

/** How the API requests travel. */
export interface NetworkSettings {
  /** The proxy variables (HTTPS_PROXY, HTTP_PROXY, NO_PROXY, in either case) that apply. */
  proxy: Variables;
  /**
   * NODE_EXTRA_CA_CERTS: the file, its PEM text when it could be read, and whether Node loaded it itself at start-up
   * (it was in the process's environment).
   */
  extraCa: { file: string; pem: string | undefined; loadedAtStart: boolean } | undefined;
  /** ANTHROPIC_CUSTOM_HEADERS, parsed: sent with every request. */
  customHeaders: Record<string, string>;
}

/** What the rendering on stderr needs to know of the terminal, beyond the stream itself. */
export interface TerminalSettings {
  /** FORCE_COLOR, NO_COLOR and TERM as the environment has them. */
  forceColor: string | undefined;
  noColor: string | undefined;
  term: string | undefined;
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
  network: NetworkSettings;
  env: RunEnvironment;
  terminal: TerminalSettings;
  retryBaseDelayMs: number;
  streamIdleMs: number;
  /** Said on stderr as the run starts (an ignored .env setting, say). */
  warnings: string[];
  /** Globs of secret-looking variables the commands may see anyway. */
  passEnv: string[];
  /** Absolute paths shown read-only under --sandbox. */
  sandboxExpose: string[];
  /** The size of the sandbox's /tmp, in bytes. */
  sandboxTmpBytes: number;
  /** --json-schema as given: inline JSON text or a path; read and checked by the structured-answer module. */
  jsonSchema: string | undefined;
  session: SessionOptions;
  budget: RunBudget;
}

export type Effort = 'low' | 'medium' | 'high' | 'max';

export type ThinkingParam = { type: 'adaptive' } | { type: 'enabled'; budget_tokens: number };

/** How one model is asked: its id, max_tokens, and the thinking settings it takes. */
export interface ModelPlan {
  model: string;
  maxTokens: number;
  /** The max_tokens to send once the endpoint refuses thinking, when maxTokens was raised to leave thinking room. */
  maxTokensWithoutThinking?: number;
  thinking: ThinkingParam | undefined;
  effort: Effort | undefined;
}
