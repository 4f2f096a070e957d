// The environment commands run with: the agent's own environment without its secrets, plus
// settings that keep every common tool from waiting on a keyboard, opening a pager or painting
// the terminal. (The command also has no controlling terminal and stdin is /dev/null; these cover
// tools that would otherwise block, loop on retries, or print progress bars and colour codes.)
import { isApiCredential, looksSecret } from './secret-names.js';

/** Says which secret-looking variables the user lets through (`--pass-env`). */
export type PassEnv = (name: string) => boolean;

interface WithheldVariable {
  name: string;
  value: string;
}

interface SplitEnvironment {
  kept: Record<string, string>;
  /** Sorted by name. */
  withheld: WithheldVariable[];
}

const PASS_NONE: PassEnv = () => false;

/**
 * Always set: a pager, an editor or a prompt would hang a non-interactive run. The prologue exports them (see
 * prologue.ts) rather than the spawn carrying them: each variable passed to a spawn costs the agent a few checks and
 * a copy on every command, and bash sets them as quickly as it would take them from its environment.
 */
export const FORCED: Readonly<Record<string, string>> = {
  // Pagers: print instead of paging.
  PAGER: 'cat',
  GIT_PAGER: 'cat',
  MANPAGER: 'cat',
  GH_PAGER: 'cat',
  SYSTEMD_PAGER: '', // empty disables systemd's pager
  AWS_PAGER: '', // AWS CLI v2 pipes through less by default
  // Editors: "true" exits 0 at once, so nothing waits for an editor to close.
  EDITOR: 'true',
  VISUAL: 'true',
  GIT_EDITOR: 'true',
  GIT_SEQUENCE_EDITOR: 'true',
  GIT_MERGE_AUTOEDIT: 'no',
  // Credential and confirmation prompts: fail instead of asking.
  GIT_TERMINAL_PROMPT: '0',
  GCM_INTERACTIVE: 'never',
  GH_PROMPT_DISABLED: '1',
  DEBIAN_FRONTEND: 'noninteractive',
  PIP_NO_INPUT: '1',
  COMPOSER_NO_INTERACTION: '1',
  npm_config_yes: 'true', // npx installs what it needs instead of asking
  HOMEBREW_NO_AUTO_UPDATE: '1',
  // Colour and terminal effects: ANSI codes are stripped anyway, this avoids producing them.
  TERM: 'dumb',
  NO_COLOR: '1',
  FORCE_COLOR: '0',
  CLICOLOR: '0',
  npm_config_color: 'false',
  // Noise that costs the model tokens.
  npm_config_progress: 'false',
  npm_config_fund: 'false',
  npm_config_update_notifier: 'false',
  PIP_DISABLE_PIP_VERSION_CHECK: '1',
  PIP_PROGRESS_BAR: 'off',
  HOMEBREW_NO_ENV_HINTS: '1',
  // Flush Python's output as it is printed, so partial output survives a timeout.
  PYTHONUNBUFFERED: '1',
};

/** Set only when the user has not chosen a value: these carry real configuration. */
const DEFAULTS: Readonly<Record<string, string>> = {
  // Many tools (test runners' watch modes, create-* scaffolders, npm) turn prompts off under CI.
  CI: 'true',
  // Never ask for a passphrase or a host-key confirmation over ssh.
  GIT_SSH_COMMAND: 'ssh -o BatchMode=yes',
};

/** Removed: they would force colour back on. */
const REMOVED = ['CLICOLOR_FORCE'] as const;

/** The API credentials always go to `withheld`; other secrets too unless `passEnv` lets them through. */
export function splitEnvironment(base: NodeJS.ProcessEnv, passEnv: PassEnv = PASS_NONE): SplitEnvironment {
  const kept: Record<string, string> = {};
  const withheld: WithheldVariable[] = [];
  for (const [name, value] of Object.entries(base)) {
    if (value === undefined) continue;
    if (isApiCredential(name) || (looksSecret(name, value) && !passEnv(name))) withheld.push({ name, value });
    else kept[name] = value;
  }
  withheld.sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
  return { kept, withheld };
}

/** The environment the commands see. */
export function nonInteractiveEnv(
  base: NodeJS.ProcessEnv,
  cwd: string,
  passEnv: PassEnv = PASS_NONE,
): Record<string, string> {
  const env = splitEnvironment(base, passEnv).kept;
  for (const key of REMOVED) delete env[key];
  for (const [key, value] of Object.entries(DEFAULTS)) {
    if (env[key] === undefined) env[key] = value;
  }
  Object.assign(env, FORCED);
  // bash trusts PWD when it names the directory it starts in, keeping symlinked paths as typed.
  env.PWD = cwd;
  delete env.OLDPWD;
  return env;
}

/**
 * The environment the shell is started with: the command's, less what the prologue sets once it has run (FORCED, and
 * the settings with which bash would not run the prologue at all).
 */
export function shellStartEnv(commandEnv: Readonly<Record<string, string>>): Record<string, string> {
  const env = { ...commandEnv };
  for (const key of Object.keys(FORCED)) delete env[key];
  for (const key of Object.keys(heldBackSettings(commandEnv))) delete env[key];
  return env;
}

/**
 * The variables with which bash reads no BASH_ENV: POSIXLY_CORRECT and POSIX_PEDANTIC (POSIX mode), and a SHELLOPTS
 * that names `posix` or `privileged`. Started with one of them, a command's shell would skip its prologue, and with it
 * the closing of the agent's descriptors, the mark and the record of its directory; the prologue sets them last
 * instead (prologue.ts).
 */
export function heldBackSettings(env: Readonly<Record<string, string | undefined>>): Record<string, string> {
  const settings: Record<string, string> = {};
  for (const name of ['POSIXLY_CORRECT', 'POSIX_PEDANTIC']) {
    const value = env[name];
    if (value !== undefined) settings[name] = value;
  }
  const options = env.SHELLOPTS?.split(':');
  if (options?.includes('posix') || options?.includes('privileged')) settings.SHELLOPTS = env.SHELLOPTS!;
  return settings;
}
