// The guard: a guard-rail against a model's mistakes, not a security boundary (that is
// --sandbox). It parses a command line with a real bash parser and judges every simple
// command in it against the built-in deny rules and the user's --allow / --deny rules.
import { homedir } from 'node:os';
import { posix } from 'node:path';
import { directoryAfter, placeFinding } from './cwd.js';
import { brokenRule, mayBreakRule } from './match.js';
import { BUILTIN_RULES, type GuardRule } from './rules.js';
import { type UserRule, userRules } from './user-rules.js';
import { VariableScope } from './variables.js';
import type { Finding, Invocation, ProblemFinding, WalkResult } from './walk.js';

export interface GuardPolicy {
  /** False with --dangerously-skip-guard: drops only the built-in deny rules. */
  builtinRules: boolean;
  /** --allow globs; any present switches to allow-list mode. */
  allow: string[];
  /** --deny globs: extra deny rules. */
  deny: string[];
}

export type GuardVerdict = { allowed: true } | { allowed: false; rule: string; reason: string; command: string };

/** Where and with what the command will run. */
export interface CommandContext {
  /** The directory the command starts in, so that relative paths (`rm -rf *` in `/`) are judged too. */
  cwd?: string;
  /**
   * The environment the commands run with, so that variables are judged by what they hold and an unset one is
   * known to be unset (`rm -rf "$BUILD_DIR"/*`). Without it, only variables the command assigns are known.
   */
  env?: Readonly<Record<string, string | undefined>>;
}

const MAX_QUOTED_COMMAND = 200;

/** The parser, once loaded: later commands are judged without waiting on the module loader. */
let walker: typeof import('./walk.js') | undefined;

/** Loads the parser ahead of the first command, so that it is judged without waiting on the module loader. */
export async function loadParser(): Promise<void> {
  walker ??= await import('./walk.js');
}

export async function judgeCommand(
  script: string,
  policy: GuardPolicy,
  context: CommandContext = {},
): Promise<GuardVerdict> {
  walker ??= await import('./walk.js');
  const home = homeDirectory(context.env?.HOME || homedir());
  const walk = walker.walkCommandLine(script, new VariableScope(context.env, home));
  const problem = walk.findings.find(
    (finding): finding is ProblemFinding => finding.kind === 'parse-error' || finding.kind === 'too-deep',
  );
  if (problem !== undefined) return judgeProblem(problem);
  const allow = userRules(policy.allow);
  const deny = userRules(policy.deny);
  let cwd = context.cwd ?? null;
  for (const finding of walk.findings) {
    const rule = policy.builtinRules ? brokenBuiltinRule(finding, cwd, home) : undefined;
    if (rule !== undefined) return blocked(rule.id, findingText(finding), rule.advice);
    const verdict = judgeByUserRules(finding, walk, allow, deny);
    if (!verdict.allowed) return verdict;
    cwd = directoryAfter(finding, cwd, home);
  }
  return { allowed: true };
}

/** Only the built-in rules read paths: the others match the words as written. */
function brokenBuiltinRule(finding: Finding, cwd: string | null, home: string): GuardRule | undefined {
  if (!mayBreakRule(finding, BUILTIN_RULES)) return undefined;
  return brokenRule(placeFinding(finding, cwd, home), BUILTIN_RULES);
}

function judgeProblem(problem: ProblemFinding): GuardVerdict {
  if (problem.kind === 'too-deep') {
    return blocked('nesting-too-deep', problem.text, `${problem.message}; run the inner commands directly.`);
  }
  return blocked(
    'parse-error',
    problem.text,
    `the command could not be parsed as bash: ${problem.message}. Fix the syntax (quotes, brackets, here-document ends) and run it again.`,
    false,
  );
}

function judgeByUserRules(
  finding: Finding,
  walk: WalkResult,
  allow: readonly UserRule[],
  deny: readonly UserRule[],
): GuardVerdict {
  if (finding.kind !== 'invocation' || (allow.length === 0 && deny.length === 0)) return { allowed: true };
  const lines = finding.layers.map((words) => words.map((word) => word.value).join(' '));
  const written = lines[0] as string;
  const denied = deny.find((userRule) => lines.some((line) => userRule.regexp.test(line)));
  if (denied !== undefined) {
    return blocked(
      'user-deny',
      written,
      `it matches the user's rule --deny '${denied.glob}'; do not look for a way around it: do without it or stop and say what you need.`,
    );
  }
  if (allow.length === 0 || isExemptFromAllowList(finding, walk)) return { allowed: true };
  if (allow.some((userRule) => lines.some((line) => userRule.regexp.test(line)))) return { allowed: true };
  const globs = allow.map((userRule) => `'${userRule.glob}'`).join(', ');
  return blocked(
    'allow-list',
    written,
    `only commands matching the user's --allow rules may run (${globs}); use one of those, or stop and say what you need.`,
  );
}

/** Shell hand-offs are judged through their script; calls to the line's own functions run no program. */
function isExemptFromAllowList(invocation: Invocation, walk: WalkResult): boolean {
  if (invocation.runsScriptOnly) return true;
  const name = invocation.layers[0]?.[0]?.value;
  return name !== undefined && walk.functionNames.has(name);
}

let lastHome: { readonly given: string; readonly normalized: string } | undefined;

/** Normalized without a trailing slash, so that paths can be placed in it by a prefix test. */
function homeDirectory(given: string): string {
  if (lastHome?.given !== given) lastHome = { given, normalized: posix.normalize(given).replace(/(.)\/$/, '$1') };
  return lastHome.normalized;
}

function findingText(finding: Finding): string {
  return finding.kind === 'invocation' ? (finding.layers[0] ?? []).map((word) => word.value).join(' ') : finding.text;
}

function blocked(rule: string, command: string, advice: string, quote = true): GuardVerdict {
  const shown = command.length > MAX_QUOTED_COMMAND ? `${command.slice(0, MAX_QUOTED_COMMAND)}…` : command;
  const what = quote ? `'${shown}' — ${advice}` : advice;
  return { allowed: false, rule, reason: `blocked by the guard (${rule}): ${what}`, command };
}
