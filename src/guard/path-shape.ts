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

/** The length of a leading `~` or `~user`; null for `~+` and `~-` ($PWD and $OLDPWD: not knowable here). */
export function tildePrefixLength(text: string): number | null {
  const prefix = TILDE_PREFIX.exec(text);
  return prefix === null ? null : prefix[0].length;
}

export function shapeFromLiteral(text: string, tildeIsLive: boolean): PathShape | null {
  if (tildeIsLive && text.startsWith('~')) {
    const length = tildePrefixLength(text);
    if (length === null) return null;
    return { base: 'home', rest: text.slice(length) };
  }
  if (text.startsWith('/')) return { base: 'root', rest: text };
  return { base: 'relative', rest: text };
}
