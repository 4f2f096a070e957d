// Loads the dotenv file into the run's environment (a new set of variables; the process's own is left alone). It
// only fills in what the real environment lacks. A file named with --env-file is trusted like the environment.
// A `.env` found in the working directory belongs to the repository being worked on, which may be hostile: it may
// set only the agent's own settings, and may choose where the credential goes only for a credential of its own.
import { isAbsolute, resolve } from 'node:path';
import { parse as parseDotenv } from 'dotenv';
import { PROXY_VARIABLES } from '../api/proxy-settings.js';
import type { Variables } from '../config.js';
import { readDotenvFile } from './dotenv-file.js';

const MODEL_SETTINGS = ['MODEL_ID', 'ANTHROPIC_MODEL'];
const CREDENTIALS = ['ANTHROPIC_API_KEY', 'ANTHROPIC_AUTH_TOKEN'];
/** Settings that decide where the credential is sent, and what goes with it. */
const ROUTING = ['ANTHROPIC_BASE_URL', 'ANTHROPIC_CUSTOM_HEADERS', ...PROXY_VARIABLES];

interface LoadedDotenv {
  /** The real environment, with what the file was allowed to fill in. */
  env: Variables;
  /** The file each variable it set came from. */
  origins: Map<string, string>;
  /** What the working directory's `.env` named and the trust rules kept out, with its values. */
  ignored: Variables;
  warnings: string[];
}

/** `option` is --env-file's path, false for --no-env-file, undefined for the working directory's `.env`. */
export function loadDotenv(option: string | false | undefined, cwd: string, real: Variables): LoadedDotenv {
  const loaded: LoadedDotenv = { env: real, origins: new Map(), ignored: {}, warnings: [] };
  if (option === false) return loaded;
  const trusted = option !== undefined;
  const path = !trusted ? resolve(cwd, '.env') : isAbsolute(option) ? option : resolve(option);
  const file = readDotenvFile(path, trusted);
  if (file.kind === 'absent') return loaded;
  if (file.kind === 'refused') {
    loaded.warnings.push(
      `ignoring ${path}: it ${file.reason}, which a .env in the working directory may not be (use --env-file ${path} to read it).`,
    );
    return loaded;
  }
  const values = parseDotenv(file.text);
  const accepted = trusted ? { values, ignored: [] } : screenRepositoryDotenv(values, real);
  if (accepted.ignored.length > 0) loaded.warnings.push(ignoredWarning(path, accepted.ignored));
  const ignoredNames = accepted.ignored.flatMap((group) => group.names);
  loaded.ignored = Object.freeze(Object.fromEntries(ignoredNames.map((name) => [name, values[name]!])));
  const env: Record<string, string> = { ...real };
  for (const [name, value] of Object.entries(accepted.values)) {
    if (!fillable(real, name)) continue;
    env[name] = value;
    loaded.origins.set(name, path);
  }
  loaded.env = Object.freeze(env);
  return loaded;
}

/**
 * The real environment wins. A credential variable that is set but empty or blank supplies nothing, so the file may
 * fill it in when the environment supplies no credential at all.
 */
function fillable(real: Variables, name: string): boolean {
  const value = real[name];
  if (value === undefined) return true;
  return CREDENTIALS.includes(name) && value.trim() === '' && realCredential(real) === undefined;
}

/** The credential variable of the real environment that holds a value, if any. */
function realCredential(real: Variables): string | undefined {
  return CREDENTIALS.find((name) => real[name]?.trim());
}

interface Ignored {
  names: string[];
  /** Why, as the end of a sentence that starts with the names. */
  why: string;
}

/** What a repository's `.env` may set, and what it names that is ignored, grouped by reason. */
function screenRepositoryDotenv(
  values: Record<string, string>,
  real: Variables,
): { values: Record<string, string>; ignored: Ignored[] } {
  const fromEnvironment = realCredential(real);
  const ownCredential = fromEnvironment ? undefined : CREDENTIALS.find((name) => values[name]?.trim());
  // Headers from the environment may carry a gateway's key: they go nowhere the repository chose either.
  const realHeaders = real.ANTHROPIC_CUSTOM_HEADERS?.trim() ? 'ANTHROPIC_CUSTOM_HEADERS' : undefined;
  const outside = fromEnvironment ?? realHeaders;
  const kept: Record<string, string> = {};
  const notOurs: string[] = [];
  const notItsCredential: string[] = [];
  for (const [name, value] of Object.entries(values)) {
    const allowed =
      MODEL_SETTINGS.includes(name) ||
      (CREDENTIALS.includes(name) && fromEnvironment === undefined) ||
      (ROUTING.includes(name) && ownCredential !== undefined && outside === undefined);
    if (allowed) kept[name] = value;
    else (CREDENTIALS.includes(name) || ROUTING.includes(name) ? notItsCredential : notOurs).push(name);
  }
  const ignored: Ignored[] = [];
  if (notOurs.length > 0) {
    ignored.push({ names: notOurs, why: "a .env in the working directory may set only the agent's own settings" });
  }
  if (notItsCredential.length > 0) {
    const why = outside
      ? `${outside} comes from the environment, and a .env in the working directory may not replace it or send it elsewhere`
      : 'the .env brings no credential of its own, and may choose where a credential goes only for its own';
    ignored.push({ names: notItsCredential, why });
  }
  return { values: kept, ignored };
}

function ignoredWarning(path: string, ignored: Ignored[]): string {
  const all = ignored.flatMap((group) => group.names);
  const reasons = ignored.map((group) => `${group.names.join(', ')}: ${group.why}`).join('; ');
  return `ignoring ${all.join(', ')} from ${path} (${reasons}). Use --env-file ${path} to trust this file.`;
}
