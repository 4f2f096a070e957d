import type { ChildProcess } from 'node:child_process';
import { readdirSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach } from 'vitest';
import { waitUntil } from './processes.js';
import { runAgent, tempDir, type AgentOptions, type AgentRun } from './run-agent.js';
import type { RecordedRequest, TestServer } from './server.js';

export const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/;

/** Temp directories for one test, removed after it: `const scratch = useScratch();` then `scratch()`. */
export function useScratch(): (prefix?: string) => string {
  const made: string[] = [];
  afterEach(() => {
    for (const dir of made.splice(0)) rmSync(dir, { recursive: true, force: true });
  });
  return (prefix) => {
    const dir = tempDir(prefix);
    made.push(dir);
    return dir;
  };
}

/** A working directory and a state directory (XDG_STATE_HOME) of a test's own. */
export interface Place {
  cwd: string;
  state: string;
}

export function newPlace(scratch: (prefix?: string) => string): Place {
  return { cwd: scratch('agent-work-'), state: scratch('agent-state-') };
}

/** Runs the binary in `where`, with --output-format json. */
export function agentIn(s: TestServer, where: Place, args: string[], options: AgentOptions = {}): Promise<AgentRun> {
  return runAgent(['--output-format', 'json', ...args], s.url, {
    cwd: where.cwd,
    ...options,
    env: { XDG_STATE_HOME: where.state, ...options.env },
  });
}

/** The result object: the last line of stdout. */
export function resultOf(run: { stdout: string }): any {
  return JSON.parse(run.stdout.trim().split('\n').at(-1)!);
}

/** Sends `signal` to the agent once `ready()` holds. */
export function killWhen(ready: () => boolean, signal: NodeJS.Signals): AgentOptions['onSpawn'] {
  return (child: ChildProcess) => {
    void (async () => {
      if (await waitUntil(ready, 10_000)) child.kill(signal);
    })();
  };
}

/** The id of the one session saved under `state`. */
export function onlySessionId(state: string): string {
  const files = sessionDirEntries(state).filter((name) => name.endsWith('.jsonl'));
  if (files.length !== 1) throw new Error(`expected one session file, found ${files.length}`);
  return files[0]!.replace(/\.jsonl$/, '');
}

/** Where a run with XDG_STATE_HOME=stateHome saves its sessions. */
export function sessionsDirOf(stateHome: string): string {
  return join(stateHome, 'agent', 'sessions');
}

export function sessionPathOf(stateHome: string, id: string): string {
  return join(sessionsDirOf(stateHome), `${id}.jsonl`);
}

/** The names in the sessions directory (session files, locks, the prune marker); empty when it does not exist. */
export function sessionDirEntries(stateHome: string): string[] {
  try {
    return readdirSync(sessionsDirOf(stateHome)).sort();
  } catch {
    return [];
  }
}

type WireMessage = { role: string; content: unknown };

/** The messages of a request as the API reads them: consecutive messages of one role merged into one. */
export function mergedMessages(
  request: RecordedRequest,
): Array<{ role: string; blocks: Array<Record<string, unknown>> }> {
  const merged: Array<{ role: string; blocks: Array<Record<string, unknown>> }> = [];
  for (const message of request.body.messages as WireMessage[]) {
    const blocks =
      typeof message.content === 'string'
        ? [{ type: 'text', text: message.content }]
        : (message.content as Array<Record<string, unknown>>);
    const last = merged.at(-1);
    if (last && last.role === message.role) last.blocks.push(...blocks);
    else merged.push({ role: message.role, blocks: [...blocks] });
  }
  return merged;
}

/** The text blocks of a merged message, joined with |. */
export function textOf(blocks: Array<Record<string, unknown>>): string {
  return blocks
    .filter((block) => block.type === 'text')
    .map((block) => block.text)
    .join('|');
}

/** A compact picture of a request's conversation: per merged message, its role and the kinds of its blocks. */
export function shapeOf(request: RecordedRequest): string[] {
  return mergedMessages(request).map(
    (message) => `${message.role}: ${message.blocks.map((block) => block.type).join(' ')}`,
  );
}
