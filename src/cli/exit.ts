import { exitCodeFor, type Ending } from './exit-code.js';
import { writeStderr } from './streams.js';

/** Tells people why the command failed: one or two plain lines on stderr. */
export function tellFailure(message: string): void {
  writeStderr(`agent: ${message}\n`);
}

/**
 * The one place the process exits, with the status the ending calls for: once stderr has drained (it may be a slow
 * pipe), or `now` (a second signal, or a stop that overran its deadline).
 */
export function exitWith(ending: Pick<Ending, 'kind' | 'signal'>, { now = false }: { now?: boolean } = {}): void {
  const code = exitCodeFor(ending);
  if (now) process.exit(code);
  process.stderr.write('', () => process.exit(code));
}
