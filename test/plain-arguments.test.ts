// A command line without flags, read without commander: exactly what commander makes of it.
import { describe, expect, it } from 'vitest';
import { plainArguments } from '../src/cli/plain-arguments.js';
import { parseArguments } from '../src/cli/program.js';

describe('plainArguments', () => {
  it.each([[[]], [['say hello']], [['fix', 'the', 'tests']], [['help']], [['']], [['a - b', 'x=1']], [['ünïcode']]])(
    'reads %j as commander does',
    async (argv) => {
      expect(plainArguments(argv)).toStrictEqual(await parseArguments(argv, '1.0.0'));
    },
  );

  it.each([[['-q', 'go']], [['go', '--max-turns', '3']], [['--', 'go']], [['-']], [['go', '-V']]])(
    'leaves %j to commander',
    (argv) => {
      expect(plainArguments(argv)).toBeUndefined();
    },
  );

  it("hands out options that a caller's changes cannot carry into the next reading", async () => {
    const first = plainArguments(['go'])!;
    first.raw.cache = false;
    first.words.push('more');
    expect(plainArguments(['go'])).toStrictEqual(await parseArguments(['go'], '1.0.0'));
  });
});
