// Parses a command line and lists everything the guard must judge: every simple command
// (wherever it sits: pipelines, lists, subshells, substitutions, function bodies, loops,
// strings given to `bash -c` and `eval`, `find -exec`), every output redirection, every
// function definition, and every parse error.
import { forEachChild, parse } from 'unbash';
import type { Command, Function as FunctionNode, Redirection, SyntaxNode } from 'unbash';
import { commandEffects } from './assignments.js';
import { plainCommandWords } from './plain.js';
import { applyEffects, childVariables, isRepeated, trackNode } from './track.js';
import type { VariableScope } from './variables.js';
import { guardWord, guardWordFromAssignment } from './words.js';
import type { GuardWord } from './words.js';
import { commandName, findExecs, isEval, shellInput, unwrap } from './wrappers.js';

/** Scripts inside scripts (`bash -c "eval '...'"`) are followed this deep, then blocked. */
const MAX_NESTING_DEPTH = 4;

export interface Invocation {
  readonly kind: 'invocation';
  /** The command as written, then the command each wrapper runs (env, nice, timeout, ...). */
  readonly layers: readonly (readonly GuardWord[])[];
  /** The innermost layer only hands a script to a shell (bash -c, eval); the script is judged instead. */
  readonly runsScriptOnly: boolean;
}

interface RedirectFinding {
  readonly kind: 'redirect';
  readonly operator: string;
  readonly target: GuardWord;
  readonly text: string;
}

interface FunctionFinding {
  readonly kind: 'function';
  readonly name: string;
  /** The body calls the function itself inside a pipeline or in the background. */
  readonly selfSpawning: boolean;
  readonly text: string;
}

export interface ProblemFinding {
  readonly kind: 'parse-error' | 'too-deep';
  readonly message: string;
  readonly text: string;
}

export type Finding = Invocation | RedirectFinding | FunctionFinding | ProblemFinding;

export interface WalkResult {
  readonly findings: readonly Finding[];
  /** Names of the functions the command line defines; calling them runs no new program. */
  readonly functionNames: ReadonlySet<string>;
}

const OUTPUT_OPERATORS: readonly string[] = ['>', '>>', '>|', '&>', '&>>', '<>', '>&'];

/** `scope` holds what is known of the variables; it follows the line's own assignments as the walk goes. */
export function walkCommandLine(source: string, scope: VariableScope): WalkResult {
  const walker = new Walker(scope);
  walker.walkSource(source, 0);
  return { findings: walker.findings, functionNames: walker.functionNames };
}

class Walker {
  readonly findings: Finding[] = [];
  readonly functionNames = new Set<string>();

  constructor(private readonly scope: VariableScope) {}

  walkSource(source: string, depth: number): void {
    if (depth > MAX_NESTING_DEPTH) {
      this.tooDeep(source);
      return;
    }
    // A whole line of plain words is one simple command: it needs no parser, reads no variable, and what it does to
    // the variables (set -u, unset) reaches no later command. A nested script's would reach the line's next ones.
    const plain = depth === 0 ? plainCommandWords(source) : undefined;
    if (plain !== undefined) return this.onInvocation(plain, depth, undefined);
    const script = parse(source);
    this.scope.addScript(script);
    this.visit(script, source, depth);
  }

  private tooDeep(text: string): void {
    this.findings.push({
      kind: 'too-deep',
      message: `commands nested more than ${MAX_NESTING_DEPTH} levels deep (bash -c, eval, find -exec)`,
      text,
    });
  }

  private visit(node: SyntaxNode, source: string, depth: number): void {
    let text = source;
    if (node.type === 'Script') {
      text = node.source ?? source;
      const error = node.errors?.[0];
      if (error !== undefined) {
        this.findings.push({ kind: 'parse-error', message: `${error.message} (at offset ${error.pos})`, text: source });
      }
    } else if (node.type === 'Command') {
      this.onCommand(node, depth);
    } else if (node.type === 'Redirected') {
      this.onRedirects(node.redirects, collapse(text.slice(node.pos, node.end)));
    } else if (node.type === 'Function') {
      this.onFunction(node, text);
    } else {
      trackNode(node, this.scope);
    }
    if (!isRepeated(node)) return forEachChild(node, (child) => this.visit(child, text, depth));
    this.scope.enterRepeated();
    forEachChild(node, (child) => this.visit(child, text, depth));
    this.scope.leaveRepeated();
  }

  private onCommand(command: Command, depth: number): void {
    const words: GuardWord[] = [];
    if (command.name !== undefined) words.push(guardWord(command.name, this.scope));
    for (const argument of command.args) {
      words.push(argument.type === 'Word' ? guardWord(argument, this.scope) : guardWordFromAssignment(argument));
    }
    this.onRedirects(command.redirects, words.map((word) => word.value).join(' '));
    const effects = commandEffects(command);
    if (words.length > 0) {
      const stdin = stdinScript(command.redirects);
      this.scope.withChildVariables(childVariables(effects, this.scope), () => this.onInvocation(words, depth, stdin));
    }
    applyEffects(effects, this.scope);
  }

  private onRedirects(redirects: readonly Redirection[], owner: string): void {
    for (const redirect of redirects) {
      if (redirect.type !== 'Redirect' || redirect.target === undefined) continue;
      if (!OUTPUT_OPERATORS.includes(redirect.operator)) continue;
      const target = guardWord(redirect.target, this.scope);
      const text = `${owner} ${redirect.operator} ${target.value}`.trim();
      this.findings.push({ kind: 'redirect', operator: redirect.operator, target, text });
    }
  }

  private onInvocation(words: readonly GuardWord[], depth: number, stdin: string | undefined): void {
    const layers: (readonly GuardWord[])[] = [words];
    const scripts: string[] = [];
    const execs: GuardWord[][] = [];
    let runsScriptOnly = false;
    let current = words;
    // Each pass peels one wrapper; a command has finitely many words, so this ends.
    for (;;) {
      const shell = shellInput(current);
      if (shell.kind === 'script' || (shell.kind === 'stdin' && stdin !== undefined)) {
        scripts.push(shell.kind === 'script' ? shell.script : (stdin as string));
        runsScriptOnly = true;
        break;
      }
      if (shell.kind !== 'not-a-shell') break;
      if (isEval(current)) {
        scripts.push(
          current
            .slice(1)
            .map((word) => word.value)
            .join(' '),
        );
        runsScriptOnly = true;
        break;
      }
      execs.push(...findExecs(current));
      const unwrapped = unwrap(current);
      scripts.push(...unwrapped.scripts);
      if (unwrapped.inner === null) break;
      current = unwrapped.inner;
      layers.push(current);
    }
    this.findings.push({ kind: 'invocation', layers, runsScriptOnly });
    for (const script of scripts) this.walkSource(script, depth + 1);
    for (const exec of execs) {
      if (depth + 1 > MAX_NESTING_DEPTH) {
        this.tooDeep(exec.map((word) => word.value).join(' '));
      } else {
        this.onInvocation(exec, depth + 1, undefined);
      }
    }
  }

  private onFunction(node: FunctionNode, source: string): void {
    const name = node.name.value;
    this.functionNames.add(name);
    this.findings.push({
      kind: 'function',
      name,
      selfSpawning: spawnsItself(node.body, name, false),
      text: collapse(source.slice(node.pos, node.end)),
    });
  }
}

/** The script a shell reads on stdin from a here-document or here-string, if any. */
function stdinScript(redirects: readonly Redirection[]): string | undefined {
  let script: string | undefined;
  for (const redirect of redirects) {
    const descriptor = redirect.descriptor;
    if (descriptor !== undefined && !(descriptor.type === 'FileDescriptor' && descriptor.value === 0)) continue;
    if (redirect.type === 'HereDoc') script = redirect.body.text;
    else if (redirect.type === 'HereString') script = redirect.target?.value;
    else if (redirect.operator === '<' || redirect.operator === '<>') script = undefined;
  }
  return script;
}

function spawnsItself(node: SyntaxNode, name: string, spawning: boolean): boolean {
  if (node.type === 'Command' && spawning && node.name !== undefined && commandName(guardWord(node.name)) === name) {
    return true;
  }
  const childSpawning =
    spawning ||
    (node.type === 'Pipeline' && node.commands.length > 1) ||
    (node.type === 'Statement' && node.background === true);
  let found = false;
  forEachChild(node, (child) => {
    if (!found) found = spawnsItself(child, name, childSpawning);
  });
  return found;
}

function collapse(text: string): string {
  return text.replace(/\s+/g, ' ').trim();
}
