// Command words as the guard sees them: the value after quote removal, and how the word reads as a path
// (rooted at /, at the home directory, relative, or unknowable), its variables read as far as they are known.
import { homedir } from 'node:os';
import type { Assignment, Word } from 'unbash';
import { expandToPaths } from './expand.js';
import { shapeFromLiteral, type PathShape } from './path-shape.js';
import { VariableScope } from './variables.js';

export type { PathBase, PathShape } from './path-shape.js';

export interface GuardWord {
  /** The word after quote removal; expansions stay as written (`$HOME`, `$(cmd)`). */
  readonly value: string;
  /** Null when the word starts with an expansion whose value cannot be known, or expands to nothing. */
  readonly path: PathShape | null;
  /** The further fields an unquoted variable holding spaces splits the word into. */
  readonly morePaths?: readonly (PathShape | null)[];
}

let noVariables: VariableScope | undefined;

export function wordFromValue(value: string): GuardWord {
  return { value, path: shapeFromLiteral(value, true) };
}

/** Without a scope, variables the word does not assign itself are unknown. */
export function guardWord(word: Word, scope?: VariableScope): GuardWord {
  const parts = word.parts;
  if (parts === undefined || parts.length === 0) {
    return { value: word.value, path: shapeFromLiteral(word.value, word.text.startsWith('~')) };
  }
  const paths = expandToPaths(parts, scope ?? (noVariables ??= new VariableScope(undefined, homedir())));
  const [path = null, ...morePaths] = paths;
  return morePaths.length === 0 ? { value: word.value, path } : { value: word.value, path, morePaths };
}

export function guardWordFromAssignment(assignment: Assignment): GuardWord {
  const operator = assignment.append === true ? '+=' : '=';
  const value =
    assignment.value.type === 'Word'
      ? assignment.value.value
      : assignment.text.slice(assignment.name.length + operator.length);
  return { value: `${assignment.name}${operator}${value}`, path: null };
}

/** Every path the word stands for. */
export function wordPaths(word: GuardWord): readonly (PathShape | null)[] {
  return word.morePaths === undefined ? [word.path] : [word.path, ...word.morePaths];
}
