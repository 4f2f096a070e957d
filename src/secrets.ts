import type { Config } from './config.js';
import { compileGlob } from './glob.js';
import {
  MIN_SECRET_LENGTH,
  secretPatterns,
  SecretMasker,
  type SecretValue,
  type TextFilter,
} from './shell/secret-mask.js';
import { splitEnvironment, type PassEnv } from './shell/shell-env.js';
import { createRedactor, type Redactor } from './sinks/redactor.js';

/** What a run needs to keep secrets away from the model: which variables pass, and a mask for the output. */
export interface RunSecrets {
  passEnv: PassEnv;
  /** Undefined when there is nothing long enough to mask. */
  createMask: (() => TextFilter) | undefined;
  /** What every sink passes its text through: the model's tool results, stderr, stdout, the session, the transcript. */
  redactor: Redactor;
  /** For `-v`: the names withheld, never the values. */
  notice: string;
}

export function prepareSecrets(config: Config): RunSecrets {
  const passEnv = passEnvPredicate(config.passEnv);
  const { withheld } = splitEnvironment(config.env.variables, passEnv);
  const ignored = splitEnvironment(config.env.ignoredFromDotenv).withheld.filter(looksGenerated);
  const credential: SecretValue =
    'apiKey' in config.credentials
      ? { name: 'ANTHROPIC_API_KEY', value: config.credentials.apiKey }
      : { name: 'ANTHROPIC_AUTH_TOKEN', value: config.credentials.authToken };
  const patterns = secretPatterns([...withheld, ...ignored, credential]);
  return {
    passEnv,
    createMask: patterns.length === 0 ? undefined : () => new SecretMasker(patterns),
    redactor: createRedactor(patterns),
    notice: describeWithheld(
      withheld.map((variable) => variable.name),
      withheld.filter(isShort).map((variable) => variable.name),
    ),
  };
}

function passEnvPredicate(globs: string[]): PassEnv {
  const patterns = globs.flatMap((glob) => {
    const compiled = compileGlob(glob);
    return compiled.ok ? [compiled.regexp] : [];
  });
  return patterns.length === 0 ? () => false : (name) => patterns.some((pattern) => pattern.test(name));
}

/**
 * A value the repository's .env named that looks like a generated credential: a long run of key characters, letters and
 * digits both, no dot or space. Any other value is not masked, or a pull request could hide a chosen string (a host
 * name, a path) from the model and from whoever reads the log.
 */
function looksGenerated(variable: SecretValue): boolean {
  const value = variable.value.trim();
  return /^[A-Za-z0-9_+/=-]{16,}$/.test(value) && /[A-Za-z]/.test(value) && /[0-9]/.test(value);
}

function isShort(variable: SecretValue): boolean {
  return variable.value.trim().length < MIN_SECRET_LENGTH;
}

function describeWithheld(names: string[], short: string[]): string {
  if (names.length === 0) return "withheld from the commands' environment: none";
  const shortNote =
    short.length === 0
      ? ''
      : `; too short to mask in output (under ${MIN_SECRET_LENGTH} characters): ${short.join(', ')}`;
  return `withheld from the commands' environment: ${names.join(', ')}${shortNote}`;
}
