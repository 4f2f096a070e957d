/**
 * The scripts around the commands. Each command runs as `bash -c command`, untouched, so bash reports its errors
 * and line numbers as usual. The bookkeeping runs first through BASH_ENV, which a non-interactive bash sources
 * before the command (even before parsing it, so syntax errors are merged too): merge stderr into stdout, mark the
 * shell so that what it starts can be found later, keep track of its directory, and hand the user's own BASH_ENV
 * (if any) back to the command and its children.
 */
import { readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';

/** The shell's bookkeeping files, in its private state directory; written once, used by every command. */
export interface ShellFiles {
  stateDir: string;
  prologue: string;
  /** The directory the shell is in: written when it starts, on every change of directory and on exit. */
  cwd: string;
  /** Scratch space for the error message of a failed cd. */
  cdError: string;
}

export interface PrologueOptions {
  /** Bash that marks the shell and everything it starts (see process-mark.ts). */
  mark: string;
  /** The user's own BASH_ENV, sourced after the bookkeeping and passed on to the command's children. */
  userBashEnv: string | undefined;
}

/** Linux refuses a single argument over 128 KiB (MAX_ARG_STRLEN); longer commands go through a file. */
const MAX_INLINE_COMMAND_BYTES = 100_000;

export function shellFiles(stateDir: string): ShellFiles {
  return {
    stateDir,
    prologue: path.join(stateDir, 'prologue.sh'),
    cwd: path.join(stateDir, 'cwd'),
    cdError: path.join(stateDir, 'cd-error'),
  };
}

export function writePrologue(files: ShellFiles, options: PrologueOptions): void {
  const { userBashEnv } = options;
  const prologue = [
    userBashEnv ? `export BASH_ENV=${shellQuote(userBashEnv)}` : 'unset BASH_ENV',
    'exec 2>&1',
    options.mark,
    `${recordDirectory(files.cwd)} 2>/dev/null`,
    ...['cd', 'pushd', 'popd'].map((builtin) => trackingFunction(builtin, files)),
    ...(userBashEnv ? ['. "$BASH_ENV"'] : []),
    `trap ${shellQuote(`{ ${recordDirectory(files.cwd)}; } 2>/dev/null`)} EXIT`,
    '',
  ].join('\n');
  writeFileSync(files.prologue, prologue, { mode: 0o600 });
}

/** The argument for `bash -c`: the command itself, or when too long, a line that sources the file it was written to. */
export function commandArgument(command: string, files: ShellFiles, id: number): { argument: string; file: string | null } {
  if (Buffer.byteLength(command) <= MAX_INLINE_COMMAND_BYTES) return { argument: command, file: null };
  const file = path.join(files.stateDir, `command-${id}.sh`);
  writeFileSync(file, command, { mode: 0o600 });
  return { argument: `. ${shellQuote(file)}`, file };
}

/**
 * `cd`, `pushd` and `popd` as functions that record the new directory as soon as the shell (not a subshell) is
 * there. An EXIT trap alone would miss the commands that set their own trap, clear it, `exec` another program or
 * get killed; the trap stays for a `builtin cd`. The builtin's error message is captured and printed as bash
 * would have printed it from the caller's line, and the bookkeeping stays out of `set -x` traces.
 */
function trackingFunction(builtin: string, files: ShellFiles): string {
  const [stateDir, errorFile] = [files.stateDir, files.cdError].map(shellQuote);
  const prologuePrefix = shellQuote(`${files.prologue}: line `);
  return `${builtin}() {
  {
    [[ -d ${stateDir} ]] || { builtin ${builtin} "$@" 2>&3; return; }
    local __agent_status=0 __agent_error=
    builtin ${builtin} "$@" 2>| ${errorFile} || __agent_status=$?
    if ((__agent_status == 0 && BASHPID == $$)); then ${recordDirectory(files.cwd)}; fi
    if [[ -s ${errorFile} ]]; then
      IFS= builtin read -r -d '' __agent_error < ${errorFile} || :
      __agent_error=\${__agent_error#${prologuePrefix}}
      builtin printf '%s: line %s: %s' "\${BASH_SOURCE[1]:-$0}" "\${BASH_LINENO[0]}" "\${__agent_error#*: }" >&3
    fi
    return "$__agent_status"
  } 3>&2 2>/dev/null
}`;
}

/**
 * Bash that writes the shell's directory, NUL-terminated, over the start of the file. Not truncating the file
 * keeps a cd cheap: truncating a file that holds data costs the filesystem a hundred microseconds or more.
 */
function recordDirectory(file: string): string {
  return `builtin printf '%s\\0' "$PWD" 1<> ${shellQuote(file)}`;
}

/** The directory the shell ended in, as last recorded; null when nothing was recorded. */
export function readFinalDirectory(file: string): string | null {
  let recorded: string;
  try {
    recorded = readFileSync(file, 'utf8');
  } catch {
    return null;
  }
  const end = recorded.indexOf('\0');
  const dir = end === -1 ? '' : recorded.slice(0, end);
  return path.isAbsolute(dir) ? dir : null;
}

function shellQuote(text: string): string {
  return `'${text.replace(/'/g, `'\\''`)}'`;
}
