// Project instructions (AGENTS.md, CLAUDE.md) and the system prompt options, through the binary: which files are
// read and in what order, the cap, the off switch, the init line and -v, and the files given by flag.
import { execFileSync } from 'node:child_process';
import { mkdirSync, symlinkSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { AGENT_BIN, answer, bash, runAgent, tempDir } from './support/run-agent.js';
import type { RecordedRequest } from './support/server.js';
import { useServer } from './support/use-server.js';

const serve = useServer();

/** A git work tree (a bare `.git` directory is all the agent looks for) with these files in it. */
function repo(files: Record<string, string> = {}): string {
  const root = tempDir('agent-instructions-');
  mkdirSync(join(root, '.git'));
  write(root, files);
  return root;
}

function write(root: string, files: Record<string, string>): void {
  for (const [path, text] of Object.entries(files)) {
    mkdirSync(join(root, path, '..'), { recursive: true });
    writeFileSync(join(root, path), text);
  }
}

function systemText(request: RecordedRequest | undefined): string {
  const blocks = (request?.body.system ?? []) as Array<{ text: string }>;
  return blocks.map((block) => block.text).join('\n\n');
}

function initLine(stdout: string): { instructions_files: string[] } {
  return JSON.parse(stdout.split('\n')[0]!);
}

/** One run that answers at once; the system prompt it sent, and the run. */
async function promptOf(cwd: string, args: string[] = [], env: Record<string, string> = {}) {
  const s = await serve([answer('ok')]);
  const run = await runAgent([...args, 'go'], s.url, { cwd, env });
  return { run, system: systemText(s.validRequests()[0]), requests: s.requests.length };
}

describe('project instructions', () => {
  it('reads AGENTS.md, or CLAUDE.md where there is none, from the root down to the working directory, root first', async () => {
    const root = repo({
      'AGENTS.md': 'ROOT AGENTS\n',
      'CLAUDE.md': 'ROOT CLAUDE: not read, AGENTS.md is there\n',
      'pkg/CLAUDE.md': 'PKG CLAUDE\n',
      'pkg/web/AGENTS.md': 'WEB AGENTS\n',
      'pkg/web/src/README.md': 'no instructions here\n',
      'pkg/other/AGENTS.md': 'OTHER: not on the way down\n',
    });
    const cwd = join(root, 'pkg/web/src');
    const s = await serve([bash('true'), answer('ok')]);
    const run = await runAgent(['-v', '--output-format', 'stream-json', 'go'], s.url, { cwd });
    expect(run.code).toBe(0);
    const system = systemText(s.validRequests()[0]);
    const headings = [
      '## AGENTS.md\n\nROOT AGENTS',
      '## pkg/CLAUDE.md\n\nPKG CLAUDE',
      '## pkg/web/AGENTS.md\n\nWEB AGENTS',
    ];
    const at = headings.map((heading) => system.indexOf(heading));
    expect(at.every((index) => index > system.indexOf('You are agent'))).toBe(true);
    expect(at).toEqual([...at].sort((a, b) => a - b));
    expect(system).not.toMatch(/ROOT CLAUDE|OTHER/);
    const files = [join(root, 'AGENTS.md'), join(root, 'pkg/CLAUDE.md'), join(root, 'pkg/web/AGENTS.md')];
    expect(initLine(run.stdout).instructions_files).toEqual(files);
    expect(run.stderr).toContain(`project instructions read: ${files.join(', ')}`);
    // The same system prompt on every request of the run, so its cached prefix is read back.
    expect(systemText(s.validRequests()[1])).toBe(system);
  });

  it('finds the root by a .git file too (a linked work tree or a submodule)', async () => {
    const root = tempDir('agent-instructions-');
    write(root, { '.git': 'gitdir: /elsewhere/.git/worktrees/x\n', 'AGENTS.md': 'WORKTREE ROOT\n', 'sub/keep': '' });
    const { system } = await promptOf(join(root, 'sub'));
    expect(system).toContain('## AGENTS.md\n\nWORKTREE ROOT');
  });

  it('works in a repository made by git itself', async () => {
    const root = tempDir('agent-instructions-');
    execFileSync('git', ['init', '-q', root]);
    write(root, { 'AGENTS.md': 'REAL GIT\n', 'a/b/AGENTS.md': 'DEEP\n' });
    const { system } = await promptOf(join(root, 'a/b'));
    expect(system).toMatch(/## AGENTS.md\n\nREAL GIT[^]*## a\/b\/AGENTS.md\n\nDEEP/);
  });

  it("outside any git work tree, reads only the working directory's own file", async () => {
    const outside = tempDir('agent-no-git-');
    write(outside, { 'AGENTS.md': 'PARENT\n', 'work/AGENTS.md': 'HERE\n' });
    const s = await serve([answer('ok')]);
    const run = await runAgent(['--output-format', 'stream-json', 'go'], s.url, { cwd: join(outside, 'work') });
    const system = systemText(s.validRequests()[0]);
    expect(system).toContain('## AGENTS.md\n\nHERE');
    expect(system).not.toContain('PARENT');
    expect(initLine(run.stdout).instructions_files).toEqual([join(outside, 'work/AGENTS.md')]);
  });

  it('does not climb above $HOME to a work tree whose root is there: only the working directory is read', async () => {
    const top = repo({
      'AGENTS.md': 'ABOVE HOME\n',
      'home/AGENTS.md': 'HOME\n',
      'home/project/AGENTS.md': 'PROJECT\n',
    });
    const { system } = await promptOf(join(top, 'home/project'), [], { HOME: join(top, 'home') });
    expect(system).toContain('## AGENTS.md\n\nPROJECT');
    expect(system).not.toMatch(/ABOVE HOME|\n\nHOME/);
    // A repository at $HOME itself is the user's own: it is read from there down.
    mkdirSync(join(top, 'home/.git'));
    const again = await promptOf(join(top, 'home/project'), [], { HOME: join(top, 'home') });
    expect(again.system).toMatch(/## AGENTS.md\n\nHOME[^]*## project\/AGENTS.md\n\nPROJECT/);
    expect(again.system).not.toContain('ABOVE HOME');
  });

  it('--no-project-instructions reads none, lists none, and says so with -v', async () => {
    const root = repo({ 'AGENTS.md': 'SHOULD NOT BE READ\n' });
    const s = await serve([answer('ok')]);
    const run = await runAgent(['--no-project-instructions', '-v', '--output-format', 'stream-json', 'go'], s.url, {
      cwd: root,
    });
    expect(run.code).toBe(0);
    expect(systemText(s.validRequests()[0])).not.toContain('SHOULD NOT BE READ');
    expect(initLine(run.stdout).instructions_files).toEqual([]);
    expect(run.stderr).toContain('project instructions: off (--no-project-instructions)');
  });

  it('cuts the text at 32 KiB in all, with a note in the prompt and a warning; later files are left out', async () => {
    const line = (tag: string) => `${tag} ${'x'.repeat(60)}\n`;
    const root = repo({
      'AGENTS.md': line('ROOT').repeat(300),
      'a/AGENTS.md': `${line('A-FIRST')}${line('A').repeat(300)}A-LAST\n`,
      'a/b/AGENTS.md': 'B NEVER FITS\n',
    });
    const s = await serve([answer('ok')]);
    const run = await runAgent(['--output-format', 'stream-json', 'go'], s.url, { cwd: join(root, 'a/b') });
    expect(run.code).toBe(0);
    const system = systemText(s.validRequests()[0]);
    const section = system.slice(system.indexOf('# Project instructions'));
    expect(Buffer.byteLength(section)).toBeLessThanOrEqual(32 * 1024 + 600);
    expect(section).toContain('A-FIRST');
    expect(section).not.toMatch(/A-LAST|B NEVER FITS/);
    expect(section).toMatch(
      /\[The project instructions are cut here at 32 KiB: [\d,]+ bytes of a\/AGENTS.md, all of a\/b\/AGENTS.md left out.\]$/,
    );
    expect(run.stderr).toMatch(
      /warning: project instructions are cut at 32 KiB: [\d,]+ bytes of a\/AGENTS.md, all of a\/b\/AGENTS.md left out/,
    );
    expect(initLine(run.stdout).instructions_files).toEqual([join(root, 'AGENTS.md'), join(root, 'a/AGENTS.md')]);
  });

  it('reads only the first 32 KiB of a 10 MB AGENTS.md, cut on a character boundary', async () => {
    const root = repo({ 'AGENTS.md': `START\n${'é'.repeat(5_000_000)}` });
    const { run, system } = await promptOf(root);
    expect(run.code).toBe(0);
    expect(system).toContain('START');
    expect(system).not.toContain('\uFFFD');
    expect(Buffer.byteLength(system)).toBeLessThan(34 * 1024);
    expect(run.stderr).toMatch(
      /warning: project instructions are cut at 32 KiB: 9,9\d\d,\d\d\d bytes of AGENTS.md left out/,
    );
  });
});

describe('system prompt options', () => {
  it('orders the prompt: built-in, project instructions, appended text', async () => {
    const root = repo({ 'AGENTS.md': 'REPO RULES\n', 'role.md': 'APPENDED FROM FILE\n' });
    const { system } = await promptOf(root, ['--append-system-prompt-file', join(root, 'role.md')]);
    expect(system.indexOf('You are agent')).toBe(0);
    expect(system.indexOf('You are agent')).toBeLessThan(system.indexOf('REPO RULES'));
    expect(system.indexOf('REPO RULES')).toBeLessThan(system.indexOf('APPENDED FROM FILE'));
    const inline = await promptOf(root, ['--append-system-prompt', 'APPENDED INLINE']);
    expect(inline.system.indexOf('REPO RULES')).toBeLessThan(inline.system.indexOf('APPENDED INLINE'));
  });

  it('--system-prompt-file replaces the built-in prompt only: the instructions and the appended text still follow', async () => {
    const root = repo({ 'AGENTS.md': 'REPO RULES\n', 'reviewer.md': 'YOU ARE A REVIEW BOT\n' });
    const { system } = await promptOf(root, ['--system-prompt-file', 'reviewer.md', '--append-system-prompt', 'LAST']);
    expect(system.startsWith('YOU ARE A REVIEW BOT')).toBe(true);
    expect(system).not.toContain('You are agent');
    expect(system.indexOf('REPO RULES')).toBeLessThan(system.indexOf('LAST'));
    const inline = await promptOf(root, ['--system-prompt', 'ONLY THIS ROLE']);
    expect(inline.system).toMatch(/^ONLY THIS ROLE\n\n# Project instructions[^]*REPO RULES/);
  });

  it('reads the file options from a pipe (process substitution)', async () => {
    const root = repo();
    const s = await serve([answer('ok')]);
    // bash runs the agent: $0 is the argument after -c's script.
    const script = `exec "$0" --system-prompt-file <(printf 'ROLE FROM A PIPE') go`;
    const run = await runAgent(['--norc', '-c', script, AGENT_BIN], s.url, { cwd: root, bin: '/bin/bash' });
    expect(run.code).toBe(0);
    expect(systemText(s.validRequests()[0])).toBe('ROLE FROM A PIPE');
  });

  it.each([
    ['--system-prompt-file', 'missing.md', /--system-prompt-file: cannot read .*missing\.md: no such file\./],
    [
      '--append-system-prompt-file',
      'missing.md',
      /--append-system-prompt-file: cannot read .*missing\.md: no such file\./,
    ],
    ['--system-prompt-file', '.', /--system-prompt-file: cannot read .*: it is a directory\./],
  ])('%s %s is exit 2 before any request', async (flag, path, message) => {
    const root = repo();
    const s = await serve([answer('never')]);
    const run = await runAgent([flag, path, '--output-format', 'json', 'go'], s.url, { cwd: root });
    expect(run.code).toBe(2);
    expect(run.stderr).toMatch(message);
    expect(JSON.parse(run.stdout)).toMatchObject({ is_error: true, subtype: 'error_usage' });
    expect(s.requests).toHaveLength(0);
  });

  it('refuses a flag and its file together', async () => {
    const root = repo({ 'role.md': 'x' });
    const { run, requests } = await promptOf(root, ['--system-prompt', 'a', '--system-prompt-file', 'role.md']);
    expect(run.code).toBe(2);
    expect(run.stderr).toContain('--system-prompt and --system-prompt-file cannot be used together.');
    expect(requests).toBe(0);
  });
});

describe('project instructions: bad input is a warning, never a failure', () => {
  it('skips an AGENTS.md that is a directory, not UTF-8, or holds NUL bytes, and says why', async () => {
    const root = repo({ 'AGENTS.md/inside': 'x', 'a/b/CLAUDE.md': 'bin\0ary' });
    writeFileSync(join(root, 'a/AGENTS.md'), Buffer.from([0x6f, 0x6b, 0x20, 0xff, 0xfe, 0x0a]));
    const { run, system } = await promptOf(join(root, 'a/b'));
    expect(run.code).toBe(0);
    expect(system).not.toContain('# Project instructions');
    expect(run.stderr).toContain(
      `warning: project instructions: ${join(root, 'AGENTS.md')} is not read: it is a directory.`,
    );
    expect(run.stderr).toContain(
      `warning: project instructions: ${join(root, 'a/AGENTS.md')} is not read: it is not UTF-8 text.`,
    );
    expect(run.stderr).toContain(`${join(root, 'a/b/CLAUDE.md')} is not read: it is not text (it holds NUL bytes).`);
  });

  it('adds nothing for an empty AGENTS.md, and does not fall back to CLAUDE.md beside it', async () => {
    const root = repo({ 'AGENTS.md': '  \n\n', 'CLAUDE.md': 'NOT READ\n' });
    const s = await serve([answer('ok')]);
    const run = await runAgent(['--output-format', 'stream-json', 'go'], s.url, { cwd: root });
    expect(systemText(s.validRequests()[0])).not.toMatch(/Project instructions|NOT READ/);
    expect(initLine(run.stdout).instructions_files).toEqual([]);
    expect(run.stderr).not.toContain('warning');
  });

  it('does not hang on a FIFO named AGENTS.md', async () => {
    const root = repo();
    execFileSync('mkfifo', [join(root, 'AGENTS.md')]);
    const { run } = await promptOf(root);
    expect(run.code).toBe(0);
    expect(run.stderr).toContain('is not read: it is not a regular file.');
  });

  it.skipIf(process.getuid?.() === 0)('skips an unreadable AGENTS.md', async () => {
    const root = repo({ 'AGENTS.md': 'SECRET\n' });
    execFileSync('chmod', ['000', join(root, 'AGENTS.md')]);
    const { run, system } = await promptOf(root);
    expect(run.code).toBe(0);
    expect(system).not.toContain('SECRET');
    expect(run.stderr).toContain('is not read: it is not readable (permission denied).');
  });

  it('follows a link that stays inside the repository (CLAUDE.md pointing at a shared file)', async () => {
    const root = repo({ 'docs/agents.md': 'SHARED RULES\n', 'sub/keep': '' });
    symlinkSync('../docs/agents.md', join(root, 'sub/CLAUDE.md'));
    const { system } = await promptOf(join(root, 'sub'));
    expect(system).toContain('## sub/CLAUDE.md\n\nSHARED RULES');
  });

  it('refuses links that lead outside the repository: to a secret file, to /proc, through a linked directory', async () => {
    const outside = tempDir('agent-outside-');
    write(outside, { 'secret.txt': 'TOP SECRET TOKEN\n', 'dir/AGENTS.md': 'OUTSIDE DIR SECRET\n' });
    const root = repo({ 'a/b/keep': '' });
    symlinkSync(join(outside, 'secret.txt'), join(root, 'AGENTS.md'));
    symlinkSync('/proc/self/environ', join(root, 'a/AGENTS.md'));
    symlinkSync(join(outside, 'dir'), join(root, 'linked'));
    symlinkSync('../../linked/AGENTS.md', join(root, 'a/b/AGENTS.md'));
    const s = await serve([answer('ok')]);
    const run = await runAgent(['--output-format', 'stream-json', 'go'], s.url, {
      cwd: join(root, 'a/b'),
      env: { PLANTED: 'ENVIRON SECRET' },
    });
    expect(run.code).toBe(0);
    const sent = JSON.stringify(s.requests.map((request) => request.body));
    expect(sent).not.toMatch(/TOP SECRET|ENVIRON SECRET|OUTSIDE DIR SECRET|test-key/);
    expect(initLine(run.stdout).instructions_files).toEqual([]);
    expect(run.stderr).toContain(
      `${join(root, 'AGENTS.md')} is not read: it leads outside the repository (to ${join(outside, 'secret.txt')}).`,
    );
    expect(run.stderr).toMatch(/a\/AGENTS.md is not read: it leads outside the repository \(to \/proc\//);
    expect(run.stderr).toContain(
      `a/b/AGENTS.md is not read: it leads outside the repository (to ${join(outside, 'dir/AGENTS.md')}).`,
    );
  });
});
