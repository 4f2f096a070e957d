import { readFileSync } from 'node:fs';
import { resolve } from 'node:path';
import { loadProjectInstructions, type ProjectInstructions } from '../instructions/load.js';
import { UsageError } from '../outcome.js';
import { fileProblem } from '../file-problem.js';

/** The flags that shape the system prompt, as commander hands them over. */
export interface RawPromptOptions {
  systemPrompt?: string;
  systemPromptFile?: string;
  appendSystemPrompt?: string;
  appendSystemPromptFile?: string;
  /** False with --no-project-instructions. */
  projectInstructions?: boolean;
}

interface PromptOptions {
  systemPrompt: string | undefined;
  appendSystemPrompt: string | undefined;
  instructions: ProjectInstructions;
}

const INSTRUCTIONS_OFF: ProjectInstructions = {
  files: [],
  text: '',
  warnings: [],
  summary: 'project instructions: off (--no-project-instructions)',
};

/** The replacement and appended text, each from its flag or its file, and the repository's instructions files. */
export function resolvePromptOptions(raw: RawPromptOptions, cwd: string, home: string | undefined): PromptOptions {
  return {
    systemPrompt: textOrFile(raw.systemPrompt, raw.systemPromptFile, '--system-prompt'),
    appendSystemPrompt: textOrFile(raw.appendSystemPrompt, raw.appendSystemPromptFile, '--append-system-prompt'),
    instructions: raw.projectInstructions === false ? INSTRUCTIONS_OFF : loadProjectInstructions(cwd, home),
  };
}

function textOrFile(text: string | undefined, file: string | undefined, flag: string): string | undefined {
  if (file === undefined) return text;
  if (text !== undefined) throw new UsageError(`${flag} and ${flag}-file cannot be used together.`);
  const path = resolve(file);
  try {
    return readFileSync(path, 'utf8');
  } catch (error) {
    throw new UsageError(`${flag}-file: cannot read ${path}: ${fileProblem(error)}.`);
  }
}
