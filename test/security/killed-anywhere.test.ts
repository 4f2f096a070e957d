// A run killed outright (SIGKILL) at any point of its bookkeeping leaves nothing that the next run does not remove,
// through the real binary. A kill cannot be caught, so what protects a run's private directory is the order of things:
// the record that names the directory is in the state directory before the directory exists, and goes only after the
// directory has gone. A hook (support/kill-at.cjs) kills the agent exactly at each gap, every time, which a kill
// timed from outside hits only now and then: the suite once found such a leftover after a run killed mid-start.
import { readdirSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { answer, bash, runAgent, tempDir } from '../support/run-agent.js';
import { startServer, type TestServer, type Turn } from '../support/server.js';
import { bwrapPath } from './attack-support.js';

const KILL_AT = resolve(import.meta.dirname, '../support/kill-at.cjs');

const servers: TestServer[] = [];
afterEach(async () => {
  for (const server of servers.splice(0)) await server.close();
});

async function serve(script: Turn[]): Promise<TestServer> {
  const server = await startServer(script);
  servers.push(server);
  return server;
}

interface Place {
  /** The runs' TMPDIR: where their private directories are made, and nothing else is. */
  tmp: string;
  stateHome: string;
  cwd: string;
}

function newPlace(): Place {
  return {
    tmp: tempDir('agent-killed-tmp-'),
    stateHome: tempDir('agent-killed-state-'),
    cwd: tempDir('agent-killed-'),
  };
}

const records = (place: Place): string[] => readdirSync(join(place.stateHome, 'agent', 'running'));

function agentIn(place: Place, url: string, flags: string[], killAt?: string) {
  return runAgent([...flags, 'go'], url, {
    cwd: place.cwd,
    env: { TMPDIR: place.tmp, XDG_STATE_HOME: place.stateHome, ...(killAt ? { AGENT_TEST_KILL_AT: killAt } : {}) },
    ...(killAt ? { nodeArgs: ['--require', KILL_AT] } : {}),
  });
}

/** Where the hook kills the run, and what is left of it at that moment. */
const KILL_POINTS: Array<[string, string]> = [
  // The directory, named by the record.
  ['right after its private directory is made', 'run-dir-made'],
  // The record only: the directory is made after it.
  ['right after its record is written', 'record-written'],
  // At the end: the directory still there, and so is its record.
  ['right before its private directory is removed', 'run-dir-removing'],
  // The directory has gone already; the record alone is left.
  ['right before its record is removed', 'record-removing'],
];
/** The sandbox's probe makes a scratch directory of its own, which must be one that the record covers. */
const SANDBOX_KILL_POINTS: Array<[string, string]> = [['while the sandbox is probed', 'probe-dir-made']];

const modes: Array<[string, string[], Array<[string, string]>]> = [['without the sandbox', [], KILL_POINTS]];
if (bwrapPath !== undefined) modes.push(['under --sandbox', ['--sandbox'], [...KILL_POINTS, ...SANDBOX_KILL_POINTS]]);

describe.each(modes)('a run killed outright, %s', (_, flags, points) => {
  it.each(points)('%s: leaves nothing the next run does not remove', async (_, killAt) => {
    const place = newPlace();
    const killed = await agentIn(place, (await serve([bash('echo hi'), answer('done')])).url, flags, killAt);
    expect(killed.signal, killed.stderr).toBe('SIGKILL');
    // The kill came where it was meant to: something of the run is still there for the next one to find.
    expect([...readdirSync(place.tmp), ...records(place)].length).toBeGreaterThan(0);
    const next = await agentIn(place, (await serve([answer('hello')])).url, flags);
    expect(next.code, next.stderr).toBe(0);
    // The next run removed what the killed one left, and its own went at its end.
    expect(readdirSync(place.tmp)).toEqual([]);
    expect(records(place)).toEqual([]);
  });
});
