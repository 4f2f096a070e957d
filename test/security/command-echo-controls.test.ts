// A command's escape sequences carry their own payload: `echo ok ESC]0;; rm -rf ~ BEL` sets a window title to
// "; rm -rf ~" on a terminal, and with the sequence dropped whole the echo reads `$ echo ok` while bash runs the rm.
// The `$ command` echo shows each control character escaped instead, so the reader sees what runs.
import { describe, expect, it } from 'vitest';
import { answer, bash } from '../support/run-agent.js';
import { useScratchRuns } from '../support/scratch.js';
import { useServer } from '../support/use-server.js';

const serve = useServer();
const runAgent = useScratchRuns();

/** Any C0 or C1 control but newline and tab. */
const RAW_CONTROL = /[\u0000-\u0008\u000b-\u001f\u007f-\u009f]/;

describe('the command echo on stderr', () => {
  it('shows the payload of an escape sequence, escaped', async () => {
    const command = 'echo ok \u001b]0;; echo HIDDEN-PAYLOAD \u0007; echo \u009b31m\r';
    for (const flags of [[], ['-v']]) {
      const s = await serve([bash(command), answer('done')]);
      const run = await runAgent([...flags, 'go'], s.url);
      expect(run.stderr).toContain('$ echo ok \\e]0;; echo HIDDEN-PAYLOAD \\a; echo \\x9b31m\\r');
      expect(run.stderr).not.toMatch(RAW_CONTROL);
    }
  });

  it('keeps the command itself as it was for the model and the JSON lines', async () => {
    const command = 'echo ok \u001b]0;; echo HIDDEN-PAYLOAD \u0007';
    const s = await serve([bash(command), answer('done')]);
    const run = await runAgent(['--output-format', 'stream-json', 'go'], s.url);
    expect(run.stdout).toContain(JSON.stringify(command).slice(1, -1));
  });
});

describe('a secret split by a control character in the command', () => {
  it('shows neither the halves nor a command without its controls', async () => {
    const secret = 'ghp_SplitSecretValue0123456789';
    const command = `echo ${secret.slice(0, 10)}\u001b[0m${secret.slice(10)}; echo \u001b]0;; echo PAYLOAD \u0007`;
    const s = await serve([bash(command), answer('done')]);
    const run = await runAgent(['go'], s.url, { env: { GH_TOKEN: secret } });
    expect(run.stderr).not.toContain(secret.slice(10));
    expect(run.stderr).toContain('$ [not shown: control characters split a secret in it]');
  });
});
