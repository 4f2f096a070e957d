// What the attacks share: bubblewrap's presence, a host directory outside every place the sandbox can write, a home
// whose start-up files are noisy (they must never be sourced), and a run of the binary under --sandbox.
import { existsSync, mkdtempSync, readdirSync, realpathSync, rmSync, writeFileSync } from 'node:fs';
import { homedir } from 'node:os';
import { join } from 'node:path';
import { afterEach } from 'vitest';
import { runAgent, tempDir, type AgentOptions, type AgentRun } from '../support/run-agent.js';
import { bwrapPath } from '../support/bwrap.js';

export { bwrapPath };

const NO_BWRAP = 'bubblewrap (bwrap) is not installed: apt-get install bubblewrap';
if (bwrapPath === undefined) console.warn(`security tests skipped: ${NO_BWRAP}`);

const madeOutside: string[] = [];
afterEach(() => {
  for (const dir of madeOutside.splice(0)) rmSync(dir, { recursive: true, force: true });
});

/** A directory outside /tmp (which the sandbox makes private), so only the sandbox's rules decide what reaches it. */
export function outsideTmp(prefix: string): string {
  const dir = realpathSync(mkdtempSync(join(existsSync('/var/tmp') ? '/var/tmp' : homedir(), prefix)));
  madeOutside.push(dir);
  return dir;
}

/** A home whose start-up files complain on stderr and leave a mark, as a CI runner's /root/.bashrc does. */
export function noisyHome(): { home: string; sourcedMark: string } {
  const home = tempDir('agent-noisy-home-');
  const sourcedMark = join(home, 'sourced');
  const noise = `echo "pyenv: command not found" >&2; touch '${sourcedMark}'\n`;
  for (const name of ['.bashrc', '.bash_profile', '.profile']) writeFileSync(join(home, name), noise);
  return { home, sourcedMark };
}

/** Runs the binary under --sandbox with a noisy home; the scripted model is at `url`. */
export function runSandboxed(args: string[], url: string, options: AgentOptions = {}): Promise<AgentRun> {
  const { home } = noisyHome();
  return runAgent(['--sandbox', ...args], url, { timeoutMs: 40_000, ...options, env: { HOME: home, ...options.env } });
}

/** Every entry under a directory, recursively, as paths relative to it. */
export function listTree(dir: string): string[] {
  if (!existsSync(dir)) return [];
  return readdirSync(dir, { recursive: true, encoding: 'utf8' }).sort();
}
