// Every bad input around sessions through the real binary: a clear message, the right exit code, nothing lost.
import { spawnSync } from 'node:child_process';
import { chmodSync, existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { AGENT_BIN, answer, answerWithLastResult, bash, readRecords } from './support/run-agent.js';
import {
  agentIn,
  mergedMessages,
  newPlace,
  resultOf,
  sessionDirEntries,
  sessionPathOf,
  sessionsDirOf,
  useScratch,
  UUID,
} from './support/session-files.js';
import type { TestServer } from './support/server.js';
import { useServer } from './support/use-server.js';

const serve = useServer();
const scratch = useScratch();

const place = () => newPlace(scratch);
const agent = agentIn;

/** Exit 2, one result object with error_usage, the message on stderr, and no request sent (beyond `sentBefore`). */
function expectUsageError(
  run: { code: number | null; stdout: string; stderr: string },
  s: TestServer,
  message: RegExp | string,
  sentBefore = 0,
) {
  expect(run.code).toBe(2);
  expect(resultOf(run)).toMatchObject({ subtype: 'error_usage', is_error: true, exit_code: 2 });
  expect(run.stderr).toMatch(message);
  expect(run.stderr).not.toMatch(/\n\s+at /);
  expect(s.requests).toHaveLength(sentBefore);
}

/** Whether this machine lets a user namespace mount a read-only file system (not where user namespaces are locked). */
const canMountReadOnly = (() => {
  const dir = mkdtempSync(join(tmpdir(), 'agent-ro-probe-'));
  try {
    return spawnSync('unshare', ['-rm', 'mount', '-t', 'tmpfs', '-o', 'ro', 'none', dir]).status === 0;
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
})();

/** An `agent` that runs the real binary with `dir` mounted as an empty read-only file system, in its own namespace. */
function readOnlyMountWrapper(dir: string): string {
  const wrapper = join(scratch('agent-ro-bin-'), 'agent');
  const mount = `mount -t tmpfs -o ro,mode=0755 none ${dir} && exec ${AGENT_BIN} "$@"`;
  writeFileSync(wrapper, `#!/bin/sh\nexec unshare -rm sh -c '${mount}' agent "$@"\n`, { mode: 0o755 });
  return wrapper;
}

describe('what --resume and --continue cannot continue', () => {
  it('a session id that does not exist: exit 2, naming the directory looked in', async () => {
    const where = place();
    const s = await serve([answer('never')]);
    const id = '0b5d7c1e-8a43-4f7e-9d1c-2f6a8e4b3c21';
    const run = await agent(s, where, ['--resume', id, 'go on']);
    expectUsageError(run, s, `No session ${id} in ${sessionsDirOf(where.state)}.`);
  });

  it('neither an id nor a file: exit 2, saying what --resume takes', async () => {
    const where = place();
    const s = await serve([answer('never')]);
    expectUsageError(
      await agent(s, where, ['--resume', 'yesterday', 'go on']),
      s,
      /--resume takes a session id .* 'yesterday' is neither/,
    );
    expectUsageError(
      await agent(s, where, ['--resume', './missing.jsonl', 'go on']),
      s,
      `No session file ${join(where.cwd, 'missing.jsonl')}.`,
    );
    expectUsageError(
      await agent(s, where, ['--resume', ' ', 'go on']),
      s,
      '--resume needs a session id or a session file.',
    );
  });

  it('a file that is not a transcript, or a corrupt one: exit 2 naming it, and the file left as it was', async () => {
    const where = place();
    const s = await serve([answer('never')]);
    const notes = join(where.cwd, 'notes.txt');
    writeFileSync(notes, 'just some notes\n');
    expectUsageError(await agent(s, where, ['--resume', notes, 'go on']), s, `${notes} is not a session file`);
    expect(readFileSync(notes, 'utf8')).toBe('just some notes\n');

    const corrupt = join(where.cwd, 'corrupt.jsonl');
    const header = JSON.stringify({
      type: 'session',
      format: 'agent-session',
      version: 1,
      session_id: '0b5d7c1e-8a43-4f7e-9d1c-2f6a8e4b3c21',
      cwd: where.cwd,
    });
    writeFileSync(
      corrupt,
      `${header}\n{"type":"message","message":{"role":"user","content":"hi"}}\n{oops\n{"type":"request","turn":1}\n`,
    );
    expectUsageError(
      await agent(s, where, ['--resume', corrupt, 'go on']),
      s,
      `${corrupt} line 3 is not a JSON record`,
    );
  });

  it('--continue in a directory with no sessions: exit 2, naming the directory', async () => {
    const where = place();
    const s = await serve([answer('never')]);
    const run = await agent(s, where, ['--continue', 'go on']);
    expectUsageError(
      run,
      s,
      `No session to continue: none of the sessions in ${sessionsDirOf(where.state)} was started in ${where.cwd}.`,
    );
  });

  it('--resume with --continue, and --fork-session alone: exit 2', async () => {
    const where = place();
    const s = await serve([answer('never')]);
    expectUsageError(
      await agent(s, where, ['--resume', 'x', '--continue', 'go']),
      s,
      '--resume and --continue cannot be used together',
    );
    expectUsageError(
      await agent(s, where, ['--fork-session', 'go']),
      s,
      '--fork-session goes with --resume or --continue',
    );
  });
});

describe('what is said, and the run goes on', () => {
  it('a truncated last line: left out, said so, and the rest continues, again and again', async () => {
    const where = place();
    const s = await serve([answer('first'), answer('second'), answer('third'), answer('fourth')]);
    const id = resultOf(await agent(s, where, ['one'])).session_id;
    const path = sessionPathOf(where.state, id);
    writeFileSync(
      path,
      `${readFileSync(path, 'utf8')}{"type":"message","ts":"2026-01-01T00:00:00Z","message":{"role":"user","con`,
    );
    const run = await agent(s, where, ['-r', id, 'two']);
    expect(run.code).toBe(0);
    expect(run.stderr).toContain(
      `warning: the last line of ${path} is incomplete (the run writing it was killed, or is writing it still) and is left out.`,
    );
    const texts = mergedMessages(s.validRequests()[1]!).map((message) =>
      message.blocks.map((block) => block.text).join('|'),
    );
    expect(texts).toEqual(['one', 'first', 'two']);
    // The cut-off line is gone from the file, so the next continuations load it whole.
    const third = await agent(s, where, ['-r', id, 'three']);
    expect([third.code, third.stderr]).toEqual([0, expect.not.stringContaining('incomplete')]);
    const fourth = await agent(s, where, ['-c', 'four']);
    expect(fourth.code).toBe(0);
    const last = mergedMessages(s.validRequests()[3]!).map((message) =>
      message.blocks.map((block) => block.text).join('|'),
    );
    expect(last).toEqual(['one', 'first', 'two', 'second', 'three', 'third', 'four']);
  });

  it('a session from another working directory: said so, and the run works in the current one', async () => {
    const first = place();
    const second = { cwd: scratch('agent-work-'), state: first.state };
    const s = await serve([answer('started'), bash('pwd'), answerWithLastResult()]);
    const id = resultOf(await agent(s, first, ['start'])).session_id;
    const run = await agent(s, second, ['-r', id, 'where are you?']);
    expect(run.code).toBe(0);
    expect(run.stderr).toContain(`warning: session ${id} ran in ${first.cwd}; this run works in ${second.cwd}.`);
    expect(resultOf(run).result).toBe(second.cwd);
  });

  it('a state directory that cannot be written to: a warning, and the run goes on without saving', async () => {
    const where = place();
    const blocker = join(where.state, 'not-a-directory');
    writeFileSync(blocker, '');
    const s = await serve([bash('echo ran'), answer('done anyway')]);
    const run = await agent(s, where, ['go'], { env: { XDG_STATE_HOME: blocker } });
    expect(run.code).toBe(0);
    expect(resultOf(run)).toMatchObject({
      subtype: 'success',
      result: 'done anyway',
      session_id: expect.stringMatching(UUID),
    });
    expect(run.stderr).toMatch(
      new RegExp(
        `warning: cannot save the session in ${blocker}/agent/sessions \\(ENOTDIR\\); the run goes on without saving it.`,
      ),
    );
    expect(readFileSync(blocker, 'utf8')).toBe('');
  });

  it.skipIf(!canMountReadOnly)('a state directory on a read-only file system: the warning names EROFS', async () => {
    const where = place();
    const readOnly = scratch('agent-ro-');
    const s = await serve([bash('echo ran'), answer('done anyway')]);
    const run = await agent(s, where, ['go'], {
      bin: readOnlyMountWrapper(readOnly),
      env: { XDG_STATE_HOME: readOnly },
    });
    expect(run.code).toBe(0);
    expect(resultOf(run)).toMatchObject({ subtype: 'success', result: 'done anyway' });
    expect(run.stderr).toContain(
      `warning: cannot save the session in ${readOnly}/agent/sessions (EROFS); the run goes on without saving it.`,
    );
  });

  it.skipIf(process.getuid?.() === 0)(
    'a state directory the user may not write to: the warning names EACCES',
    async () => {
      const where = place();
      chmodSync(where.state, 0o500);
      const s = await serve([bash('echo ran'), answer('done anyway')]);
      const run = await agent(s, where, ['go']);
      chmodSync(where.state, 0o700);
      expect(run.code).toBe(0);
      expect(run.stderr).toContain(
        `warning: cannot save the session in ${where.state}/agent/sessions (EACCES); the run goes on without saving it.`,
      );
    },
  );
});

describe('--transcript', () => {
  it.skipIf(!existsSync('/dev/full'))(
    'that cannot be written (a full disk): a warning, and the run goes on',
    async () => {
      const where = place();
      const s = await serve([bash('echo ran'), answer('done')]);
      const run = await agent(s, where, ['--transcript', '/dev/full', 'go']);
      expect(run.code).toBe(0);
      expect(resultOf(run)).toMatchObject({ subtype: 'success', result: 'done' });
      expect(run.stderr).toContain('warning: cannot write /dev/full (ENOSPC); the run goes on without it.');
      expect(run.stderr.match(/cannot write/g)).toHaveLength(1);
      // The session itself was saved as usual.
      expect(readRecords(sessionPathOf(where.state, resultOf(run).session_id)).at(-1)).toMatchObject({
        type: 'result',
        subtype: 'success',
      });
    },
  );

  it("onto an existing file that is not this session's: exit 2, and the file left as it was", async () => {
    const where = place();
    const s = await serve([answer('one'), answer('never')]);
    const other = join(where.cwd, 'other.jsonl');
    await agent(s, where, ['--transcript', other, 'first']);
    const before = readFileSync(other, 'utf8');
    expectUsageError(
      await agent(s, where, ['--transcript', other, 'second']),
      s,
      `Transcript ${other} already exists and is not this session's`,
      1,
    );
    expect(readFileSync(other, 'utf8')).toBe(before);
    const plain = join(where.cwd, 'plain.log');
    writeFileSync(plain, 'keep me\n');
    expectUsageError(
      await agent(s, where, ['--transcript', plain, 'third']),
      s,
      `Transcript ${plain} already exists`,
      1,
    );
    expect(readFileSync(plain, 'utf8')).toBe('keep me\n');
  });

  it('onto an empty file is fine, and a resume of that transcript appends to it', async () => {
    const where = place();
    const s = await serve([answer('one'), answer('two')]);
    const transcript = join(where.cwd, 'run.jsonl');
    writeFileSync(transcript, '');
    const id = resultOf(await agent(s, where, ['--transcript', transcript, 'first'])).session_id;
    const run = await agent(s, where, ['--resume', transcript, '--transcript', transcript, 'second']);
    expect(run.code).toBe(0);
    expect(resultOf(run).session_id).toBe(id);
    const types = readRecords(transcript).map((record) => record.type);
    expect(types.filter((type) => type === 'session' || type === 'resume')).toEqual(['session', 'resume']);
    expect(types.filter((type) => type === 'result')).toHaveLength(2);
    // The state directory's copy followed along, so both hold the same conversation.
    const messages = (path: string) =>
      readRecords(path)
        .filter((record) => record.type === 'message')
        .map((record) => record.message);
    expect(messages(sessionPathOf(where.state, id))).toEqual(messages(transcript));
  });

  it('a transcript carried to a machine without the session (a CI artifact) continues, and the session is saved there', async () => {
    const where = place();
    const s = await serve([answer('one'), answer('two')]);
    const transcript = join(where.cwd, 'artifact.jsonl');
    const id = resultOf(
      await agent(s, where, ['--no-session-persistence', '--transcript', transcript, 'first']),
    ).session_id;
    expect(sessionDirEntries(where.state)).toEqual([]);
    const run = await agent(s, where, ['--resume', transcript, 'second']);
    expect(run.code).toBe(0);
    expect(resultOf(run).session_id).toBe(id);
    expect(existsSync(sessionPathOf(where.state, id))).toBe(true);
    const saved = readRecords(sessionPathOf(where.state, id));
    expect(saved[0]).toMatchObject({ type: 'session', session_id: id });
    expect(saved.filter((record) => record.type === 'message').map((record) => record.message.role)).toEqual([
      'user',
      'assistant',
      'user',
      'assistant',
    ]);
    expect(readRecords(transcript).filter((record) => record.type === 'resume')).toHaveLength(1);
  });
});
