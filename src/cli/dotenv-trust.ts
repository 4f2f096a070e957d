// Loads the dotenv file. It only fills in what the real environment lacks. A `.env` found in the working
// directory belongs to the repository being worked on, so it may not send a credential from elsewhere
// to another server or send more with it: its ANTHROPIC_BASE_URL, ANTHROPIC_CUSTOM_HEADERS and proxy settings are
// then ignored, with a warning.
// A file named with --env-file is trusted like the environment.
import { readFileSync } from 'node:fs';
import { isAbsolute, resolve } from 'node:path';
import { parse as parseDotenv } from 'dotenv';
import { UsageError } from '../outcome.js';

/** Settings that decide where the credential is sent, and what goes with it. */
const REDIRECTING = ['ANTHROPIC_BASE_URL', 'ANTHROPIC_CUSTOM_HEADERS', 'HTTPS_PROXY', 'https_proxy', 'HTTP_PROXY', 'http_proxy'];

export interface LoadedDotenv {
  /** The file each variable it set came from. */
  origins: Map<string, string>;
  warnings: string[];
}

/** `option` is --env-file's path, false for --no-env-file, undefined for the working directory's `.env`. */
export function loadDotenv(option: string | false | undefined, cwd: string, env: NodeJS.ProcessEnv): LoadedDotenv {
  const loaded: LoadedDotenv = { origins: new Map(), warnings: [] };
  if (option === false) return loaded;
  const explicit = option !== undefined;
  const path = !explicit ? resolve(cwd, '.env') : isAbsolute(option) ? option : resolve(option);
  let text: string;
  try {
    text = readFileSync(path, 'utf8');
  } catch (error) {
    if (!explicit && (error as NodeJS.ErrnoException).code === 'ENOENT') return loaded;
    throw new UsageError(`Cannot read env file ${path}: ${(error as Error).message}`);
  }
  const values = parseDotenv(text);
  const outsideCredential = explicit ? undefined : credentialFromEnvironment(env, values);
  for (const [name, value] of Object.entries(values)) {
    if (env[name] !== undefined) continue;
    if (outsideCredential && REDIRECTING.includes(name) && value.trim() !== '') {
      loaded.warnings.push(
        `ignoring ${name} from ${path}: ${outsideCredential} comes from the environment, and a .env in the working directory ` +
          `may not send it elsewhere (use --env-file ${path} to trust this file).`,
      );
      continue;
    }
    env[name] = value;
    loaded.origins.set(name, path);
  }
  return loaded;
}

/** The name of the credential that will be sent when it comes from the real environment, else undefined. */
function credentialFromEnvironment(env: NodeJS.ProcessEnv, values: Record<string, string>): string | undefined {
  for (const name of ['ANTHROPIC_API_KEY', 'ANTHROPIC_AUTH_TOKEN']) {
    if (env[name]?.trim()) return name;
    if (values[name]?.trim()) return undefined;
  }
  return undefined;
}
