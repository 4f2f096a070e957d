// The process groups a shell started. Every command runs as the leader of its own group
// (pgid = pid), so signalling `-pgid` reaches the command and every descendant that did not
// leave the group on purpose (setsid). All calls are synchronous so they can run from
// `process.on('exit')` and signal handlers.
import { readFileSync, readdirSync } from 'node:fs';

type SignalOutcome = 'sent' | 'gone' | 'denied';

export function signalGroup(pgid: number, signal: NodeJS.Signals | 0): SignalOutcome {
  // Every command's group is looked at once it ends, and is usually gone: that answer comes as an exception, whose
  // stack trace would cost more than the look itself, and is never read.
  const stackTraceLimit = Error.stackTraceLimit;
  Error.stackTraceLimit = 0;
  try {
    process.kill(-pgid, signal);
    return 'sent';
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    if (code === 'ESRCH') return 'gone';
    if (code === 'EPERM') return 'denied';
    throw error;
  } finally {
    Error.stackTraceLimit = stackTraceLimit;
  }
}

/** True while any process (including a zombie not yet reaped) is in the group. */
function groupIsAlive(pgid: number): boolean {
  return signalGroup(pgid, 0) !== 'gone';
}

/**
 * True while the group has a member that is not a zombie. A killed process whose parent already
 * exited stays a zombie until init reaps it, and some inits (containers, microVMs) take a second
 * or more; waiting on those would delay every timeout and abort. Without /proc (not Linux) this
 * falls back to `groupIsAlive`.
 */
export function groupHasRunningMembers(pgid: number): boolean {
  if (!groupIsAlive(pgid)) return false;
  let entries: string[];
  try {
    entries = readdirSync('/proc');
  } catch {
    return true;
  }
  for (const entry of entries) {
    if (entry.charCodeAt(0) < 48 || entry.charCodeAt(0) > 57) continue;
    let stat: string;
    try {
      stat = readFileSync(`/proc/${entry}/stat`, 'utf8');
    } catch {
      continue; // exited while we looked
    }
    // "pid (comm) state ppid pgrp ..." — comm may contain spaces and parentheses.
    const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    if (Number(fields[2]) === pgid && fields[0] !== 'Z') return true;
  }
  return false;
}

export class ProcessGroups {
  private readonly groups = new Set<number>();

  track(pgid: number): void {
    this.groups.add(pgid);
  }

  /** How many groups are tracked: those killAll would signal. */
  get size(): number {
    return this.groups.size;
  }

  /**
   * Forget groups that have no process left. A pid number is never reused while its group still
   * has members, but once the group is empty the number may be handed to a stranger's group, so
   * empty groups must not be signalled later. Called before and after each command.
   */
  prune(): void {
    for (const pgid of this.groups) {
      if (!groupIsAlive(pgid)) this.groups.delete(pgid);
    }
  }

  /** SIGKILL every tracked group that still has members. Idempotent; never throws. */
  killAll(): void {
    for (const pgid of this.groups) {
      try {
        signalGroup(pgid, 'SIGKILL');
      } catch {
        // Nothing sensible to do from an exit handler.
      }
      this.groups.delete(pgid);
    }
  }
}
