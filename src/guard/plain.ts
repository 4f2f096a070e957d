// The most common command line of all, plain words and nothing else (`npm test`, `git status --short`), read without
// the bash parser: with no quote, expansion, glob, operator, redirection, assignment, comment or reserved word in it,
// bash splits it on blanks and nothing more.
import { shapeFromLiteral } from './path-shape.js';
import type { GuardWord } from './words.js';

/** Blanks and characters that mean nothing to bash's grammar or its expansions. */
const PLAIN_LINE = /^[\w./:,+\- \t]*$/;
const BLANKS = /[ \t]+/;

/** Words that start or end a compound command, or time a pipeline, where they stand first. */
const RESERVED_WORDS: ReadonlySet<string> = new Set([
  'case',
  'coproc',
  'do',
  'done',
  'elif',
  'else',
  'esac',
  'fi',
  'for',
  'function',
  'if',
  'in',
  'select',
  'then',
  'time',
  'until',
  'while',
]);

/** The words of a line that is one simple command of plain words; undefined for any other line. */
export function plainCommandWords(line: string): GuardWord[] | undefined {
  if (!PLAIN_LINE.test(line)) return undefined;
  const values = line.split(BLANKS).filter((value) => value !== '');
  if (values.length === 0 || values.some((value) => RESERVED_WORDS.has(value))) return undefined;
  return values.map((value) => ({ value, path: shapeFromLiteral(value, false) }));
}
