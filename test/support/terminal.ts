import { spawn } from 'node:child_process';
import { AGENT_BIN } from './run-agent.js';

/** Runs bin/agent with stdout and stderr on a real pseudo-terminal (util-linux `script`), as a person at a terminal would. */
export function runOnTerminal(args: string[], env: Record<string, string>, cwd: string): Promise<{ code: number | null; screen: string }> {
  const quoted = [AGENT_BIN, ...args].map((word) => `'${word.replaceAll("'", "'\\''")}'`).join(' ');
  const child = spawn('script', ['-qec', `stty cols 100 rows 30; ${quoted} </dev/null`, '/dev/null'], { cwd, env, stdio: ['ignore', 'pipe', 'pipe'] });
  let screen = '';
  child.stdout.setEncoding('utf8').on('data', (chunk: string) => (screen += chunk));
  return new Promise((resolve) => child.on('close', (code) => resolve({ code, screen })));
}
