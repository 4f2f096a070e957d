// The process groups a shell tracks: kept while any process is left in them, forgotten once empty (a number freed
// may go to a stranger's group), and killed whole.
import { spawn } from 'node:child_process';
import { once } from 'node:events';
import { afterEach, describe, expect, it } from 'vitest';
import { groupHasRunningMembers, ProcessGroups, signalGroup } from '../src/shell/process-groups.js';
import { isRunning, waitUntil } from './support/processes.js';

const started: number[] = [];
afterEach(() => {
  for (const pid of started.splice(0)) signalGroup(pid, 'SIGKILL');
});

function leader(script: string) {
  const child = spawn('bash', ['--norc', '--noprofile', '-c', script], { detached: true, stdio: 'ignore' });
  started.push(child.pid!);
  return child;
}

describe('process groups', () => {
  it('keeps a group whose leader is gone while a member lives, forgets an empty one, and kills what is left', async () => {
    const emptied = leader('exit 0');
    const outlived = leader('sleep 30 & echo $! > /dev/null; exit 0');
    await Promise.all([once(emptied, 'exit'), once(outlived, 'exit')]);
    const groups = new ProcessGroups();
    groups.track(emptied.pid!);
    groups.track(outlived.pid!);
    expect(signalGroup(emptied.pid!, 0)).toBe('gone');
    expect(signalGroup(outlived.pid!, 0)).toBe('sent');
    groups.prune();
    expect(groups.size).toBe(1);
    groups.killAll();
    expect(groups.size).toBe(0);
    expect(await waitUntil(() => !groupHasRunningMembers(outlived.pid!), 5_000)).toBe(true);
  });

  it('signals a live group by name, and says when there is no group of that number', async () => {
    const child = leader('sleep 30');
    expect(isRunning(child.pid!)).toBe(true);
    expect(signalGroup(child.pid!, 'SIGTERM')).toBe('sent');
    const [, signal] = await once(child, 'exit');
    expect(signal).toBe('SIGTERM');
    expect(signalGroup(child.pid!, 'SIGTERM')).toBe('gone');
  });
});
