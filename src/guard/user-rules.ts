// The user's --allow and --deny rules, compiled from their globs. A run's policy is the same on every command, so
// each list is compiled once, and again only if it changed.
import { compileGlob, escapeRegExp, normalizeRule } from '../glob.js';

export interface UserRule {
  readonly glob: string;
  readonly regexp: RegExp;
}

/** The compiled rules of each list of globs, kept with a copy of the globs they were compiled from. */
const compiledRules = new WeakMap<
  readonly string[],
  { readonly globs: readonly string[]; readonly rules: UserRule[] }
>();

/** The rules of a list of globs, in its order; empty globs make none. */
export function userRules(globs: readonly string[]): readonly UserRule[] {
  const known = compiledRules.get(globs);
  if (known !== undefined && sameGlobs(known.globs, globs)) return known.rules;
  const rules = compileRules(globs);
  compiledRules.set(globs, { globs: [...globs], rules });
  return rules;
}

function sameGlobs(a: readonly string[], b: readonly string[]): boolean {
  return a.length === b.length && a.every((glob, index) => glob === b[index]);
}

function compileRules(globs: readonly string[]): UserRule[] {
  const rules: UserRule[] = [];
  for (const raw of globs) {
    const glob = normalizeRule(raw);
    const compiled = compileGlob(glob);
    // validateRule rejects bad rules up front; one that slips through matches literally.
    const regexp = compiled.ok ? compiled.regexp : new RegExp(`^${escapeRegExp(glob)}$`);
    if (glob !== '') rules.push({ glob, regexp });
  }
  return rules;
}
