import { spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, rmSync } from 'node:fs';
import { createServer, type Server } from 'node:net';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { answer, bash, runAgent, tempDir, toolResults } from './support/run-agent.js';
import type { TestServer } from './support/server.js';
import { useServer } from './support/use-server.js';
import { fakePath } from './support/stand-ins.js';

const serve = useServer();
const lastResult = (s: TestServer, request: number) => toolResults(s.validRequests()[request]!)[0]!;

const fakeSudoPath = () => fakePath('sudo');

describe('the guard, through the binary', () => {
  it('never runs a blocked command: the result is is_error and says what and why', async () => {
    const dir = tempDir();
    const s = await serve([bash('touch marker && s""udo id'), answer('ok')]);
    const run = await runAgent(['go'], s.url, { cwd: dir, env: { PATH: fakeSudoPath() } });
    expect(run.code).toBe(0);
    expect(existsSync(join(dir, 'marker'))).toBe(false);
    const result = lastResult(s, 1);
    expect(result.is_error).toBe(true);
    expect(result.content).toMatch(/blocked.*privilege/i);
    expect(result.content).toContain('sudo id');
    expect(run.stderr).toMatch(/\$ touch marker && s""udo id\n\s+✗ .*blocked/);
  });

  it('judges a relative path from the directory an earlier command moved to', async () => {
    const s = await serve([bash('cd /'), bash('rm -rf *'), answer('ok')]);
    await runAgent(['go'], s.url, { env: { PATH: fakePath('rm') } });
    const result = lastResult(s, 2);
    expect(result.is_error).toBe(true);
    expect(result.content).toMatch(/recursive-delete/);
    expect(result.content).not.toContain('fake rm ran');
  });

  it('lets ordinary work through: /dev/null redirections, mentions, deleting project and /tmp paths', async () => {
    const dir = tempDir();
    mkdirSync(join(dir, 'build'));
    const scratch = tempDir();
    const s = await serve([
      bash(`ls > /dev/null 2>&1; grep -r sudo . ; echo "rm -rf / is bad"; rm -rf ./build ${scratch}; echo survived`),
      answer('ok'),
    ]);
    await runAgent(['go'], s.url, { cwd: dir });
    const result = lastResult(s, 1);
    expect(result.is_error).toBeUndefined();
    expect(result.content).toMatch(/rm -rf \/ is bad\nsurvived/);
    expect(existsSync(join(dir, 'build'))).toBe(false);
    expect(existsSync(scratch)).toBe(false);
  });

  it('blocks what the parser rejects, with its message', async () => {
    const s = await serve([bash('echo "unclosed'), answer('ok')]);
    await runAgent(['go'], s.url);
    expect(lastResult(s, 1)).toMatchObject({ is_error: true, content: expect.stringMatching(/could not be parsed/) });
  });

  it('applies --deny rules on top of the built-in ones', async () => {
    const dir = tempDir();
    const s = await serve([bash('touch marker'), answer('ok')]);
    await runAgent(['--deny', 'touch *', 'go'], s.url, { cwd: dir });
    expect(existsSync(join(dir, 'marker'))).toBe(false);
    expect(lastResult(s, 1)).toMatchObject({ is_error: true, content: expect.stringContaining('touch *') });
  });

  it('with --allow, blocks a chain that leaves the allow-list and runs one that stays in it', async () => {
    const dir = tempDir();
    const s = await serve([bash('git --version && touch marker'), bash('git --version'), answer('ok')]);
    await runAgent(['--allow', 'git *', 'go'], s.url, { cwd: dir });
    expect(existsSync(join(dir, 'marker'))).toBe(false);
    expect(lastResult(s, 1)).toMatchObject({ is_error: true, content: expect.stringContaining('touch marker') });
    expect(lastResult(s, 2).content).toMatch(/^git version/);
  });

  it('--dangerously-skip-guard drops the built-in rules but keeps --deny', async () => {
    const s = await serve([bash('sudo id'), bash('touch x'), answer('ok')]);
    await runAgent(['--dangerously-skip-guard', '--deny', 'touch *', 'go'], s.url, { env: { PATH: fakeSudoPath() } });
    expect(lastResult(s, 1).content).toBe('fake sudo ran: id');
    expect(lastResult(s, 2).is_error).toBe(true);
  });

  it('rejects an invalid rule as a usage error', async () => {
    const s = await serve([answer('never')]);
    const run = await runAgent(['--allow', '[a-', 'go'], s.url);
    expect(run.code).toBe(2);
    expect(run.stderr).toMatch(/--allow: invalid rule/);
    expect(s.requests).toHaveLength(0);
  });
});

const hasBwrap = spawnSync('sh', ['-c', 'command -v bwrap']).status === 0;

describe.skipIf(!hasBwrap)('--sandbox, through the binary', () => {
  let listener: Server | undefined;
  // A file of its own, removed whatever the outcome: one left by a failed run would fail every later one.
  const canary = `/etc/agent-sandbox-canary-${process.pid}`;
  afterEach(() => {
    listener?.close();
    rmSync(canary, { force: true });
  });

  it('keeps the system read-only, the working directory writable, and the network out', async () => {
    listener = createServer((socket) => socket.end('hello from the host\n'));
    await new Promise<void>((resolve) => listener!.listen(0, '127.0.0.1', resolve));
    const port = (listener.address() as { port: number }).port;
    const dir = tempDir();
    const s = await serve([
      bash(`touch ${canary}`),
      bash('echo inside > made-in-sandbox && cat made-in-sandbox'),
      bash(`exec 3<>/dev/tcp/127.0.0.1/${port} && cat <&3`),
      bash('echo private > /tmp/agent-private && cat /tmp/agent-private'),
      answer('ok'),
    ]);
    const run = await runAgent(['--sandbox', 'go'], s.url, { cwd: dir });
    expect(run.code).toBe(0);
    expect(lastResult(s, 1).content).toMatch(/Read-only file system|Permission denied/);
    expect(existsSync(canary)).toBe(false);
    expect(lastResult(s, 2).content).toBe('inside');
    expect(existsSync(join(dir, 'made-in-sandbox'))).toBe(true);
    expect(lastResult(s, 3).content).not.toContain('hello from the host');
    expect(lastResult(s, 3).content).toMatch(/exit code: 1/);
    expect(lastResult(s, 4).content).toBe('private');
    expect(existsSync('/tmp/agent-private')).toBe(false);
    expect(JSON.stringify(s.validRequests()[0]!.body.system)).toMatch(/sandbox/);
  });

  it('exits 2 before any request when bubblewrap is missing, naming the package', async () => {
    const bin = tempDir('agent-no-bwrap-');
    for (const tool of ['node', 'env', 'bash', 'sh']) {
      const found = spawnSync('sh', ['-c', `command -v ${tool}`], { encoding: 'utf8' }).stdout.trim();
      spawnSync('ln', ['-s', found, join(bin, tool)]);
    }
    const s = await serve([answer('never')]);
    const run = await runAgent(['--sandbox', 'go'], s.url, { env: { PATH: bin } });
    expect(run.code).toBe(2);
    expect(run.stderr).toMatch(/bubblewrap/);
    expect(s.requests).toHaveLength(0);
  });
});
