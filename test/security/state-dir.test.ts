// A state directory the agent cannot trust is not used, through the real binary: one that is a symbolic link, one
// that belongs to someone else, one that others can write to. The run still works, without saving anything. And no
// file in a state directory is followed as a link: a `.last-prune` that points at a host file leaves it as it was.
import {
  chmodSync,
  chownSync,
  existsSync,
  mkdirSync,
  readdirSync,
  readFileSync,
  statSync,
  symlinkSync,
  utimesSync,
  writeFileSync,
} from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { answer, bash } from '../support/run-agent.js';
import {
  agentIn,
  newPlace,
  resultOf,
  sessionDirEntries,
  useScratch,
  UUID,
  type Place,
} from '../support/session-files.js';
import { useServer } from '../support/use-server.js';

const serve = useServer();
const scratch = useScratch();
const isRoot = process.getuid?.() === 0;
const NOBODY = 65534;

/** A run that must work as usual: exit 0, its answer, a session id. */
async function runWorks(where: Place): Promise<string> {
  const s = await serve([bash('echo ran'), answer('done anyway')]);
  const run = await agentIn(s, where, ['go']);
  expect(run.code).toBe(0);
  expect(resultOf(run)).toMatchObject({
    subtype: 'success',
    result: 'done anyway',
    session_id: expect.stringMatching(UUID),
  });
  return run.stderr;
}

function expectOneRefusal(stderr: string, agentDir: string, reason: RegExp): void {
  const warnings = stderr.split('\n').filter((line) => line.includes('state directory'));
  expect(warnings).toHaveLength(1);
  expect(warnings[0]).toContain(`warning: the state directory ${agentDir} is not used`);
  expect(warnings[0]).toMatch(reason);
  expect(warnings[0]).toContain('the run goes on without saving the session');
}

describe("a state directory that is not the user's own", () => {
  it('a symbolic link: refused, nothing written where it points', async () => {
    const where = newPlace(scratch);
    const elsewhere = scratch('agent-elsewhere-');
    symlinkSync(elsewhere, join(where.state, 'agent'));
    expectOneRefusal(await runWorks(where), join(where.state, 'agent'), /symbolic link/);
    expect(readdirSync(elsewhere)).toEqual([]);
  });

  it.skipIf(!isRoot)('owned by another user: refused, nothing written in it', async () => {
    const where = newPlace(scratch);
    const agentDir = join(where.state, 'agent');
    mkdirSync(agentDir, { mode: 0o700 });
    chownSync(agentDir, NOBODY, NOBODY);
    expectOneRefusal(await runWorks(where), agentDir, new RegExp(`uid ${NOBODY}`));
    expect(readdirSync(agentDir)).toEqual([]);
  });

  it.skipIf(!isRoot)('a sessions directory owned by another user: refused too', async () => {
    const where = newPlace(scratch);
    const sessions = join(where.state, 'agent', 'sessions');
    mkdirSync(sessions, { recursive: true, mode: 0o700 });
    chownSync(sessions, NOBODY, NOBODY);
    expectOneRefusal(await runWorks(where), sessions, new RegExp(`uid ${NOBODY}`));
    expect(readdirSync(sessions)).toEqual([]);
  });

  it('group-writable: refused', async () => {
    const where = newPlace(scratch);
    const agentDir = join(where.state, 'agent');
    mkdirSync(agentDir);
    chmodSync(agentDir, 0o770);
    expectOneRefusal(await runWorks(where), agentDir, /others can write/);
    expect(readdirSync(agentDir)).toEqual([]);
  });

  it('a world-writable sessions directory: refused, nothing written in it', async () => {
    const where = newPlace(scratch);
    const sessions = join(where.state, 'agent', 'sessions');
    mkdirSync(sessions, { recursive: true });
    chmodSync(sessions, 0o777);
    expectOneRefusal(await runWorks(where), sessions, /others can write/);
    expect(readdirSync(sessions)).toEqual([]);
  });

  it("the user's own directory, made by the agent: used, 0700, no warning", async () => {
    const where = newPlace(scratch);
    const stderr = await runWorks(where);
    expect(stderr).not.toContain('state directory');
    expect(sessionDirEntries(where.state).filter((name) => name.endsWith('.jsonl'))).toHaveLength(1);
    for (const dir of ['agent', 'agent/sessions']) expect(statSync(join(where.state, dir)).mode & 0o777).toBe(0o700);
  });
});

describe('sessions in a state directory that is not used', () => {
  it('are not looked up by --continue or a --resume id: exit 2, saying why, no request', async () => {
    const planted = newPlace(scratch);
    const s = await serve([answer('planted conversation'), answer('never'), answer('never')]);
    const id = resultOf(await agentIn(s, planted, ['start'])).session_id;
    const where = { cwd: planted.cwd, state: scratch('agent-state-') };
    symlinkSync(join(planted.state, 'agent'), join(where.state, 'agent'));
    for (const args of [['--continue'], ['--resume', id]]) {
      const run = await agentIn(s, where, [...args, 'go on']);
      expect(run.code).toBe(2);
      expect(run.stderr).toContain(
        `Cannot look for the session: the state directory ${join(where.state, 'agent')} is not used: it is a symbolic link.`,
      );
      expect(s.requests).toHaveLength(1);
    }
  });
});

describe('files in the state directory are not followed as links', () => {
  it('a `.last-prune` that links to a host file: the file keeps its content and its time', async () => {
    const where = newPlace(scratch);
    const host = join(scratch('agent-host-'), 'precious.conf');
    writeFileSync(host, 'precious\n');
    const old = new Date(Date.now() - 40 * 24 * 60 * 60 * 1000);
    utimesSync(host, old, old);
    const sessions = join(where.state, 'agent', 'sessions');
    mkdirSync(sessions, { recursive: true, mode: 0o700 });
    chmodSync(join(where.state, 'agent'), 0o700);
    symlinkSync(host, join(sessions, '.last-prune'));
    await runWorks(where);
    expect(readFileSync(host, 'utf8')).toBe('precious\n');
    expect(Math.round(statSync(host).mtimeMs)).toBe(old.getTime());
    expect(existsSync(join(sessions, '.last-prune'))).toBe(true);
  });
});
