// Command words as the guard sees them: the value after quote removal, and how the word
// reads as a path (rooted at /, at the home directory, relative, or unknowable).
import type { Assignment, DoubleQuotedChild, Word, WordPart } from 'unbash';

export type PathBase = 'root' | 'home' | 'relative';

export interface PathShape {
  readonly base: PathBase;
  /** The path after its base. Expansions, brace expansions and extended globs read as `*`. */
  readonly rest: string;
}

export interface GuardWord {
  /** The word after quote removal; expansions stay as written (`$HOME`, `$(cmd)`). */
  readonly value: string;
  /** Null when the word starts with an expansion whose value cannot be known. */
  readonly path: PathShape | null;
}

const TILDE_PREFIX = /^~([A-Za-z_][\w.-]*)?(?=\/|$)/;

export function wordFromValue(value: string): GuardWord {
  return { value, path: shapeFromLiteral(value, true) };
}

export function guardWord(word: Word): GuardWord {
  const parts = word.parts;
  if (parts === undefined || parts.length === 0) {
    return { value: word.value, path: shapeFromLiteral(word.value, word.text.startsWith('~')) };
  }
  return { value: word.value, path: shapeFromParts(parts) };
}

export function guardWordFromAssignment(assignment: Assignment): GuardWord {
  const operator = assignment.append === true ? '+=' : '=';
  const value = assignment.value.type === 'Word' ? assignment.value.value : assignment.text.slice(assignment.name.length + operator.length);
  return { value: `${assignment.name}${operator}${value}`, path: null };
}

function shapeFromLiteral(text: string, tildeIsLive: boolean): PathShape | null {
  if (tildeIsLive && text.startsWith('~')) {
    const prefix = TILDE_PREFIX.exec(text);
    // `~+` and `~-` are $PWD and $OLDPWD: not a home directory, and not knowable here.
    if (prefix === null) return null;
    return { base: 'home', rest: text.slice(prefix[0].length) };
  }
  if (text.startsWith('/')) return { base: 'root', rest: text };
  return { base: 'relative', rest: text };
}

function shapeFromParts(parts: readonly WordPart[]): PathShape | null {
  const [first, ...others] = parts;
  if (first === undefined) return { base: 'relative', rest: '' };
  if (isHomeExpansion(first)) return { base: 'home', rest: partsPattern(others) };
  if (first.type === 'DoubleQuoted' || first.type === 'LocaleString') {
    const [inner, ...innerOthers] = first.parts;
    if (inner !== undefined && isHomeExpansion(inner)) {
      return { base: 'home', rest: childrenPattern(innerOthers) + partsPattern(others) };
    }
    if (inner !== undefined && isExpansion(inner)) return null;
    const rest = partsPattern(parts);
    return { base: rest.startsWith('/') ? 'root' : 'relative', rest };
  }
  if (isExpansion(first)) return null;
  if (first.type === 'Literal' && first.text.startsWith('~')) {
    const literal = shapeFromLiteral(first.value, true);
    if (literal === null) return null;
    return { base: literal.base, rest: literal.rest + partsPattern(others) };
  }
  const rest = partsPattern(parts);
  return { base: rest.startsWith('/') ? 'root' : 'relative', rest };
}

function isExpansion(part: WordPart | DoubleQuotedChild): boolean {
  return (
    part.type === 'SimpleExpansion' ||
    part.type === 'ParameterExpansion' ||
    part.type === 'CommandExpansion' ||
    part.type === 'ArithmeticExpansion' ||
    part.type === 'ProcessSubstitution'
  );
}

function isHomeExpansion(part: WordPart | DoubleQuotedChild): boolean {
  if (part.type === 'SimpleExpansion') return part.text === '$HOME';
  if (part.type === 'ParameterExpansion') {
    return part.parameter === 'HOME' && part.prefix === undefined && part.index === undefined;
  }
  return false;
}

function partsPattern(parts: readonly WordPart[]): string {
  return parts.map(partPattern).join('');
}

function childrenPattern(children: readonly DoubleQuotedChild[]): string {
  return children.map(partPattern).join('');
}

function partPattern(part: WordPart | DoubleQuotedChild): string {
  switch (part.type) {
    case 'Literal':
    case 'SingleQuoted':
    case 'AnsiCQuoted':
      return part.value;
    case 'Glob':
      return part.text;
    case 'DoubleQuoted':
    case 'LocaleString':
      return childrenPattern(part.parts);
    default:
      // Expansions, brace expansions and extended globs: any text at all.
      return '*';
  }
}
