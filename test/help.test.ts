// --help as people read it, and the one place defaults come from: what the help says is what a run does.
import { describe, expect, it } from 'vitest';
import { DEFAULTS } from '../src/cli/defaults.js';
import { answer, runAgent } from './support/run-agent.js';
import { useServer } from './support/use-server.js';

const serve = useServer();

async function help(): Promise<string> {
  const s = await serve([]);
  const run = await runAgent(['--help'], s.url);
  expect(run.code).toBe(0);
  expect(run.stderr).toBe('');
  return run.stdout;
}

/** The value `(default: N)` beside a flag in the help. */
function helpDefault(text: string, flag: string): string | undefined {
  const entry = text
    .slice(text.indexOf(`  ${flag} `))
    .split(/\n  -/)[0]!
    .replace(/\s+/g, ' ');
  return /\(default: ([^)]+)\)/.exec(entry)?.[1];
}

describe('--help', () => {
  it('shows usage with [--], the options in groups, then examples, environment and exit codes', async () => {
    const text = await help();
    expect(text.startsWith('Usage: agent [options] [--] <prompt...>\n')).toBe(true);
    const headings = text.split('\n').filter((line) => /^[A-Z][a-z ]+:$/.test(line));
    expect(headings).toEqual([
      'Arguments:',
      'Model and limits:',
      'Input and output:',
      'Commands and safety:',
      'Sessions and budgets:',
      'Configuration:',
      'Other:',
      'Examples:',
      'Environment:',
      'Exit codes:',
    ]);
    for (const flag of ['--max-turns', '--output-format', '--allow', '--sandbox', '--env-file', '--quiet', '--version'])
      expect(text).toContain(flag);
    for (const variable of ['ANTHROPIC_API_KEY', 'ANTHROPIC_BASE_URL', 'NO_COLOR', 'FORCE_COLOR'])
      expect(text).toContain(`  ${variable}`);
    for (const code of ['0', '1', '2', '3', '130', '141', '143']) expect(text).toMatch(new RegExp(`\\n  ${code} +\\S`));
    expect(text).toContain('$ git diff | agent "Review this change"');
  });

  it('shows defaults as values, the same ones the configuration uses', async () => {
    const text = await help();
    expect(text).not.toMatch(/default: ["'[]/);
    expect(helpDefault(text, '--max-turns <n>')).toBe(String(DEFAULTS.maxTurns));
    expect(helpDefault(text, '--max-tokens <n>')).toBe(String(DEFAULTS.maxTokens));
    expect(helpDefault(text, '--context-window <tokens>')).toBe(String(DEFAULTS.contextWindow));
    expect(helpDefault(text, '-t, --timeout <seconds>')).toBe(String(DEFAULTS.timeoutSec));
    expect(helpDefault(text, '--max-timeout <seconds>')).toBe(String(DEFAULTS.maxTimeoutSec));
    expect(helpDefault(text, '--output-format <format>')).toBe(DEFAULTS.outputFormat);
  });

  it('promises the defaults a run without flags uses', async () => {
    const text = await help();
    const s = await serve([answer('ok')]);
    // Without thinking: with it, max_tokens leaves room for the thinking (test/thinking-e2e.test.ts).
    const run = await runAgent(['--no-thinking', 'go'], s.url);
    expect(run.code).toBe(0);
    const body = s.validRequests()[0]!.body;
    expect(String(body.max_tokens)).toBe(helpDefault(text, '--max-tokens <n>'));
    const tool = JSON.stringify(body.tools);
    expect(tool).toContain(`after ${helpDefault(text, '-t, --timeout <seconds>')} s`);
    expect(tool).toContain(`at most ${helpDefault(text, '--max-timeout <seconds>')} s`);
  });
});
