// Interprets the matchers of rules.ts against what walk.ts found.
import type { FlagSpec, GuardRule, Matcher } from './rules.js';
import { isTarget } from './targets.js';
import type { Finding } from './walk.js';
import { wordFromValue } from './words.js';
import type { GuardWord } from './words.js';
import { commandName, FIND_EXEC_ACTIONS } from './wrappers.js';

/** What a list of rules can match at all: the command names its matchers name, and the other kinds of findings. */
interface RuleReach {
  readonly names: ReadonlySet<string>;
  /** Names matched by their start (`mkfs*`). */
  readonly prefixes: readonly string[];
  readonly redirects: boolean;
  readonly functions: boolean;
}

const reaches = new WeakMap<readonly GuardRule[], RuleReach>();

/** The first rule that the finding breaks, if any. */
export function brokenRule(finding: Finding, rules: readonly GuardRule[]): GuardRule | undefined {
  return rules.find((rule) => rule.matchers.some((matcher) => matches(matcher, finding)));
}

/** False only when no matcher of the rules can match the finding: most commands are named by no rule. */
export function mayBreakRule(finding: Finding, rules: readonly GuardRule[]): boolean {
  const reach = reachOf(rules);
  if (finding.kind === 'redirect') return reach.redirects;
  if (finding.kind === 'function') return reach.functions && finding.selfSpawning;
  if (finding.kind !== 'invocation') return true;
  return finding.layers.some((words) => {
    const name = commandName(words[0]);
    return reach.names.has(name) || reach.prefixes.some((prefix) => name.startsWith(prefix));
  });
}

function reachOf(rules: readonly GuardRule[]): RuleReach {
  const known = reaches.get(rules);
  if (known !== undefined) return known;
  const names = new Set<string>();
  const prefixes: string[] = [];
  let redirects = false;
  let functions = false;
  for (const matcher of rules.flatMap((rule) => rule.matchers)) {
    if (matcher.kind === 'find') names.add('find');
    else if (matcher.kind === 'redirect') redirects = true;
    else if (matcher.kind === 'self-spawning-function') functions = true;
    else {
      for (const pattern of matcher.names) {
        if (pattern.endsWith('*')) prefixes.push(pattern.slice(0, -1));
        else names.add(pattern);
      }
    }
  }
  const reach = { names, prefixes, redirects, functions };
  reaches.set(rules, reach);
  return reach;
}

function matches(matcher: Matcher, finding: Finding): boolean {
  switch (matcher.kind) {
    case 'command':
    case 'find':
      return finding.kind === 'invocation' && finding.layers.some((words) => matchesCommand(matcher, words));
    case 'redirect':
      return finding.kind === 'redirect' && isTarget(matcher.target, finding.target);
    case 'self-spawning-function':
      return finding.kind === 'function' && finding.selfSpawning;
  }
}

type CommandMatcher = Extract<Matcher, { kind: 'command' | 'find' }>;

function matchesCommand(matcher: CommandMatcher, words: readonly GuardWord[]): boolean {
  const name = commandName(words[0]);
  const args = words.slice(1);
  if (matcher.kind === 'find') return name === 'find' && matchesFind(matcher, args);
  if (!matcher.names.some((pattern) => nameMatches(pattern, name))) return false;
  const { options, operands } = splitArguments(args);
  if (matcher.flags !== undefined && !hasFlag(options, matcher.flags)) return false;
  const anyOperand = matcher.anyOperand;
  if (anyOperand !== undefined && !operands.some((word) => anyOperand.includes(word.value))) return false;
  const operandClass = matcher.operands;
  if (operandClass !== undefined && !operands.some((word) => isTarget(operandClass, word))) return false;
  const keyValue = matcher.keyValue;
  if (keyValue !== undefined) {
    const prefix = `${keyValue.key}=`;
    const hit = operands.some(
      (word) =>
        word.value.startsWith(prefix) && isTarget(keyValue.target, wordFromValue(word.value.slice(prefix.length))),
    );
    if (!hit) return false;
  }
  return true;
}

function nameMatches(pattern: string, name: string): boolean {
  return pattern.endsWith('*') ? name.startsWith(pattern.slice(0, -1)) : name === pattern;
}

/** GNU style: options may come anywhere before `--`; everything after it is an operand. */
function splitArguments(args: readonly GuardWord[]): { options: string[]; operands: GuardWord[] } {
  const options: string[] = [];
  const operands: GuardWord[] = [];
  let optionsEnded = false;
  for (const word of args) {
    if (!optionsEnded && word.value === '--') optionsEnded = true;
    else if (!optionsEnded && word.value.startsWith('-') && word.value !== '-') options.push(word.value);
    else operands.push(word);
  }
  return { options, operands };
}

function hasFlag(options: readonly string[], flags: FlagSpec): boolean {
  return options.some((option) =>
    option.startsWith('--')
      ? flags.long.includes(option.split('=')[0] as string)
      : [...option.slice(1)].some((letter) => flags.short.includes(letter)),
  );
}

function matchesFind(matcher: Extract<Matcher, { kind: 'find' }>, args: readonly GuardWord[]): boolean {
  let index = 0;
  // Leading options: -H, -L, -P, -D debugopts, -O3.
  while (index < args.length && /^-([HLP]|D|O\d*)$/.test((args[index] as GuardWord).value)) {
    index += (args[index] as GuardWord).value === '-D' ? 2 : 1;
  }
  const roots: GuardWord[] = [];
  while (index < args.length && !/^[-(!),]/.test((args[index] as GuardWord).value)) {
    roots.push(args[index] as GuardWord);
    index += 1;
  }
  if (!roots.some((root) => isTarget(matcher.roots, root))) return false;
  const expression = args.slice(index);
  return expression.some((word, position) => {
    if (matcher.actions.includes(word.value)) return true;
    if (!FIND_EXEC_ACTIONS.includes(word.value)) return false;
    return matcher.execCommands.includes(commandName(expression[position + 1]));
  });
}
