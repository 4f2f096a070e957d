// --max-budget-usd and --max-duration through the real binary: the run ends at the right moment, with the right
// subtype and exit 1, the result printed, and no process left behind.
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { isRunning, pidIn, waitUntil } from './support/processes.js';
import { answer, bash, readRecords, runAgent } from './support/run-agent.js';
import { mergedMessages, resultOf, useScratch } from './support/session-files.js';
import type { Turn } from './support/server.js';
import { useServer } from './support/use-server.js';

const serve = useServer();
const scratch = useScratch();

/** At claude-sonnet-4-5's $3 per million input tokens, each of these calls costs exactly $0.30. */
const THIRTY_CENTS = {
  input_tokens: 100_000,
  output_tokens: 0,
  cache_creation_input_tokens: 0,
  cache_read_input_tokens: 0,
};
function priced(turn: Turn): Turn {
  if (typeof turn === 'function' || turn.kind !== 'message') throw new Error('only a message turn has usage');
  return { ...turn, usage: THIRTY_CENTS };
}

describe('--max-budget-usd', () => {
  it('starts no model call once the run has cost the budget: error_max_budget_usd, exit 1', async () => {
    const s = await serve([priced(bash('echo one')), priced(bash('echo two')), answer('never asked')]);
    const run = await runAgent(
      ['--output-format', 'json', '-m', 'claude-sonnet-4-5', '--max-budget-usd', '0.5', 'spend'],
      s.url,
      { cwd: scratch() },
    );
    expect(run.code).toBe(1);
    // $0.30 after the first call (under), $0.60 after the second: its commands still run, the third call never starts.
    expect(resultOf(run)).toMatchObject({
      subtype: 'error_max_budget_usd',
      is_error: true,
      exit_code: 1,
      num_turns: 2,
      commands: 2,
      total_cost_usd: 0.6,
    });
    expect(s.requests).toHaveLength(2);
    expect(run.stderr).toContain(
      'agent: Stopped: the run has cost $0.6000, which reaches --max-budget-usd 0.5; no further model call was made.',
    );
  });

  it('a run stopped by its budget goes on with --resume and a new budget, from where it stopped', async () => {
    const s = await serve([priced(bash('echo one')), priced(bash('echo two')), answer('finished')]);
    const first = await runAgent(
      ['--output-format', 'json', '-m', 'claude-sonnet-4-5', '--max-budget-usd', '0.5', 'spend'],
      s.url,
      { cwd: scratch() },
    );
    expect(resultOf(first).subtype).toBe('error_max_budget_usd');
    const args = [
      '--output-format',
      'json',
      '-m',
      'claude-sonnet-4-5',
      '--max-budget-usd',
      '1',
      '--resume',
      resultOf(first).session_id,
      'go on',
    ];
    const second = await runAgent(args, s.url, { cwd: scratch() });
    expect(second.code).toBe(0);
    expect(resultOf(second)).toMatchObject({ subtype: 'success', result: 'finished', num_turns: 1 });
    expect(resultOf(second).total_cost_usd).toBeLessThan(0.1);
    const last = mergedMessages(s.validRequests()[2]!).at(-1)!.blocks;
    expect(last.map((block) => (block.type === 'tool_result' ? block.content : block.text))).toEqual(['two', 'go on']);
    expect(s.rejections()).toEqual([]);
  });

  it('a run that finishes on the call that crosses the budget has succeeded', async () => {
    const s = await serve([priced(bash('echo one')), priced(answer('done'))]);
    const run = await runAgent(
      ['--output-format', 'json', '-m', 'claude-sonnet-4-5', '--max-budget-usd', '0.5', 'spend'],
      s.url,
      { cwd: scratch() },
    );
    expect(run.code).toBe(0);
    expect(resultOf(run)).toMatchObject({ subtype: 'success', total_cost_usd: 0.6 });
  });

  it.each([
    ['0', /--max-budget-usd must be a number greater than 0; got '0'/],
    ['-1', /--max-budget-usd must be a number greater than 0; got '-1'/],
    ['two', /--max-budget-usd must be a number greater than 0; got 'two'/],
  ])('%s is a usage error', async (value, message) => {
    const s = await serve([answer('never')]);
    const run = await runAgent(['--output-format', 'json', `--max-budget-usd=${value}`, 'go'], s.url, {
      cwd: scratch(),
    });
    expect(run.code).toBe(2);
    expect(run.stderr).toMatch(message);
    expect(resultOf(run)).toMatchObject({ subtype: 'error_usage' });
    expect(s.requests).toEqual([]);
  });

  it('with a model whose price is unknown is a usage error, never a silent no-op', async () => {
    const s = await serve([answer('never')]);
    const run = await runAgent(['-m', 'someone-elses-model', '--max-budget-usd', '1', 'go'], s.url, { cwd: scratch() });
    expect(run.code).toBe(2);
    expect(run.stderr).toContain(
      "--max-budget-usd needs the model's price, and the price of 'someone-elses-model' is not known.",
    );
    expect(s.requests).toEqual([]);
  });
});

describe('--max-duration', () => {
  it('kills the running command at the deadline: its partial output kept, the result printed, exit 1, nothing left running', async () => {
    const dir = scratch();
    const transcript = join(dir, 'run.jsonl');
    const s = await serve([bash('echo started; sleep 100 & echo $! > sleep.pid; wait'), answer('never')]);
    const run = await runAgent(
      ['--output-format', 'json', '--max-duration', '1.5', '--transcript', transcript, 'go'],
      s.url,
      { cwd: dir },
    );
    expect(run.code).toBe(1);
    expect(run.durationMs).toBeGreaterThan(1400);
    expect(run.durationMs).toBeLessThan(3500);
    expect(resultOf(run)).toMatchObject({
      subtype: 'error_max_duration',
      is_error: true,
      exit_code: 1,
      commands: 1,
      num_turns: 1,
    });
    expect(run.stderr).toContain('agent: Stopped at the --max-duration limit of 1.5 s.');
    expect(await waitUntil(() => !isRunning(pidIn(join(dir, 'sleep.pid'))), 1000)).toBe(true);
    expect(s.requests).toHaveLength(1);
    const records = readRecords(transcript);
    expect(records.find((record) => record.type === 'command')).toMatchObject({
      is_error: true,
      result: expect.stringMatching(/started[\s\S]*aborted/),
    });
    const results = records.filter((record) => record.type === 'message').at(-1).message.content;
    expect(results[0]).toMatchObject({
      type: 'tool_result',
      is_error: true,
      content: expect.stringMatching(/started/),
    });
  });

  it('aborts the request in flight at the deadline', async () => {
    const s = await serve([{ kind: 'hang' }]);
    const run = await runAgent(['--output-format', 'json', '--max-duration', '1', 'go'], s.url, { cwd: scratch() });
    expect(run.code).toBe(1);
    expect(run.durationMs).toBeLessThan(2500);
    expect(resultOf(run)).toMatchObject({ subtype: 'error_max_duration', num_turns: 0 });
  });

  it('bounds retries: no retry waits past the deadline', async () => {
    const s = await serve([{ kind: 'http_error', status: 529, headers: { 'retry-after': '30' } }, answer('too late')]);
    const run = await runAgent(['--output-format', 'json', '--max-duration', '1.5', 'go'], s.url, { cwd: scratch() });
    expect(run.code).toBe(1);
    expect(run.stderr).toMatch(/retrying in 30\.0 s/);
    expect(run.durationMs).toBeLessThan(3500);
    expect(resultOf(run)).toMatchObject({ subtype: 'error_max_duration', num_turns: 0 });
    expect(s.requests).toHaveLength(1);
  });

  it('counts from start-up: a prompt still being read when the time is up ends the run, and nothing is sent', async () => {
    const s = await serve([answer('never')]);
    const run = await runAgent(['--output-format', 'json', '--max-duration', '1'], s.url, {
      cwd: scratch(),
      stdin: 'open',
    });
    expect(run.code).toBe(1);
    expect(run.durationMs).toBeLessThan(2500);
    expect(resultOf(run)).toMatchObject({ subtype: 'error_max_duration', num_turns: 0 });
    expect(s.requests).toEqual([]);
  });

  it.each(['0', '-5', 'soon'])('%s is a usage error', async (value) => {
    const s = await serve([answer('never')]);
    const run = await runAgent([`--max-duration=${value}`, 'go'], s.url, { cwd: scratch() });
    expect(run.code).toBe(2);
    expect(run.stderr).toContain(`--max-duration must be a number greater than 0; got '${value}'.`);
    expect(s.requests).toEqual([]);
  });
});
