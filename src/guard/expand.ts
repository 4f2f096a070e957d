// A word's parts expanded as bash would, as far as the guard knows the variables: into the paths (fields) the
// word becomes, or into the value an assignment stores. What cannot be known (a command substitution, `$1`,
// an array element) reads as `*` inside a word and makes a word that starts with it unknowable.
import type { DoubleQuotedChild, ParameterExpansionPart, ParameterOperation, Word, WordPart } from 'unbash';
import { applyOperator } from './parameter-operators.js';
import { directoryTilde, OLDPWD_STAND_IN, tildePrefixLength, type PathShape } from './path-shape.js';
import type { VariableScope, VariableValue } from './variables.js';

const NAME = /^[A-Za-z_][A-Za-z0-9_]*$/;
const IFS_WHITESPACE = /[ \t\n]+/;

/** Collects the fields of one word, or the one value of an assignment (no splitting there). */
class FieldBuilder {
  private readonly fields: (PathShape | null)[] = [];
  private text = '';
  private start: 'none' | 'home' | 'pwd' | 'unknown' = 'none';
  private exists = false;
  private emptyVariable: string | undefined;
  /** A `${VAR:?}` (or `set -u`) stops bash on this word: the command never runs. */
  fails = false;

  constructor(
    private readonly splitting: boolean,
    private readonly home: string,
  ) {}

  get started(): boolean {
    return this.start !== 'none' || this.text !== '';
  }

  literal(text: string, quoted: boolean): void {
    if (quoted) this.exists = true;
    if (text === '') return;
    this.exists = true;
    this.text += text;
  }

  unknown(): void {
    if (!this.started) this.start = 'unknown';
    this.exists = true;
    this.text += '*';
  }

  /** The home directory or the working directory, at the start of the word. */
  base(base: 'home' | 'pwd'): void {
    this.start = base;
    this.exists = true;
  }

  value(value: VariableValue, name: string, quoted: boolean): void {
    let text = value.text;
    if (!this.started) {
      // A variable that supplies the start itself means the path it holds (`"$DESTDIR$PREFIX"/lib`, DESTDIR empty).
      if (text === '') this.emptyVariable ??= name;
      else this.emptyVariable = value.emptyVariable;
      if (this.home !== '/' && (text === this.home || text.startsWith(`${this.home}/`))) {
        this.base('home');
        text = text.slice(this.home.length);
      }
    }
    if (quoted || !this.splitting) return this.literal(text, quoted);
    text.split(IFS_WHITESPACE).forEach((piece, index) => {
      if (index > 0) this.endField();
      this.literal(piece, false);
    });
  }

  finish(): (PathShape | null)[] {
    this.endField();
    return this.fails ? this.fields.map(() => null) : this.fields;
  }

  asValue(): VariableValue | 'unknown' {
    if (this.fails || this.start === 'unknown' || this.start === 'pwd') return 'unknown';
    const text = this.start === 'home' ? this.home + this.text : this.text;
    return this.emptyVariable === undefined ? { text } : { text, emptyVariable: this.emptyVariable };
  }

  private endField(): void {
    if (this.exists) this.fields.push(this.shape());
    this.text = '';
    this.start = 'none';
    this.exists = false;
    this.emptyVariable = undefined;
  }

  private shape(): PathShape | null {
    const rest = this.text;
    if (this.start === 'unknown') return null;
    if (this.start === 'home') return { base: 'home', rest };
    if (this.start === 'pwd') return { base: 'relative', rest };
    // Nothing but empty variables: an empty operand, which names no file.
    if (rest === '' && this.emptyVariable !== undefined) return null;
    if (!rest.startsWith('/')) return { base: 'relative', rest };
    const emptyVariable = this.emptyVariable;
    return emptyVariable === undefined ? { base: 'root', rest } : { base: 'root', rest, emptyVariable };
  }
}

/** The paths a word with parts expands to: one per field, null where a field cannot be known. */
export function expandToPaths(parts: readonly WordPart[], scope: VariableScope): (PathShape | null)[] {
  const builder = new FieldBuilder(true, scope.home);
  parts.forEach((part, index) => addPart(builder, part, scope, false, index === 0));
  return builder.finish();
}

/** What an assignment (`D=…`) or a default (`${D:-…}`) stores: no splitting, no globbing. */
export function expandToValue(word: Word, scope: VariableScope): VariableValue | 'unknown' {
  const builder = new FieldBuilder(false, scope.home);
  const parts = word.parts;
  if (parts === undefined || parts.length === 0) {
    if (word.text.startsWith('~')) addTilde(builder, word.value);
    else builder.literal(word.value, false);
  } else {
    parts.forEach((part, index) => addPart(builder, part, scope, false, index === 0));
  }
  return builder.asValue();
}

type Part = WordPart | DoubleQuotedChild;

function addPart(builder: FieldBuilder, part: Part, scope: VariableScope, quoted: boolean, first: boolean): void {
  switch (part.type) {
    case 'Literal':
      if (first && !quoted && part.text.startsWith('~')) return addTilde(builder, part.value);
      return builder.literal(part.value, quoted);
    case 'SingleQuoted':
    case 'AnsiCQuoted':
      return builder.literal(part.value, true);
    case 'Glob':
      return builder.literal(part.text, false);
    case 'DoubleQuoted':
    case 'LocaleString':
      builder.literal('', true);
      part.parts.forEach((child, index) => addPart(builder, child, scope, true, first && index === 0));
      return;
    case 'SimpleExpansion':
      return addVariable(builder, part.text.slice(1), scope, quoted);
    case 'ParameterExpansion':
      return addParameter(builder, part, scope, quoted);
    case 'BraceExpansion':
    case 'ExtendedGlob':
      // Several words or a pattern: any text at all, as a glob would be.
      return builder.literal('*', false);
    default:
      return builder.unknown();
  }
}

function addTilde(builder: FieldBuilder, text: string): void {
  const directory = directoryTilde(text);
  if (directory === '+') builder.base('pwd');
  else if (directory === '-') builder.literal(OLDPWD_STAND_IN, false);
  if (directory !== undefined) return builder.literal(text.slice(2), false);
  const length = tildePrefixLength(text);
  if (length === null) return builder.unknown();
  builder.base('home');
  builder.literal(text.slice(length), false);
}

function addVariable(builder: FieldBuilder, name: string, scope: VariableScope, quoted: boolean): void {
  if (!builder.started && (name === 'HOME' || name === 'PWD')) return builder.base(name === 'HOME' ? 'home' : 'pwd');
  if (!NAME.test(name)) return builder.unknown();
  const found = scope.lookup(name);
  if (found.kind === 'unknown') return builder.unknown();
  if (found.kind === 'unset' && scope.nounset) {
    builder.fails = true;
    return;
  }
  builder.value(found.kind === 'value' ? found.value : { text: '' }, name, quoted);
}

/**
 * `${NAME}`, the defaults `${NAME-…}`, `${NAME:-…}`, `${NAME=…}`, `${NAME:+…}`, `${NAME:?…}`, the operators that
 * build on NAME's value (see addOperated) and `${!NAME}`; others (arrays, `${#NAME}`): unknown.
 */
function addParameter(builder: FieldBuilder, part: ParameterExpansionPart, scope: VariableScope, quoted: boolean) {
  const name = part.parameter;
  const operation = part.operation;
  if (part.index !== undefined) return builder.unknown();
  if (part.prefix === '!' && operation === undefined) return addIndirect(builder, name, scope, quoted);
  if (part.prefix !== undefined) return builder.unknown();
  if (operation === undefined) return addVariable(builder, name, scope, quoted);
  if (!NAME.test(name)) return builder.unknown();
  if (operation.type !== 'Default') return addOperated(builder, name, operation, scope, quoted);
  const operator = operation.operator.replace(':', '');
  if (!builder.started && (name === 'HOME' || name === 'PWD') && operator !== '+') {
    return builder.base(name === 'HOME' ? 'home' : 'pwd');
  }
  const found = scope.lookup(name);
  if (found.kind === 'unknown') return builder.unknown();
  const current = found.kind === 'value' ? found.value : { text: '' };
  const missing = found.kind === 'unset' || (operation.operator.startsWith(':') && current.text === '');
  if (operator === '?') {
    if (missing) builder.fails = true;
    else builder.value(current, name, quoted);
    return;
  }
  const useOperand = operator === '+' ? !missing : missing;
  if (!useOperand) return builder.value(operator === '+' ? { text: '' } : current, name, quoted);
  const operand = expandToValue(operation.operand, scope);
  if (operand === 'unknown') return builder.unknown();
  builder.value(operand, name, quoted);
}

/** `${!NAME}`: the variable NAME names. Unset NAME gives nothing; an empty one stops bash (invalid indirect). */
function addIndirect(builder: FieldBuilder, name: string, scope: VariableScope, quoted: boolean): void {
  if (!NAME.test(name)) return builder.unknown();
  const found = scope.lookup(name);
  if (found.kind === 'unknown') return builder.unknown();
  if (found.kind === 'unset') return addVariable(builder, name, scope, quoted);
  const target = found.value.text;
  if (target === '') {
    builder.fails = true;
    return;
  }
  if (!NAME.test(target)) return builder.unknown();
  addVariable(builder, target, scope, quoted);
}

/**
 * `${NAME%…}`, `${NAME#…}`, `${NAME/…}`, `${NAME,,}`, `${NAME^^}`, `${NAME:offset:length}` and the like are built on
 * NAME: worked out when NAME is known (see applyOperator), nothing when it is unset or empty, whatever the operator.
 */
function addOperated(
  builder: FieldBuilder,
  name: string,
  operation: ParameterOperation,
  scope: VariableScope,
  quoted: boolean,
): void {
  const found = lookupOrHome(name, scope);
  if (found.kind === 'unknown') return builder.unknown();
  if (found.kind === 'unset' && scope.nounset) {
    builder.fails = true;
    return;
  }
  const current = found.kind === 'value' ? found.value : { text: '' };
  let result = applyOperator(current.text, operation, (word) => textOf(expandToValue(word, scope)));
  const buildsOnNothing = current.text === '' && operation.type !== 'Transform' && operation.type !== 'Unknown';
  if (result === 'unknown' && buildsOnNothing) result = '';
  if (result === 'unknown') return builder.unknown();
  const emptyVariable = result === '' ? undefined : current.emptyVariable;
  builder.value(emptyVariable === undefined ? { text: result } : { text: result, emptyVariable }, name, quoted);
}

/** HOME's value is the home directory even where the environment does not say. */
function lookupOrHome(name: string, scope: VariableScope): ReturnType<VariableScope['lookup']> {
  const found = scope.lookup(name);
  return found.kind === 'unknown' && name === 'HOME' ? { kind: 'value', value: { text: scope.home } } : found;
}

function textOf(value: VariableValue | 'unknown'): string | 'unknown' {
  return value === 'unknown' ? 'unknown' : value.text;
}
