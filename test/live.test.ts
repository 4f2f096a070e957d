// Opt-in: one real run against the Anthropic API (or ANTHROPIC_BASE_URL), only when AGENT_LIVE_API_KEY is set.
import { execFileSync } from 'node:child_process';
import { describe, expect, it } from 'vitest';
import { runAgent, tempDir } from './support/run-agent.js';

const key = process.env.AGENT_LIVE_API_KEY;

describe.skipIf(!key)('against the real API', () => {
  it('answers "What is the current git branch?" through the loop', async () => {
    const repo = tempDir();
    execFileSync('git', ['init', '-q', '-b', 'live-check-branch'], { cwd: repo });
    const run = await runAgent(
      ['--output-format', 'json', 'What is the current git branch? Answer with the name only.'],
      process.env.ANTHROPIC_BASE_URL ?? 'https://api.anthropic.com',
      {
        cwd: repo,
        env: {
          ANTHROPIC_API_KEY: key,
          AGENT_RETRY_BASE_MS: '500',
          ...(process.env.MODEL_ID ? { MODEL_ID: process.env.MODEL_ID } : {}),
        },
        timeoutMs: 120_000,
      },
    );
    expect(run.code).toBe(0);
    const result = JSON.parse(run.stdout);
    expect(result.result).toContain('live-check-branch');
    expect(result.commands).toBeGreaterThan(0);
    expect(result.usage.input_tokens).toBeGreaterThan(0);
  }, 130_000);
});
