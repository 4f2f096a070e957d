// The scripts around the commands. Each command runs as `bash -c command`, untouched, so bash reports its errors
// and line numbers as usual. The bookkeeping runs first through BASH_ENV, which a non-interactive bash sources
// before the command (even before parsing it, so syntax errors are merged too): close every descriptor beyond
// stdio that the agent inherited, export the settings that keep tools from waiting on a keyboard, merge stderr into
// stdout, mark the shell so that what it starts can be found later, keep track of its directory, and hand the user's
// own BASH_ENV (if any) back to the command and its children.
//
// The host writes the prologue once, into a fresh directory (a sandbox shows it read-only), and never writes the
// files the shell writes; it only reads the directory file back (directory-record.ts), without following links.
import { lstatSync, mkdirSync, writeFileSync } from 'node:fs';
import path from 'node:path';

/** The shell's bookkeeping files, in its private state directory; written once, used by every command. */
export interface ShellFiles {
  stateDir: string;
  prologue: string;
  /** The only place the shell itself writes to (a sandbox must show it writable): the two files below. */
  writableDir: string;
  /** The directory the shell is in: written when it starts, on every change of directory and on exit. */
  cwd: string;
  /** Scratch space for the error message of a failed cd. */
  cdError: string;
}

/** How a command reaches bash: the `-c` argument, and the text to feed on its stdin (a long command), if any. */
interface CommandArgument {
  argument: string;
  stdin: string | null;
}

interface PrologueOptions {
  /** Variables every command gets, whatever the shell's environment says (shell-env.ts). */
  exports: Readonly<Record<string, string>>;
  /** What the shell's start went without, since bash would then read no BASH_ENV (shell-env.ts): set last. */
  heldBack?: Readonly<Record<string, string>>;
  /** Bash that marks the shell and everything it starts (see process-mark.ts). */
  mark: string;
  /** The user's own BASH_ENV, sourced after the bookkeeping and passed on to the command's children. */
  userBashEnv: string | undefined;
  /**
   * The descriptors above 2 the shell inherits from the agent (see inherited-descriptors.ts), closed first thing;
   * undefined when they are not known, and the shell then closes every descriptor above 2 it finds.
   */
  inheritedDescriptors: readonly number[] | undefined;
}

/** Linux refuses a single argument over 128 KiB (MAX_ARG_STRLEN); longer commands go through a file. */
const MAX_INLINE_COMMAND_BYTES = 100_000;

/**
 * Every descriptor above 2 closed, whatever opened it: the command must not reach what the agent inherited. The
 * glob's own descriptor is gone by the time the loop runs. (/dev/fd is /proc/self/fd on Linux.) Used only where the
 * agent could not read its own descriptors; listing them costs the shell more than all the rest of the prologue.
 */
const CLOSE_EVERY_DESCRIPTOR =
  'for __agent_fd in /dev/fd/*; do __agent_fd=${__agent_fd##*/}; ' +
  '[[ $__agent_fd == [0-9]* && $__agent_fd -gt 2 ]] && builtin eval "exec $__agent_fd>&-"; done 2>/dev/null; unset __agent_fd';

/** The file names of a state directory (already made, empty, private). */
export function shellFiles(stateDir: string): ShellFiles {
  const writableDir = path.join(stateDir, 'rw');
  return {
    stateDir,
    prologue: path.join(stateDir, 'prologue.sh'),
    writableDir,
    cwd: path.join(writableDir, 'cwd'),
    cdError: path.join(writableDir, 'cd-error'),
  };
}

/** The state directory, its prologue and its writable directory are still what they were made as, not links. */
export function filesIntact(files: ShellFiles): boolean {
  const kinds = [files.stateDir, files.prologue, files.writableDir].map((file) =>
    lstatSync(file, { throwIfNoEntry: false }),
  );
  return kinds[0]?.isDirectory() === true && kinds[1]?.isFile() === true && kinds[2]?.isDirectory() === true;
}

export function writePrologue(files: ShellFiles, options: PrologueOptions): void {
  const { userBashEnv } = options;
  const heldBack = options.heldBack ?? {};
  // Started with those settings, bash itself would have read no BASH_ENV, the user's included.
  const sourceUserBashEnv = userBashEnv !== undefined && userBashEnv !== '' && Object.keys(heldBack).length === 0;
  const prologue = [
    ...closeInherited(options.inheritedDescriptors),
    ...exportLine(options.exports),
    userBashEnv ? `export BASH_ENV=${shellQuote(userBashEnv)}` : 'unset BASH_ENV',
    'exec 2>&1',
    options.mark,
    `${recordDirectory(files.cwd)} 2>/dev/null`,
    directoryTracker(files),
    ...['cd', 'pushd', 'popd'].map(trackingFunction),
    ...(sourceUserBashEnv ? ['. "$BASH_ENV"'] : []),
    `trap ${shellQuote(`{ ${recordDirectory(files.cwd)}; } 2>/dev/null`)} EXIT`,
    ...restoreHeldBack(heldBack),
    '',
  ].join('\n');
  mkdirSync(files.writableDir, { mode: 0o700 });
  // A new file in a new directory: never an existing one, never through a link.
  writeFileSync(files.prologue, prologue, { mode: 0o600, flag: 'wx' });
}

/** One `export` of every variable, before the user's own BASH_ENV, which may set them otherwise as it always could. */
function exportLine(variables: Readonly<Record<string, string>>): string[] {
  const assignments = Object.entries(variables).map(([name, value]) => {
    if (!/^[A-Za-z_][A-Za-z0-9_]*$/.test(name)) throw new Error(`not a variable name: ${name}`);
    return `${name}=${shellQuote(value)}`;
  });
  return assignments.length === 0 ? [] : [`builtin export ${assignments.join(' ')}`];
}

/**
 * The settings the shell started without, once the bookkeeping is done, as bash would have taken them at start:
 * `set -o posix` where one asks for POSIX mode (it sets POSIXLY_CORRECT in the shell, unexported, when unset), a
 * SHELLOPTS's options turned on one by one (it is read-only) and exported again, and the variables as they were.
 */
function restoreHeldBack(settings: Readonly<Record<string, string>>): string[] {
  const { SHELLOPTS: shellOptions, ...variables } = settings;
  const options = shellOptions?.split(':').filter((option) => /^[a-z-]+$/.test(option));
  const posix = options?.includes('posix') || 'POSIXLY_CORRECT' in variables || 'POSIX_PEDANTIC' in variables;
  const lines = posix ? ['builtin set -o posix'] : [];
  if (options !== undefined) {
    const others = options.filter((option) => option !== 'posix');
    if (others.length > 0) lines.push(`builtin set ${others.map((option) => `-o ${option}`).join(' ')} 2>/dev/null`);
    lines.push('builtin export SHELLOPTS');
  }
  return [...lines, ...exportLine(variables)];
}

/** The line that closes the inherited descriptors: none when there are none (the common case, and free). */
function closeInherited(descriptors: readonly number[] | undefined): string[] {
  if (descriptors === undefined) return [CLOSE_EVERY_DESCRIPTOR];
  const numbers = descriptors.filter((fd) => Number.isSafeInteger(fd) && fd > 2);
  return numbers.length === 0 ? [] : [`exec ${numbers.map((fd) => `${fd}>&-`).join(' ')}`];
}

/**
 * The argument for `bash -c`: the command itself, or when too long for one argument, a line that sources it from
 * the shell's stdin, read whole before it runs, with stdin /dev/null for the command as for any other. No file is
 * written for it. It goes through a pipe (cat's), since a socket, as Node's stdin pipes are, cannot be opened as
 * /dev/fd/N; the command's first act closes that pipe, on its first line so that line numbers stay its own.
 */
export function commandArgument(command: string): CommandArgument {
  if (Buffer.byteLength(command) <= MAX_INLINE_COMMAND_BYTES) return { argument: command, stdin: null };
  return {
    argument: '. <(builtin exec cat) </dev/null',
    stdin: `builtin eval "exec \${BASH_SOURCE##*/}<&-"; ${command}`,
  };
}

/** The function that runs a directory builtin and records where it went (see trackingFunction). */
const TRACKER = '__agent_track_directory';

/**
 * `cd`, `pushd` and `popd` as functions that record the new directory as soon as the shell (not a subshell) is
 * there. An EXIT trap alone would miss the commands that set their own trap, clear it, `exec` another program or
 * get killed; the trap stays for a `builtin cd`. The bookkeeping stays out of `set -x` traces. The three share one
 * tracker: bash pays for every function it defines on every command, by the size of its body.
 */
function trackingFunction(builtin: string): string {
  return `${builtin}() { { ${TRACKER} ${builtin} "$@"; } 3>&2 2>/dev/null; }`;
}

/**
 * Runs the builtin named first with the other arguments, stderr on descriptor 3. Its error message is captured and
 * printed as bash would have printed it from the line that called cd (one call further up than the tracker).
 */
function directoryTracker(files: ShellFiles): string {
  const [writableDir, errorFile] = [files.writableDir, files.cdError].map(shellQuote);
  const prologuePrefix = shellQuote(`${files.prologue}: line `);
  return `${TRACKER}() {
  local __agent_builtin=$1 __agent_status=0 __agent_error=
  shift
  [[ -d ${writableDir} ]] || { builtin "$__agent_builtin" "$@" 2>&3; return; }
  builtin "$__agent_builtin" "$@" 2>| ${errorFile} || __agent_status=$?
  if ((__agent_status == 0 && BASHPID == $$)); then ${recordDirectory(files.cwd)}; fi
  if [[ -s ${errorFile} ]]; then
    IFS= builtin read -r -d '' __agent_error < ${errorFile} || :
    __agent_error=\${__agent_error#${prologuePrefix}}
    builtin printf '%s: line %s: %s' "\${BASH_SOURCE[2]:-$0}" "\${BASH_LINENO[1]}" "\${__agent_error#*: }" >&3
  fi
  return "$__agent_status"
}`;
}

/**
 * Bash that writes the shell's directory, NUL-terminated, over the start of the file. Not truncating the file
 * keeps a cd cheap: truncating a file that holds data costs the filesystem a hundred microseconds or more.
 */
function recordDirectory(file: string): string {
  return `builtin printf '%s\\0' "$PWD" 1<> ${shellQuote(file)}`;
}

function shellQuote(text: string): string {
  return `'${text.replace(/'/g, `'\\''`)}'`;
}
