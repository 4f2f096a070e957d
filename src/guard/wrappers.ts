// Commands that run other commands. The guard looks through them to judge the real
// command: `env FOO=1 nice -n 5 sudo id` is `sudo id`; `bash -c 'sudo id'` runs a script.
import type { GuardWord } from './words.js';

interface WrapperSpec {
  /** Options that take a value, attached (-n5, --signal=KILL) or as the next word. */
  readonly valueOptions: readonly string[];
  /** Options after which nothing is run (`command -v sudo` only prints a path). */
  readonly stopOptions?: readonly string[];
  /** Options whose value is a command line for a shell (env -S, su -c). */
  readonly scriptOptions?: readonly string[];
  /** Operands between the options and the command (timeout's duration, chroot's root). */
  readonly positionals?: number;
  /** NAME=value words before the command (env). */
  readonly assignments?: boolean;
  /** What the remaining words are: a command, a script for `sh -c` (watch), or nothing (su). */
  readonly runs: 'command' | 'script' | 'nothing';
}

const WRAPPERS: Readonly<Record<string, WrapperSpec>> = {
  env: {
    valueOptions: ['-u', '--unset', '-C', '--chdir'],
    scriptOptions: ['-S', '--split-string'],
    assignments: true,
    runs: 'command',
  },
  xargs: {
    valueOptions: [
      '-a',
      '--arg-file',
      '-d',
      '--delimiter',
      '-E',
      '-I',
      '-L',
      '--max-lines',
      '-n',
      '--max-args',
      '-P',
      '--max-procs',
      '-s',
      '--max-chars',
      '--process-slot-var',
    ],
    runs: 'command',
  },
  nice: { valueOptions: ['-n', '--adjustment'], runs: 'command' },
  nohup: { valueOptions: [], runs: 'command' },
  busybox: { valueOptions: [], runs: 'command' },
  timeout: { valueOptions: ['-k', '--kill-after', '-s', '--signal'], positionals: 1, runs: 'command' },
  command: { valueOptions: [], stopOptions: ['-v', '-V'], runs: 'command' },
  builtin: { valueOptions: [], runs: 'command' },
  exec: { valueOptions: ['-a'], runs: 'command' },
  time: { valueOptions: ['-f', '--format', '-o', '--output'], runs: 'command' },
  stdbuf: { valueOptions: ['-i', '--input', '-o', '--output', '-e', '--error'], runs: 'command' },
  ionice: {
    valueOptions: ['-c', '--class', '-n', '--classdata'],
    stopOptions: ['-p', '--pid', '-P', '--pgid', '-u', '--uid'],
    runs: 'command',
  },
  setsid: { valueOptions: [], runs: 'command' },
  chroot: { valueOptions: ['--userspec', '--groups'], positionals: 1, runs: 'command' },
  watch: { valueOptions: ['-n', '--interval', '-q', '--equexit'], runs: 'script' },
  sudo: {
    valueOptions: [
      '-u',
      '--user',
      '-g',
      '--group',
      '-C',
      '--close-from',
      '-D',
      '--chdir',
      '-h',
      '--host',
      '-p',
      '--prompt',
      '-r',
      '--role',
      '-t',
      '--type',
      '-T',
      '--command-timeout',
      '-U',
      '--other-user',
    ],
    stopOptions: ['-l', '--list', '-v', '--validate', '-k', '-K', '-e', '--edit'],
    runs: 'command',
  },
  doas: { valueOptions: ['-u', '-C'], runs: 'command' },
  su: { valueOptions: ['-s', '--shell', '-g', '--group', '-G'], scriptOptions: ['-c', '--command'], runs: 'nothing' },
};

const SHELLS: readonly string[] = ['bash', 'sh', 'zsh', 'dash', 'ksh', 'ash', 'mksh', 'yash'];
const SHELL_VALUE_OPTIONS: readonly string[] = ['-o', '+o', '-O', '+O', '--rcfile', '--init-file'];

interface Unwrapped {
  /** The command the wrapper runs, or null when it runs none. */
  readonly inner: readonly GuardWord[] | null;
  /** Command lines the wrapper hands to a shell. */
  readonly scripts: readonly string[];
}

export function commandName(word: GuardWord | undefined): string {
  if (word === undefined) return '';
  const slash = word.value.lastIndexOf('/');
  return slash === -1 ? word.value : word.value.slice(slash + 1);
}

export function unwrap(words: readonly GuardWord[]): Unwrapped {
  const spec = WRAPPERS[commandName(words[0])];
  if (spec === undefined) return { inner: null, scripts: [] };
  const scripts: string[] = [];
  let index = 1;
  while (index < words.length) {
    const word = (words[index] as GuardWord).value;
    if (word === '--') {
      index += 1;
      break;
    }
    if (word === '-') {
      index += 1; // env's old spelling of -i; no other wrapper takes a lone '-'
      continue;
    }
    if (!word.startsWith('-')) break;
    const option = readOption(words, index, spec);
    if (option.stop) return { inner: null, scripts };
    if (option.script !== undefined) scripts.push(option.script);
    index = option.next;
  }
  index += spec.positionals ?? 0;
  if (spec.assignments === true) {
    while (index < words.length && /^[A-Za-z_][A-Za-z0-9_]*=/.test((words[index] as GuardWord).value)) index += 1;
  }
  const rest = words.slice(index);
  if (spec.runs === 'script' && rest.length > 0) scripts.push(rest.map((w) => w.value).join(' '));
  const inner = spec.runs === 'command' && rest.length > 0 ? rest : null;
  return { inner, scripts };
}

interface OptionRead {
  readonly next: number;
  readonly stop: boolean;
  readonly script?: string;
}

function readOption(words: readonly GuardWord[], index: number, spec: WrapperSpec): OptionRead {
  const word = (words[index] as GuardWord).value;
  const following = words[index + 1]?.value;
  if (word.startsWith('--')) {
    const equals = word.indexOf('=');
    const name = equals === -1 ? word : word.slice(0, equals);
    const attached = equals === -1 ? undefined : word.slice(equals + 1);
    if (spec.stopOptions?.includes(name) === true) return { next: index + 1, stop: true };
    const takesValue = spec.valueOptions.includes(name) || spec.scriptOptions?.includes(name) === true;
    if (!takesValue) return { next: index + 1, stop: false };
    const value = attached ?? following;
    const next = attached === undefined ? index + 2 : index + 1;
    return spec.scriptOptions?.includes(name) === true && value !== undefined
      ? { next, stop: false, script: value }
      : { next, stop: false };
  }
  for (let position = 1; position < word.length; position += 1) {
    const option = `-${word[position] as string}`;
    if (spec.stopOptions?.includes(option) === true) return { next: index + 1, stop: true };
    const isScript = spec.scriptOptions?.includes(option) === true;
    if (spec.valueOptions.includes(option) || isScript) {
      const attached = word.slice(position + 1);
      const value = attached === '' ? following : attached;
      const next = attached === '' ? index + 2 : index + 1;
      return isScript && value !== undefined ? { next, stop: false, script: value } : { next, stop: false };
    }
  }
  return { next: index + 1, stop: false };
}

type ShellInput =
  | { readonly kind: 'script'; readonly script: string }
  | { readonly kind: 'stdin' }
  | { readonly kind: 'file' }
  | { readonly kind: 'not-a-shell' };

/** What a shell invocation runs: a -c string, its stdin, or a script file. */
export function shellInput(words: readonly GuardWord[]): ShellInput {
  if (!SHELLS.includes(commandName(words[0]))) return { kind: 'not-a-shell' };
  let commandString = false;
  let index = 1;
  while (index < words.length) {
    const word = (words[index] as GuardWord).value;
    if (word === '--' || word === '-') {
      index += 1;
      break;
    }
    if (SHELL_VALUE_OPTIONS.includes(word)) {
      index += 2;
      continue;
    }
    if (word.startsWith('--')) {
      index += 1;
      continue;
    }
    if (!/^[-+][A-Za-z]+$/.test(word)) break;
    if (word.startsWith('-') && word.includes('c')) commandString = true;
    if (word.startsWith('-') && word.includes('s') && !commandString) return { kind: 'stdin' };
    // -o and -O take an option name as the next word, also inside a cluster (-euo pipefail).
    index += /[oO]/.test(word) ? 2 : 1;
  }
  const operand = words[index];
  if (commandString) return operand === undefined ? { kind: 'stdin' } : { kind: 'script', script: operand.value };
  return operand === undefined ? { kind: 'stdin' } : { kind: 'file' };
}

export function isEval(words: readonly GuardWord[]): boolean {
  return commandName(words[0]) === 'eval';
}

/** find's actions that run a command. */
export const FIND_EXEC_ACTIONS: readonly string[] = ['-exec', '-execdir', '-ok', '-okdir'];

/** The commands `find ... -exec cmd args {} ;` runs. */
export function findExecs(words: readonly GuardWord[]): GuardWord[][] {
  if (commandName(words[0]) !== 'find') return [];
  const commands: GuardWord[][] = [];
  let index = 1;
  while (index < words.length) {
    if (!FIND_EXEC_ACTIONS.includes((words[index] as GuardWord).value)) {
      index += 1;
      continue;
    }
    const start = index + 1;
    let end = start;
    while (end < words.length && ![';', '+'].includes((words[end] as GuardWord).value)) end += 1;
    if (end > start) commands.push(words.slice(start, end));
    index = end + 1;
  }
  return commands;
}
