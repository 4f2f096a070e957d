// The home directory under --sandbox: hidden behind an empty private one, the working directory still visible,
// --sandbox-expose paths shown read-only. First the wrapper under real bubblewrap, then through the binary.
import { spawnSync, type SpawnSyncReturns } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readFileSync, realpathSync, rmSync, writeFileSync } from 'node:fs';
import { homedir, tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { sandboxWrap, type SandboxOptions } from '../src/shell/sandbox.js';
import { answer, bash, runAgent, tempDir, toolResults } from './support/run-agent.js';
import type { TestServer } from './support/server.js';
import { useServer } from './support/use-server.js';
import { bwrapPath } from './support/bwrap.js';

const FAKE_KEY =
  '-----BEGIN OPENSSH PRIVATE KEY-----\nZmFrZS1rZXktZm9yLWEtdGVzdA==\n-----END OPENSSH PRIVATE KEY-----\n';
const KEY_BODY = 'ZmFrZS1rZXktZm9yLWEtdGVzdA==';

const dirs: string[] = [];
afterEach(() => {
  for (const dir of dirs.splice(0)) rmSync(dir, { recursive: true, force: true });
});

/**
 * Outside /tmp, which the sandbox makes private anyway: only the home rules may be what hides these files.
 * /var/tmp is the usual place; HOME is the fallback.
 */
function outsideTmp(prefix: string): string {
  const dir = realpathSync(mkdtempSync(join(existsSync('/var/tmp') ? '/var/tmp' : homedir(), prefix)));
  dirs.push(dir);
  expect(dir.startsWith(`${realpathSync(tmpdir())}/`)).toBe(false);
  return dir;
}

/** A home as a CI runner has one: an ssh key, a git config, and a project to work in. */
function fakeHome(): { home: string; project: string } {
  const home = outsideTmp('agent-home-');
  mkdirSync(join(home, '.ssh'));
  writeFileSync(join(home, '.ssh', 'id_rsa'), FAKE_KEY, { mode: 0o600 });
  writeFileSync(join(home, '.gitconfig'), '[user]\n\tname = Test User\n');
  mkdirSync(join(home, 'project'));
  writeFileSync(join(home, 'project', 'README'), 'the task\n');
  return { home, project: join(home, 'project') };
}

describe.skipIf(bwrapPath === undefined)('sandboxWrap: the home directory', () => {
  const run = (workDir: string, script: string, options: SandboxOptions): SpawnSyncReturns<string> => {
    const stateDir = tempDir('agent-home-state-');
    dirs.push(stateDir);
    const [command, ...args] = sandboxWrap(
      bwrapPath!,
      workDir,
      options,
    )(['bash', '-c', script], { cwd: workDir, stateDir }) as [string, ...string[]];
    return spawnSync(command, args, {
      encoding: 'utf8',
      timeout: 15_000,
      env: { ...process.env, HOME: options.home ?? '' },
    });
  };

  it('hides the home behind an empty directory, and shows the working directory inside it, writable', () => {
    const { home, project } = fakeHome();
    const result = run(
      project,
      `ls -A ${home}; cat ${home}/.ssh/id_rsa; echo made > ${project}/out.txt && cat README`,
      { home },
    );
    expect(result.stdout).toBe('project\nthe task\n');
    expect(result.stderr).toContain('No such file or directory');
    expect(readFileSync(join(project, 'out.txt'), 'utf8')).toBe('made\n');
  });

  it('hides a home that lies inside the working directory', () => {
    const outer = outsideTmp('agent-home-outer-');
    const home = join(outer, 'home');
    mkdirSync(join(home, '.ssh'), { recursive: true });
    writeFileSync(join(home, '.ssh', 'id_rsa'), FAKE_KEY);
    const result = run(outer, `ls -A; ls -A home; cat home/.ssh/id_rsa; touch made`, { home });
    expect(result.stdout).toBe('home\n');
    expect(result.stderr).toContain('No such file or directory');
    expect(existsSync(join(outer, 'made'))).toBe(true);
  });

  it('shows the whole home, writable, when the working directory is the home itself', () => {
    const { home } = fakeHome();
    const result = run(home, `cat .ssh/id_rsa; touch made-here`, { home });
    expect(result.stdout).toBe(FAKE_KEY);
    expect(existsSync(join(home, 'made-here'))).toBe(true);
  });

  it('shows exposed paths read-only, and a private home keeps what commands write', () => {
    const { home, project } = fakeHome();
    const privateHome = tempDir('agent-private-home-');
    dirs.push(privateHome);
    const result = run(project, `cat ~/.gitconfig; echo x >> ~/.gitconfig; ls ~/.ssh; echo note > ~/note`, {
      home,
      privateHome,
      expose: [join(home, '.gitconfig')],
    });
    expect(result.stdout).toBe('[user]\n\tname = Test User\n');
    expect(result.stderr).toMatch(/Read-only file system/);
    expect(result.stderr).toMatch(/cannot access .*\.ssh/);
    expect(readFileSync(join(privateHome, 'note'), 'utf8')).toBe('note\n');
    expect(existsSync(join(home, 'note'))).toBe(false);
    expect(readFileSync(join(home, '.gitconfig'), 'utf8')).toBe('[user]\n\tname = Test User\n');
  });
});

describe.skipIf(bwrapPath === undefined)('--sandbox through the binary: the home directory', () => {
  const serve = useServer();
  const resultsOf = (s: TestServer) =>
    s
      .validRequests()
      .slice(1)
      .map((request) => toolResults(request)[0]!.content);

  it('a model that runs cat ~/.ssh/id_rsa gets no key (and without --sandbox it would)', async () => {
    const { home, project } = fakeHome();
    const script = () => [bash('cat ~/.ssh/id_rsa; ls -A ~'), answer('done')];
    const sandboxed = await serve(script());
    const run = await runAgent(['--sandbox', 'go'], sandboxed.url, { cwd: project, env: { HOME: home } });
    expect(run.code).toBe(0);
    const [result] = resultsOf(sandboxed);
    expect(result).toMatch(/No such file or directory/);
    expect(result).toMatch(/\nproject\n?/);
    expect(result).not.toContain(KEY_BODY);
    expect(run.stdout + run.stderr).not.toContain(KEY_BODY);

    const open = await serve(script());
    await runAgent(['go'], open.url, { cwd: project, env: { HOME: home } });
    expect(resultsOf(open)[0]).toContain(KEY_BODY);
  });

  it('--sandbox-expose ~/.gitconfig shows that file read-only, and the home keeps writes for the run', async () => {
    const { home, project } = fakeHome();
    const s = await serve([
      bash('cat ~/.gitconfig; echo more >> ~/.gitconfig; cat ~/.ssh/id_rsa; echo kept > ~/note'),
      bash('cat ~/note'),
      answer('done'),
    ]);
    const run = await runAgent(['--sandbox', '--sandbox-expose', '~/.gitconfig', 'go'], s.url, {
      cwd: project,
      env: { HOME: home },
    });
    expect(run.code).toBe(0);
    const [first, second] = resultsOf(s);
    expect(first).toContain('name = Test User');
    expect(first).toMatch(/Read-only file system/);
    expect(first).not.toContain(KEY_BODY);
    expect(second).toBe('kept');
    expect(existsSync(join(home, 'note'))).toBe(false);
    expect(readFileSync(join(home, '.gitconfig'), 'utf8')).toBe('[user]\n\tname = Test User\n');
  });

  it('with the home as working directory, shows it writable and warns', async () => {
    const { home } = fakeHome();
    const s = await serve([bash('ls ~/.ssh && touch ~/made'), answer('done')]);
    const run = await runAgent(['--sandbox', 'go'], s.url, { cwd: home, env: { HOME: home } });
    expect(run.code).toBe(0);
    expect(resultsOf(s)[0]).toBe('id_rsa');
    expect(existsSync(join(home, 'made'))).toBe(true);
    expect(run.stderr).toMatch(/warning: --sandbox: the working directory is the home directory/);
  });

  it.each([
    [
      ['--sandbox', '--sandbox-expose', '/nonexistent/agent-expose'],
      /--sandbox-expose: \/nonexistent\/agent-expose does not exist/,
    ],
    [['--sandbox-expose', '/etc/hostname'], /--sandbox-expose only applies with --sandbox/],
  ])('%j is exit 2 before any request', async (args, message) => {
    const { project } = fakeHome();
    const s = await serve([answer('never')]);
    const run = await runAgent([...args, 'go'], s.url, { cwd: project });
    expect(run.code).toBe(2);
    expect(run.stderr).toMatch(message);
    expect(s.requests).toHaveLength(0);
  });
});
