import { arch, platform, release } from 'node:os';

export interface SystemPromptOptions {
  cwd: string;
  replace: string | undefined;
  append: string | undefined;
  sandboxed: boolean;
}

/** The built-in system prompt names the working directory and platform, and says the run is non-interactive. */
export function buildSystemPrompt({ cwd, replace, append, sandboxed }: SystemPromptOptions): string {
  const base =
    replace ??
    [
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
  return append ? `${base}\n\n${append}` : base;
}
