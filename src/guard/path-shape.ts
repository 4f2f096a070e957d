// How a command word reads as a path: rooted at /, at the home directory, relative, or unknowable.

export type PathBase = 'root' | 'home' | 'relative';

export interface PathShape {
  readonly base: PathBase;
  /** The path after its base. Expansions, brace expansions and extended globs read as `*`. */
  readonly rest: string;
  /** A variable that is unset or empty at the start of the word made it start at / (`"$UNSET"/*`). */
  readonly emptyVariable?: string;
}

const TILDE_PREFIX = /^~([A-Za-z_][\w.-]*)?(?=\/|$)/;

/** The length of a leading `~` or `~user`; null for anything else (`~+` and `~-`: see directoryTilde). */
export function tildePrefixLength(text: string): number | null {
  const prefix = TILDE_PREFIX.exec(text);
  return prefix === null ? null : prefix[0].length;
}

const DIRECTORY_TILDE = /^~([+-])(?=\/|$)/;

/** A leading `~+` ($PWD) or `~-` ($OLDPWD): which one; undefined for any other text. */
export function directoryTilde(text: string): '+' | '-' | undefined {
  return DIRECTORY_TILDE.exec(text)?.[1] as '+' | '-' | undefined;
}

/**
 * `~-` is the directory the shell was in before its last `cd`, which the guard does not follow: any absolute path at
 * all, as `/*` reads (so `rm -rf ~-/..` is judged like `rm -rf /*`).
 */
export const OLDPWD_STAND_IN = '/*';

export function shapeFromLiteral(text: string, tildeIsLive: boolean): PathShape | null {
  const directory = tildeIsLive ? directoryTilde(text) : undefined;
  if (directory === '+') return { base: 'relative', rest: text.slice(2) };
  if (directory === '-') return { base: 'root', rest: OLDPWD_STAND_IN + text.slice(2) };
  if (tildeIsLive && text.startsWith('~')) {
    const length = tildePrefixLength(text);
    if (length === null) return null;
    return { base: 'home', rest: text.slice(length) };
  }
  if (text.startsWith('/')) return { base: 'root', rest: text };
  return { base: 'relative', rest: text };
}
