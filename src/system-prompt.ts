import { arch, platform, release } from 'node:os';

interface SystemPromptOptions {
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

// Each line answers a way headless runs go wrong; the README's "The built-in system prompt" says why each is here.
function builtInPrompt(cwd: string, sandboxed: boolean): string {
  return [
    'You are agent, a coding agent run once from the command line to carry out one task.',
    `Working directory: ${cwd}`,
    `Platform: ${platform()} ${release()} (${arch()}); shell: bash.`,
    sandboxed
      ? 'Commands run in a sandbox: the filesystem is read-only except the working directory and a private /tmp, ' +
        'and there is no network.'
      : "Commands run directly on the user's machine, as the user.",
    '',
    'You have one tool, bash: use it to inspect files, run programs and make changes.',
    'The run is non-interactive: nobody can answer a question, so never ask one; ' +
      'decide, go on, and say in the answer what you assumed.',
    'Commands get no stdin: no editors, pagers or prompts; pass -y, --no-edit and the like.',
    'Long output is cut to its head and tail around a marker naming the file with the full output: ' +
      "read parts of it (grep -n, sed -n '40,90p', tail).",
    'Check the work before you answer: run the tests or the program, re-read what you changed.',
    'Finish with a reply that calls no tool. A script or a person reads it: ' +
      'the result first, then what you changed and assumed.',
  ].join('\n');
}
