// The process's environment is read here, once, and nowhere else: every setting a run takes from it travels in the
// Config. Nothing is ever written back, so what a dotenv file adds reaches only the settings the trust rules allow,
// and never Node itself (NODE_TLS_REJECT_UNAUTHORIZED, NODE_OPTIONS) or a library that reads the environment.
import { homedir } from 'node:os';
import type { RunEnvironment, TerminalSettings, Variables } from '../config.js';

/** A copy of the real environment, taken as the command starts. */
export function processEnvironment(): Variables {
  const variables: Record<string, string> = {};
  for (const [name, value] of Object.entries(process.env)) if (value !== undefined) variables[name] = value;
  return Object.freeze(variables);
}

/** What the run's commands and tools start from. */
export function runEnvironment(env: Variables, ignoredFromDotenv: Variables): RunEnvironment {
  return { variables: env, ignoredFromDotenv, home: env.HOME || homedir(), path: env.PATH ?? '' };
}

export function terminalSettings(env: Variables): TerminalSettings {
  return { forceColor: env.FORCE_COLOR, noColor: env.NO_COLOR, term: env.TERM };
}
