import { existsSync } from 'node:fs';
import { isAbsolute, resolve } from 'node:path';
import { compileGlob } from '../glob.js';
import { UsageError } from '../outcome.js';

/** `--pass-env` globs, checked: each must compile and could match a variable name. */
export function checkPassEnv(globs: string[] = []): string[] {
  for (const glob of globs) {
    if (glob.trim() === '') throw new UsageError('--pass-env needs a variable name or a glob such as NPM_*.');
    if (glob.includes('=')) {
      throw new UsageError(
        `--pass-env '${glob}': a variable name cannot contain '='; give the name only (e.g. --pass-env ${glob.split('=')[0]}).`,
      );
    }
    const compiled = compileGlob(glob);
    if (!compiled.ok) throw new UsageError(`--pass-env: invalid glob '${glob}': ${compiled.message}.`);
  }
  return globs;
}

/** `--sandbox-expose` paths, absolute (a leading ~ is the home directory); each must exist, and only with --sandbox. */
export function resolveSandboxExpose(paths: string[] = [], sandbox: boolean, home: string | undefined): string[] {
  if (paths.length > 0 && !sandbox) {
    throw new UsageError(
      '--sandbox-expose only applies with --sandbox (without it, commands can read every file anyway).',
    );
  }
  return paths.map((path) => {
    const expanded = home && (path === '~' || path.startsWith('~/')) ? home + path.slice(1) : path;
    const absolute = isAbsolute(expanded) ? expanded : resolve(expanded);
    if (!existsSync(absolute)) throw new UsageError(`--sandbox-expose: ${absolute} does not exist.`);
    return absolute;
  });
}
