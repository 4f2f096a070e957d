import { accessSync, constants } from 'node:fs';
import { delimiter, join } from 'node:path';

/** Where bubblewrap is on PATH, or undefined where it is not installed (the sandbox tests then skip and say why). */
export const bwrapPath = (process.env.PATH ?? '')
  .split(delimiter)
  .map((dir) => join(dir, 'bwrap'))
  .find((candidate) => {
    try {
      accessSync(candidate, constants.X_OK);
      return true;
    } catch {
      return false;
    }
  });
