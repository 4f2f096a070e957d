// A credential that an HTTP header cannot carry is a usage error before any request, through the binary.
import { rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { answer, tempDir } from './support/run-agent.js';
import { useScratchRuns } from './support/scratch.js';
import { useServer } from './support/use-server.js';

const serve = useServer();
const runAgent = useScratchRuns();

describe('credentials checked before any request', () => {
  it.each([
    [
      'the ellipsis of a placeholder',
      'sk-ant-…',
      /ANTHROPIC_API_KEY \(from the environment\) is a placeholder, not a key/,
    ],
    [
      'three dots',
      'sk-ant-...',
      /is a placeholder, not a key \(it holds an ellipsis or angle brackets\): paste the whole key/,
    ],
    ['angle brackets', '<your-api-key>', /is a placeholder, not a key/],
    [
      'inner white space',
      'sk-ant-api03 abcdef',
      /contains white space at character 13: a credential is one unbroken word/,
    ],
    ['a tab', 'sk-ant-api03\tabcdef', /contains white space at character 13/],
    [
      'a non-ASCII letter',
      'sk-ant-api03-ünïcode',
      /contains 'ü' \(U\+00FC\) at character 14, which an HTTP header cannot carry/,
    ],
    ['a character beyond Latin-1', 'sk-ant-api03-\u2013dash', /contains '–' \(U\+2013\) at character 14/],
    ['a control character', 'sk-ant-api03-\u0007bell', /contains a control character \(U\+0007\) at character 14/],
  ])('%s in ANTHROPIC_API_KEY is exit 2, and nothing is sent', async (_what, key, message) => {
    const s = await serve([answer('never')]);
    const run = await runAgent(['go'], s.url, { env: { ANTHROPIC_API_KEY: key } });
    expect(run.code).toBe(2);
    expect(run.stderr).toMatch(message);
    expect(run.stderr.trim().split('\n')).toHaveLength(1);
    expect(s.connections()).toBe(0);
  });

  it('checks ANTHROPIC_AUTH_TOKEN the same way', async () => {
    const s = await serve([answer('never')]);
    const run = await runAgent(['--output-format', 'json', 'go'], s.url, {
      env: { ANTHROPIC_API_KEY: undefined, ANTHROPIC_AUTH_TOKEN: 'token…' },
    });
    expect(run.code).toBe(2);
    expect(run.stderr).toContain('ANTHROPIC_AUTH_TOKEN (from the environment) is a placeholder');
    expect(JSON.parse(run.stdout)).toMatchObject({ is_error: true, exit_code: 2, subtype: 'error_usage' });
    expect(s.connections()).toBe(0);
  });

  it('names the .env file a bad key came from', async () => {
    const s = await serve([answer('never')]);
    const cwd = tempDir();
    try {
      writeFileSync(join(cwd, '.env'), 'ANTHROPIC_API_KEY=sk-ant-…\n');
      const run = await runAgent(['go'], s.url, { cwd, env: { ANTHROPIC_API_KEY: undefined } });
      expect(run.code).toBe(2);
      expect(run.stderr).toContain(`ANTHROPIC_API_KEY (from ${join(cwd, '.env')}) is a placeholder`);
    } finally {
      rmSync(cwd, { recursive: true, force: true });
    }
  });

  it('sends a good key, without the white space around it (a trailing newline from a file, say)', async () => {
    const s = await serve([answer('fine')], { requireAuth: { apiKey: 'sk-ant-api03-Good_Key-123' } });
    const run = await runAgent(['go'], s.url, { env: { ANTHROPIC_API_KEY: '  sk-ant-api03-Good_Key-123\n' } });
    // The server answers 401 unless it gets exactly the trimmed key.
    expect(run.code).toBe(0);
    expect(s.rejections()).toEqual([]);
  });
});
