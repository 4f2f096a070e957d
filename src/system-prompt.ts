import { arch, platform, release } from 'node:os';

export interface SystemPromptOptions {
  cwd: string;
  /** --system-prompt or --system-prompt-file: replaces the built-in prompt only. */
  replace: string | undefined;
  /** The repository's AGENTS.md / CLAUDE.md section, or ''. */
  projectInstructions: string;
  /** --append-system-prompt or --append-system-prompt-file: last of all. */
  append: string | undefined;
  sandboxed: boolean;
}

/**
 * The system prompt, in this order: the built-in prompt (or its replacement), the project instructions, the appended
 * text. It is built once per run and never changes within it, so its cached prefix keeps being read back.
 */
export function buildSystemPrompt(options: SystemPromptOptions): string {
  const { cwd, replace, projectInstructions, append, sandboxed } = options;
  const base = replace ?? builtInPrompt(cwd, sandboxed);
  return [base, projectInstructions, append ?? ''].filter((part) => part.trim() !== '').join('\n\n');
}

function builtInPrompt(cwd: string, sandboxed: boolean): string {
  return [
    'You are agent, a coding agent run once from the command line to carry out one task.',
    `Working directory: ${cwd}`,
    `Platform: ${platform()} ${release()} (${arch()}); shell: bash.`,
    sandboxed
      ? 'Commands run in a sandbox: the filesystem is read-only except the working directory and a private /tmp, and there is no network.'
      : 'Commands run directly on the user\'s machine, as the user.',
    '',
    'You have one tool, bash. Use it to inspect files, run programs and make changes.',
    'The run is non-interactive: nobody reads your messages until the end and nobody can answer a question, so make reasonable ' +
      'assumptions and keep going. Commands get no stdin; never start editors, pagers or prompts, and pass flags such as -y or --no-edit.',
    'Prefer small, checkable steps. Verify your changes (run the tests or the program) before you finish.',
    'When you are done, reply with the final answer only, with no tool call: it is printed on stdout for the user or a script.',
  ].join('\n');
}
