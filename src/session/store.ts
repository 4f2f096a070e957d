import {
  closeSync,
  constants,
  fstatSync,
  futimesSync,
  lstatSync,
  openSync,
  readdirSync,
  readSync,
  statSync,
} from 'node:fs';
import { homedir } from 'node:os';
import { isAbsolute, join } from 'node:path';
import type { HeaderRecord } from './records.js';

/** Sessions not written to for this long are removed. */
const SESSION_MAX_AGE_DAYS = 30;
const DAY_MS = 24 * 60 * 60 * 1000;
/** Pruning looks at the directory at most this often; in between, start-up pays one stat. */
const PRUNE_EVERY_MS = DAY_MS;
const PRUNE_MARKER = '.last-prune';
const SESSION_ID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;
/** A header holds the system prompt and the tool list; past this, the first line is not a header worth reading. */
const MAX_HEADER_BYTES = 4 * 1024 * 1024;

/** `$XDG_STATE_HOME/agent/sessions`, or `~/.local/state/agent/sessions` (a relative XDG_STATE_HOME is ignored, as the spec says). */
export function sessionsDir(env: NodeJS.ProcessEnv): string {
  const state = env.XDG_STATE_HOME;
  return join(state && isAbsolute(state) ? state : join(homedir(), '.local', 'state'), 'agent', 'sessions');
}

export function isSessionId(text: string): boolean {
  return SESSION_ID.test(text);
}

export function sessionFile(dir: string, id: string): string {
  return join(dir, `${id}.jsonl`);
}

/**
 * Removes sessions (and their lock files) last written more than 30 days ago. Cheap by design: it looks at the
 * directory only when its marker file is more than a day old (in between, start-up pays one stat), and then it reads
 * names and times, never contents, one file at a time in the background while the run goes on; the run waits for it
 * before it exits (only a hard exit cuts it short). `isLive(id)` spares a session that a running agent holds.
 */
export function pruneSessions(dir: string, isLive: (id: string) => boolean, now = Date.now()): Promise<number> {
  const marker = join(dir, PRUNE_MARKER);
  try {
    if (now - lstatSync(marker).mtimeMs < PRUNE_EVERY_MS) return Promise.resolve(0);
  } catch {
    // No marker yet: prune now.
  }
  touchMarker(marker, now);
  return removeOld(dir, isLive, now);
}

/** Sets the marker's time, making it if needed; never through a link, never anything but an empty file of ours. */
function touchMarker(marker: string, now: number): void {
  const fd = openSync(
    marker,
    constants.O_WRONLY | constants.O_CREAT | constants.O_NOFOLLOW | constants.O_NONBLOCK,
    0o600,
  );
  try {
    const stat = fstatSync(fd);
    if (!stat.isFile() || stat.size !== 0 || stat.uid !== (process.getuid?.() ?? stat.uid)) {
      throw new Error(`${marker} is not a marker file of this user's`);
    }
    futimesSync(fd, new Date(now), new Date(now));
  } finally {
    closeSync(fd);
  }
}

async function removeOld(dir: string, isLive: (id: string) => boolean, now: number): Promise<number> {
  // Loaded here, on the rare day a prune is due: node:fs/promises brings modules no other run needs at start-up.
  const { readdir, stat, unlink } = await import('node:fs/promises');
  let removed = 0;
  for (const name of await readdir(dir)) {
    const id = /^(.+)\.(jsonl|lock)$/.exec(name)?.[1];
    if (id === undefined) continue;
    const path = join(dir, name);
    try {
      if (now - (await stat(path)).mtimeMs <= SESSION_MAX_AGE_DAYS * DAY_MS || isLive(id)) continue;
      await unlink(path);
      if (name.endsWith('.jsonl')) removed++;
    } catch {
      // Removed by another run meanwhile: nothing to do.
    }
  }
  return removed;
}

/** The session files of the directory, most recently written first. */
function sessionsByRecency(dir: string): string[] {
  let names: string[];
  try {
    names = readdirSync(dir).filter((name) => name.endsWith('.jsonl'));
  } catch {
    return [];
  }
  const dated = names.flatMap((name) => {
    const path = join(dir, name);
    try {
      return [{ path, mtimeMs: statSync(path).mtimeMs }];
    } catch {
      return [];
    }
  });
  return dated.sort((a, b) => b.mtimeMs - a.mtimeMs).map((entry) => entry.path);
}

/** The most recently written session started in `cwd`, read header by header, newest first. */
export function latestSessionIn(dir: string, cwd: string): string | undefined {
  return sessionsByRecency(dir).find((path) => readHeader(path)?.cwd === cwd);
}

/** The header record of a session file, or undefined when the file does not start with one. */
function readHeader(path: string): HeaderRecord | undefined {
  let fd: number;
  try {
    fd = openSync(path, 'r');
  } catch {
    return undefined;
  }
  try {
    const chunks: Buffer[] = [];
    let size = 0;
    const chunk = Buffer.alloc(64 * 1024);
    while (size < MAX_HEADER_BYTES) {
      const read = readSync(fd, chunk, 0, chunk.length, size);
      if (read === 0) break;
      const newline = chunk.subarray(0, read).indexOf(10);
      chunks.push(Buffer.from(chunk.subarray(0, newline === -1 ? read : newline)));
      size += read;
      if (newline !== -1) break;
    }
    const record: unknown = JSON.parse(Buffer.concat(chunks).toString('utf8'));
    return isHeader(record) ? record : undefined;
  } catch {
    return undefined;
  } finally {
    closeSync(fd);
  }
}

export function isHeader(record: unknown): record is HeaderRecord {
  const r = record as Partial<HeaderRecord> | null;
  return (
    typeof r === 'object' &&
    r !== null &&
    r.type === 'session' &&
    typeof r.session_id === 'string' &&
    typeof r.cwd === 'string'
  );
}
