import { spawn } from 'node:child_process';
import { afterEach, describe, expect, it } from 'vitest';
import { AGENT_BIN, answer, baseEnv, bash, tempDir } from './support/run-agent.js';
import { startServer, type TestServer } from './support/server.js';

let server: TestServer | undefined;
afterEach(async () => {
  await server?.close();
  server = undefined;
});

/** Runs bin/agent with stdout and stderr on a real pseudo-terminal (util-linux `script`), as a person at a terminal would. */
function runOnTerminal(args: string[], env: Record<string, string>): Promise<{ code: number | null; screen: string }> {
  const quoted = [AGENT_BIN, ...args].map((word) => `'${word.replaceAll("'", "'\\''")}'`).join(' ');
  const child = spawn('script', ['-qec', `stty cols 100 rows 30; ${quoted} </dev/null`, '/dev/null'], { cwd: tempDir(), env, stdio: ['ignore', 'pipe', 'pipe'] });
  let screen = '';
  child.stdout.setEncoding('utf8').on('data', (chunk: string) => (screen += chunk));
  return new Promise((resolve) => child.on('close', (code) => resolve({ code, screen })));
}

const COLOUR = /\u001b\[[0-9;]*m/;

describe('on a terminal', () => {
  it('shows a spinner and colour, and the final answer once', async () => {
    server = await startServer([
      { kind: 'message', content: [{ type: 'text', text: 'Let me look.' }, { type: 'tool_use', name: 'bash', input: { command: 'echo looked' } }], delayMs: 400 },
      { kind: 'message', content: [{ type: 'text', text: 'THE-FINAL-ANSWER' }], delayMs: 400 },
    ]);
    const { code, screen } = await runOnTerminal(['go'], baseEnv(server.url));
    expect(code).toBe(0);
    expect(screen).toContain('Waiting for the model');
    expect(screen).toMatch(COLOUR);
    expect(screen).toContain('Let me look.');
    expect(screen.split('THE-FINAL-ANSWER')).toHaveLength(2);
  });

  it('uses no colour with NO_COLOR set', async () => {
    server = await startServer([bash('echo hi'), answer('plain')]);
    const { code, screen } = await runOnTerminal(['go'], { ...baseEnv(server.url), NO_COLOR: '1' });
    expect(code).toBe(0);
    expect(screen).toContain('$ echo hi');
    expect(screen).not.toMatch(COLOUR);
  });
});
