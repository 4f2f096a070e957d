// An attacker inside the sandbox swaps every file it can reach for a symbolic link to a host file, then asks for a
// command long enough (over 100 kB) that it cannot go inline. The host side must never write through those links.
import { existsSync, readFileSync, utimesSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { answer, bash, tempDir, toolResults } from '../support/run-agent.js';
import type { RecordedRequest } from '../support/server.js';
import { useServer } from '../support/use-server.js';
import { bwrapPath, listTree, noisyHome, outsideTmp, runSandboxed } from './attack-support.js';

/** Bash that finds the shell's bookkeeping directory as an attacker would: from the environment bash started with. */
const FIND_STATE_DIR = `env_file=$(tr '\\0' '\\n' < /proc/$$/environ | sed -n 's/^BASH_ENV=//p'); sd=$(dirname "$env_file")`;

/** Every file in every writable place, and the names the agent may create later, become links into the victim. */
function plantLinks(victim: string): string {
  return `${FIND_STATE_DIR}
for d in "$sd" "$sd"/* "$(dirname "$sd")" "$(dirname "$sd")"/* /tmp /tmp/* "$HOME"; do
  [ -d "$d" ] && [ ! -L "$d" ] || continue
  for f in "$d"/* "$d"/prologue.sh "$d"/cwd "$d"/cd-error "$d"/command-{1..9}.sh; do
    [ -d "$f" ] && [ ! -L "$f" ] && continue
    case "\${f##*/}" in command-*) t=existing ;; *) t="\${f##*/}" ;; esac
    rm -f "$f" 2>/dev/null && ln -s '${victim}'/"$t" "$f" 2>/dev/null && echo "planted $f"
  done
done
true`;
}

const LONG_COMMAND = `: ${'a'.repeat(120_000)}; echo long-done`;

describe.skipIf(bwrapPath === undefined)(`--sandbox: the host never writes through what the sandbox planted`, () => {
  const serve = useServer();

  it('links in place of the bookkeeping files, then a long command', async () => {
    const victim = outsideTmp('agent-victim-');
    writeFileSync(join(victim, 'existing'), 'original\n');
    const s = await serve([bash(plantLinks(victim)), bash(LONG_COMMAND), bash('pwd'), answer('done')]);
    const { home, sourcedMark } = noisyHome();
    const run = await runSandboxed(['go'], s.url, { cwd: tempDir(), env: { HOME: home } });
    expect(run.code).toBe(0);
    expect(listTree(victim)).toEqual(['existing']);
    expect(readFileSync(join(victim, 'existing'), 'utf8')).toBe('original\n');
    expect(toolResults(s.requests[2]!)[0]!.content).toContain('long-done');
    expect(run.stderr).not.toContain('pyenv');
    expect(existsSync(sourcedMark)).toBe(false);
  });

  it('a long command reaches the shell whole, with stdin still /dev/null, and is never a file the sandbox can read', async () => {
    const marker = `MARKER_${process.pid}${Date.now()}`;
    const search = `grep -rlF "MARKER_"'${marker.slice('MARKER_'.length)}' /tmp "$HOME" 2>/dev/null | head -3`;
    const command = `# ${marker}\n: ${'b'.repeat(110_000)}\n${search}; echo "stdin: $(wc -c </dev/stdin)"`;
    const s = await serve([bash(command), answer('done')]);
    const run = await runSandboxed(['go'], s.url, { cwd: tempDir() });
    expect(run.code).toBe(0);
    expect(toolResults(s.requests[1]!)[0]!.content).toBe('stdin: 0');
  });

  it('a state directory inside the working directory: no link can be planted there, none is written through', async () => {
    const cwd = tempDir();
    const stateHome = join(cwd, 'state');
    const victim = join(outsideTmp('agent-victim-'), 'old-file');
    writeFileSync(victim, 'original\n');
    const twoDaysAgo = new Date(Date.now() - 2 * 24 * 3600 * 1000);
    utimesSync(victim, twoDaysAgo, twoDaysAgo);
    const plant = `cd state/agent/sessions && rm -f .last-prune && ln -s '${victim}' .last-prune && echo planted`;
    const first = await serve([bash(plant), answer('done')]);
    expect((await runSandboxed(['go'], first.url, { cwd, env: { XDG_STATE_HOME: stateHome } })).code).toBe(0);
    expect(toolResults(first.requests[1]!)[0]!.content).toContain('Read-only file system');
    const second = await serve([answer('done')]);
    expect((await runSandboxed(['go'], second.url, { cwd, env: { XDG_STATE_HOME: stateHome } })).code).toBe(0);
    expect(readFileSync(victim, 'utf8')).toBe('original\n');
  });

  it('the full output of a long command can be read inside, but not changed', async () => {
    const spillOf = (req: RecordedRequest): string =>
      /is in (\S+) \.\.\.\]/.exec(toolResults(req)[0]!.content)?.[1] ?? 'none';
    const s = await serve([
      bash('seq 1 20000'),
      (req) => bash(`wc -l < ${spillOf(req)}; echo changed >> ${spillOf(req)} || echo refused`),
      answer('done'),
    ]);
    const run = await runSandboxed(['go'], s.url, { cwd: tempDir() });
    expect(run.code).toBe(0);
    const output = toolResults(s.requests[2]!)[0]!.content;
    expect(output).toMatch(/^20000\n.*Read-only file system\nrefused$/s);
  });
});
