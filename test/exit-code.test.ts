// The exit status of every way the command ends, decided in one function (the contract's *Exit status* table).
import { describe, expect, it } from 'vitest';
import { exitCodeFor, type Ending } from '../src/cli/exit-code.js';

describe('exitCodeFor', () => {
  it('maps each ending to the status the contract gives it', () => {
    const cases: Array<[Ending, number]> = [
      [{ kind: 'success' }, 0],
      [{ kind: 'help_shown' }, 0],
      [{ kind: 'max_turns' }, 1],
      [{ kind: 'max_tokens' }, 1],
      [{ kind: 'refusal' }, 1],
      [{ kind: 'context' }, 1],
      [{ kind: 'structured_output' }, 1],
      [{ kind: 'max_budget_usd' }, 1],
      [{ kind: 'max_duration' }, 1],
      [{ kind: 'result_unwritable' }, 1],
      [{ kind: 'internal_error' }, 1],
      [{ kind: 'usage' }, 2],
      [{ kind: 'api_error' }, 3],
      [{ kind: 'interrupted', signal: 'SIGINT' }, 130],
      [{ kind: 'interrupted', signal: 'EPIPE' }, 141],
      [{ kind: 'interrupted', signal: 'SIGTERM' }, 143],
    ];
    expect(cases.map(([ending]) => exitCodeFor(ending))).toEqual(cases.map(([, code]) => code));
  });
});
