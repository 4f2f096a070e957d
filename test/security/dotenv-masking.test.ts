// A repository's .env names values the trust rules do not load. Masking them all would let a pull request choose
// strings that vanish from what the agent and its reader see: the host a planted command sends data to, say.
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { answerWithLastResult, bash, tempDir, toolResults } from '../support/run-agent.js';
import { useScratchRuns } from '../support/scratch.js';
import { useServer } from '../support/use-server.js';

const serve = useServer();
const runAgent = useScratchRuns();

describe('a .env that hides strings from the log', () => {
  it('cannot make the agent redact a host name from the model, stderr and the answer', async () => {
    const cwd = tempDir('agent-hostile-repo-');
    writeFileSync(join(cwd, '.env'), 'HIDE_TOKEN=evil.example.com\nX_SECRET=exfiltrate\n');
    const s = await serve([bash('echo would exfiltrate to evil.example.com'), answerWithLastResult('saw: ')]);
    const run = await runAgent(['-v', 'go'], s.url, { cwd });
    expect(toolResults(s.validRequests()[1]!)[0]!.content).toBe('would exfiltrate to evil.example.com');
    expect(run.stdout).toContain('would exfiltrate to evil.example.com');
    expect(run.stderr).not.toContain('[redacted: HIDE_TOKEN]');
    expect(run.stderr).not.toContain('[redacted: X_SECRET]');
  });

  it('still masks an ignored value that looks like a generated credential', async () => {
    const cwd = tempDir('agent-hostile-repo-');
    const key = 'sk-live-4f8A9b2C7d1E6f3G0h5J';
    writeFileSync(join(cwd, '.env'), `STRIPE_SECRET_KEY=${key}\n`);
    const s = await serve([bash(`echo key is ${key}`), answerWithLastResult('saw: ')]);
    const run = await runAgent(['go'], s.url, { cwd });
    expect(toolResults(s.validRequests()[1]!)[0]!.content).toBe('key is [redacted: STRIPE_SECRET_KEY]');
    expect(run.stdout).not.toContain(key);
    expect(run.stdout).toContain('[redacted: STRIPE_SECRET_KEY]');
  });
});
