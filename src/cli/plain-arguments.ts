import type { RawOptions } from './config.js';

/**
 * What commander makes of a command line without a single flag: the words are the prompt, and the options are the
 * defaults of the --no-… flags. test/plain-arguments.test.ts holds this against commander itself.
 */
const NO_FLAGS: Readonly<RawOptions> = {
  thinking: true,
  projectInstructions: true,
  cache: true,
  stdin: true,
  sessionPersistence: true,
};

/**
 * The command line when no word starts with '-' (the most common: `agent "the task"`), read without loading and
 * building commander's program, a few milliseconds of every start; undefined for anything else, which commander reads.
 */
export function plainArguments(argv: readonly string[]): { words: string[]; raw: RawOptions } | undefined {
  if (argv.some((word) => word.startsWith('-'))) return undefined;
  return { words: [...argv], raw: { ...NO_FLAGS } };
}
