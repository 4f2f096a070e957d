// What the guard knows about the shell's variables while it walks a command line: the environment the
// commands run with, and what the line itself assigns, in the order it assigns it.
import type { SyntaxNode } from 'unbash';
import { scanVariables } from './assignments.js';

export interface VariableValue {
  /** The value; an unknowable piece inside it (a command substitution) reads as `*`. */
  readonly text: string;
  /** The value was built on a variable that was unset or empty at its start (`D="$UNSET"/out`). */
  readonly emptyVariable?: string;
}

type Lookup =
  | { readonly kind: 'value'; readonly value: VariableValue }
  | { readonly kind: 'unset' }
  | { readonly kind: 'unknown' };

type Tracked = VariableValue | 'unset' | 'unknown';

const UNKNOWN: Lookup = { kind: 'unknown' };
const UNSET: Lookup = { kind: 'unset' };

/** Variables bash sets itself, or that change under the guard's feet: never judged unset. */
const SET_BY_BASH: ReadonlySet<string> = new Set([
  '_',
  'BASH',
  'BASHOPTS',
  'BASHPID',
  'BASH_ALIASES',
  'BASH_ARGC',
  'BASH_ARGV',
  'BASH_ARGV0',
  'BASH_CMDS',
  'BASH_COMMAND',
  'BASH_LINENO',
  'BASH_REMATCH',
  'BASH_SOURCE',
  'BASH_SUBSHELL',
  'BASH_VERSINFO',
  'BASH_VERSION',
  'COLUMNS',
  'DIRSTACK',
  'EPOCHREALTIME',
  'EPOCHSECONDS',
  'EUID',
  'FUNCNAME',
  'GROUPS',
  'HISTCMD',
  'HOSTNAME',
  'HOSTTYPE',
  'IFS',
  'LINENO',
  'LINES',
  'MACHTYPE',
  'OLDPWD',
  'OPTARG',
  'OPTERR',
  'OPTIND',
  'OSTYPE',
  'PATH',
  'PIPESTATUS',
  'PPID',
  'PS1',
  'PS2',
  'PS4',
  'PWD',
  'RANDOM',
  'REPLY',
  'SECONDS',
  'SHELL',
  'SHELLOPTS',
  'SHLVL',
  'SRANDOM',
  'UID',
]);

export class VariableScope {
  /** `set -u` is on: expanding an unset variable stops the command instead of giving nothing. */
  nounset = false;
  private readonly tracked = new Map<string, Tracked>();
  /** Something (`source`, `eval`, a user's BASH_ENV) may have set any variable at all. */
  private opaque: boolean;
  /** Inside a loop or a function body, an assignment written later may already have run. */
  private repeatDepth = 0;
  private readonly scripts: SyntaxNode[] = [];
  private scanned = 0;
  private readonly assignedAnywhere = new Set<string>();
  private readonly testedAnywhere = new Set<string>();
  private opaqueAnywhere = false;

  /**
   * `env` is the environment the commands run with; without it, a variable the line does not assign is unknown
   * rather than unset. `home` is the home directory `~` and `$HOME` name.
   */
  constructor(
    private readonly env: Readonly<Record<string, string | undefined>> | undefined,
    readonly home: string,
  ) {
    // bash sources BASH_ENV before the command, and it may set anything.
    this.opaque = env?.BASH_ENV !== undefined && env.BASH_ENV !== '';
  }

  lookup(name: string): Lookup {
    const tracked = this.tracked.get(name);
    if (tracked === 'unset') return UNSET;
    if (tracked === 'unknown') return UNKNOWN;
    if (tracked !== undefined) return { kind: 'value', value: tracked };
    if (SET_BY_BASH.has(name) || this.env === undefined) return UNKNOWN;
    const value = this.env[name];
    if (value !== undefined) return { kind: 'value', value: { text: value } };
    if (this.opaque || this.mayBeSetAfterAll(name)) return UNKNOWN;
    return UNSET;
  }

  assign(name: string, value: VariableValue | 'unknown'): void {
    this.tracked.set(name, value);
  }

  unset(name: string): void {
    this.tracked.set(name, 'unset');
  }

  makeOpaque(): void {
    this.opaque = true;
  }

  /** Runs `body` with the variables of a child's environment (`D=x bash -c '…'`) set, then puts them back. */
  withChildVariables(variables: ReadonlyMap<string, VariableValue | 'unknown'>, body: () => void): void {
    if (variables.size === 0) return body();
    const saved = new Map<string, Tracked | undefined>();
    for (const [name, value] of variables) {
      saved.set(name, this.tracked.get(name));
      this.tracked.set(name, value);
    }
    try {
      body();
    } finally {
      for (const [name, value] of saved) {
        if (value === undefined) this.tracked.delete(name);
        else this.tracked.set(name, value);
      }
    }
  }

  enterRepeated(): void {
    this.repeatDepth += 1;
  }

  leaveRepeated(): void {
    this.repeatDepth -= 1;
  }

  /** A script of the line (the line itself, or one given to `bash -c` or `eval`), scanned only when needed. */
  addScript(script: SyntaxNode): void {
    this.scripts.push(script);
  }

  /** Tested somewhere in the line, or, inside a loop or function, assigned somewhere in it. */
  private mayBeSetAfterAll(name: string): boolean {
    while (this.scanned < this.scripts.length) {
      const found = scanVariables(this.scripts[this.scanned] as SyntaxNode, this.assignedAnywhere, this.testedAnywhere);
      this.opaqueAnywhere ||= found.opaque;
      this.scanned += 1;
    }
    if (this.testedAnywhere.has(name)) return true;
    return this.repeatDepth > 0 && (this.opaqueAnywhere || this.assignedAnywhere.has(name));
  }
}
