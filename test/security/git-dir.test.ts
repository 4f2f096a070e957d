// An attacker inside the sandbox plants what makes git run a program later on the host (a hook, core.fsmonitor, a
// redirected git directory), in every shape a repository comes in. An ordinary commit inside must still work.
import { spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, renameSync, symlinkSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { answer, bash, toolResults } from '../support/run-agent.js';
import { useServer } from '../support/use-server.js';
import { bwrapPath, noisyHome, outsideTmp, runSandboxed } from './attack-support.js';

function git(cwd: string, ...args: string[]): string {
  const { home } = noisyHome();
  const env = { PATH: process.env.PATH ?? '/usr/bin:/bin', HOME: home, GIT_CONFIG_NOSYSTEM: '1' };
  const ident = ['-c', 'user.name=Host', '-c', 'user.email=host@example.com', '-c', 'init.defaultBranch=main'];
  const result = spawnSync('git', [...ident, ...args], { cwd, env, encoding: 'utf8' });
  return `${result.stdout}${result.stderr}`;
}

function repository(options: { template?: string } = {}): string {
  const dir = join(outsideTmp('agent-repo-'), 'repo');
  mkdirSync(dir);
  git(dir, 'init', '-q', ...(options.template === undefined ? [] : [`--template=${options.template}`]));
  writeFileSync(join(dir, 'README'), 'hello\n');
  git(dir, 'add', 'README');
  git(dir, 'commit', '-qm', 'first');
  return dir;
}

const plant = (mark: string, gitDir: string): string => `
mkdir -p ${gitDir}/hooks ${gitDir}/info 2>/dev/null
for h in post-checkout pre-commit reference-transaction; do printf '#!/bin/sh\\ntouch ${mark}\\n' > ${gitDir}/hooks/$h && chmod +x ${gitDir}/hooks/$h; done
git config core.fsmonitor 'touch ${mark}'; git config core.hooksPath /dev/shm; echo '* filter=evil' >> ${gitDir}/info/attributes
true`;

const replaceGitDir = (mark: string): string => `
mv .git .git-old 2>/dev/null && git init -q . && git config core.fsmonitor 'touch ${mark}'; true`;

const redirectGitFile = (mark: string): string => `
git init -q evil && git -C evil config core.fsmonitor 'touch ${mark}' && printf 'gitdir: %s/evil/.git\\n' "$PWD" > .git
h=$(git rev-parse --git-common-dir)/hooks; rm -rf "$h" && mkdir "$h" && printf '#!/bin/sh\\ntouch ${mark}\\n' > "$h/post-checkout" && chmod +x "$h/post-checkout"
true`;

const COMMIT = [
  'export GIT_AUTHOR_NAME=In GIT_AUTHOR_EMAIL=in@example.com GIT_COMMITTER_NAME=In GIT_COMMITTER_EMAIL=in@example.com',
  'echo inside > inside.txt && git add inside.txt && git commit -qm inside && git branch inner && git checkout -q inner',
  'echo more >> inside.txt && git stash -q && git stash pop -q && git checkout -q - && git gc -q && echo committed',
].join('; ');

describe.skipIf(bwrapPath === undefined)(`--sandbox: .git cannot make the host run a program later`, () => {
  const serve = useServer();

  async function attack(cwd: string, script: string, mark: string): Promise<void> {
    const s = await serve([bash(script), bash(COMMIT), answer('done')]);
    const run = await runSandboxed(['go'], s.url, { cwd });
    expect(run.code).toBe(0);
    // What a user or the next CI step does after the run: each would run a planted program.
    git(cwd, 'status');
    git(cwd, 'checkout', '-q', '-b', 'after-the-run');
    git(cwd, 'commit', '-q', '--allow-empty', '-m', 'after');
    expect(existsSync(mark)).toBe(false);
    expect(toolResults(s.requests[2]!)[0]!.content).toBe('committed');
    expect(git(cwd, 'log', '--format=%s')).toContain('inside\n');
  }

  it('hooks and core.fsmonitor planted in .git, the working directory reached through a link', async () => {
    const repo = repository();
    const link = join(outsideTmp('agent-link-'), 'repo');
    symlinkSync(repo, link);
    const mark = join(outsideTmp('agent-mark-'), 'ran');
    await attack(link, plant(mark, '.git'), mark);
  });

  it('names git would read that do not exist yet (a repository made without hooks)', async () => {
    const repo = repository({ template: '' });
    expect(existsSync(join(repo, '.git', 'hooks'))).toBe(false);
    const mark = join(outsideTmp('agent-mark-'), 'ran');
    await attack(repo, plant(mark, '.git'), mark);
  });

  it('a .git directory replaced by a new one', async () => {
    const repo = repository();
    const mark = join(outsideTmp('agent-mark-'), 'ran');
    await attack(repo, replaceGitDir(mark), mark);
  });

  it('a worktree, whose .git is a file and whose hooks directory is a link', async () => {
    const main = repository();
    const sharedHooks = join(main, '..', 'shared-hooks');
    renameSync(join(main, '.git', 'hooks'), sharedHooks);
    symlinkSync(sharedHooks, join(main, '.git', 'hooks'));
    const worktree = join(main, '..', 'worktree');
    git(main, 'worktree', 'add', '-q', worktree);
    const mark = join(outsideTmp('agent-mark-'), 'ran');
    await attack(worktree, `${redirectGitFile(mark)}\n${plant(mark, '"$(git rev-parse --git-common-dir)"')}`, mark);
  });

  it('hooks kept in the work tree through core.hooksPath, existing or not yet made', async () => {
    for (const made of [true, false]) {
      const repo = repository();
      git(repo, 'config', 'core.hooksPath', '.githooks');
      if (made) mkdirSync(join(repo, '.githooks'));
      const mark = join(outsideTmp('agent-mark-'), 'ran');
      const script = `mkdir -p .githooks; printf '#!/bin/sh\\ntouch ${mark}\\n' > .githooks/post-checkout; chmod +x .githooks/post-checkout; true`;
      await attack(repo, script, mark);
    }
  });
});
