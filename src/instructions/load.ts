import { lstatSync, realpathSync } from 'node:fs';
import { join, relative } from 'node:path';
import { readInstructionsFile } from './read-one.js';
import { directoriesDown, findWorkTreeRoot } from './root.js';

/** At most this many bytes of instructions text in all. */
const INSTRUCTIONS_CAP_BYTES = 32 * 1024;
const FILE_NAMES = ['AGENTS.md', 'CLAUDE.md'] as const;

export interface ProjectInstructions {
  /** Absolute paths of the files whose text went into the system prompt, root first. */
  files: string[];
  /** The section of the system prompt, or '' when there is none. */
  text: string;
  warnings: string[];
  /** For -v: which files were read, or that none was. */
  summary: string;
}

interface Piece {
  label: string;
  text: string;
}

/**
 * Reads AGENTS.md (or CLAUDE.md where there is no AGENTS.md) in each directory from the top of the git work tree
 * down to `cwd`, root first; outside a work tree, only `cwd`'s own. A file that cannot be used is a warning, never a
 * failure. Past INSTRUCTIONS_CAP_BYTES the text is cut, with a note in the text and a warning.
 */
export function loadProjectInstructions(cwd: string, home: string | undefined): ProjectInstructions {
  const realCwd = realPath(cwd) ?? cwd;
  const root = findWorkTreeRoot(realCwd, home ? realPath(home) : undefined) ?? realCwd;
  const pieces: Piece[] = [];
  const files: string[] = [];
  const warnings: string[] = [];
  const leftOut: string[] = [];
  let budget = INSTRUCTIONS_CAP_BYTES;
  for (const dir of directoriesDown(root, realCwd)) {
    const path = instructionsFileIn(dir);
    if (path === undefined) continue;
    const label = relative(root, path);
    if (budget === 0) {
      leftOut.push(`all of ${label}`);
      continue;
    }
    const outcome = readInstructionsFile(path, root, budget);
    if (outcome.kind === 'refused') warnings.push(`project instructions: ${path} is not read: ${outcome.reason}.`);
    if (outcome.kind !== 'read') continue;
    files.push(path);
    pieces.push({ label, text: outcome.text });
    budget -= Buffer.byteLength(outcome.text);
    if (outcome.cut) {
      leftOut.push(`${outcome.leftOutBytes.toLocaleString('en-US')} bytes of ${label}`);
      budget = 0;
    }
  }
  if (leftOut.length > 0) warnings.push(`project instructions are cut at 32 KiB: ${leftOut.join(', ')} left out.`);
  return { files, text: instructionsSection(pieces, leftOut), warnings, summary: summarise(files) };
}

function realPath(path: string): string | undefined {
  try {
    return realpathSync.native(path);
  } catch {
    return undefined;
  }
}

/** AGENTS.md when the directory has an entry of that name (of any kind), else CLAUDE.md, else none. */
function instructionsFileIn(dir: string): string | undefined {
  for (const name of FILE_NAMES) {
    const path = join(dir, name);
    try {
      if (lstatSync(path, { throwIfNoEntry: false })) return path;
    } catch {
      return undefined;
    }
  }
  return undefined;
}

function instructionsSection(pieces: Piece[], leftOut: string[]): string {
  if (pieces.length === 0) return '';
  const parts = [
    '# Project instructions',
    "The repository's instructions files, from its root down to the working directory. " +
      'Follow them unless the task says otherwise.',
    ...pieces.map((piece) => `## ${piece.label}\n\n${piece.text.trimEnd()}`),
  ];
  if (leftOut.length > 0) {
    parts.push(`[The project instructions are cut here at 32 KiB: ${leftOut.join(', ')} left out.]`);
  }
  return parts.join('\n\n');
}

function summarise(files: string[]): string {
  return files.length === 0 ? 'project instructions: none found' : `project instructions read: ${files.join(', ')}`;
}
