// Reading a dotenv file. The working directory's `.env` belongs to the repository, so it is read only when it is a
// regular file reached without following a link: a link could point at any file of the user's, and a FIFO would
// hang the run. A file named with --env-file is the user's own: it may be a link or a pipe (`--env-file <(...)`).
import { closeSync, constants, fstatSync, openSync, readFileSync } from 'node:fs';
import { UsageError } from '../outcome.js';
import { fileProblem } from '../file-problem.js';

type DotenvText = { kind: 'text'; text: string } | { kind: 'absent' } | { kind: 'refused'; reason: string };

export function readDotenvFile(path: string, trusted: boolean): DotenvText {
  try {
    return { kind: 'text', text: trusted ? readFileSync(path, 'utf8') : readPlainFile(path) };
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    if (!trusted && code === 'ENOENT') return { kind: 'absent' };
    if (!trusted && code === 'ELOOP') return { kind: 'refused', reason: 'is a symbolic link' };
    if (error instanceof NotRegular) return { kind: 'refused', reason: 'is not a regular file' };
    throw new UsageError(`Cannot read env file ${path}: ${fileProblem(error)}.`);
  }
}

class NotRegular extends Error {}

function readPlainFile(path: string): string {
  // O_NONBLOCK: opening a FIFO returns at once instead of waiting for a writer; fstat then refuses it.
  const fd = openSync(path, constants.O_RDONLY | constants.O_NOFOLLOW | constants.O_NONBLOCK);
  try {
    if (!fstatSync(fd).isFile()) throw new NotRegular();
    return readFileSync(fd, 'utf8');
  } finally {
    closeSync(fd);
  }
}
