import type { Command, CommanderError } from 'commander';
import type { RawOptions } from './config.js';
import { DEFAULTS, OUTPUT_FORMATS } from './defaults.js';
import { helpEpilogue } from './help-text.js';
import { cleanString } from '../shell/clean-output.js';

/**
 * The command line: usage, the flags in groups, then examples, environment and exit codes. A flag is one line in its
 * group; defaults come from defaults.ts, which the configuration reads too.
 */
function buildProgram(commander: Commander, version: string): Command {
  const program = new commander.Command('agent')
    .description('A one-shot coding agent: gives a model a bash tool and runs it until the task is done.')
    .usage('[options] [--] <prompt...>')
    .argument('[prompt...]', 'the task; without words, the prompt is read from stdin');

  program
    .optionsGroup('Model and limits:')
    .option('-m, --model <id>', `model id (default: MODEL_ID, then ANTHROPIC_MODEL, then ${DEFAULTS.model})`)
    .option('--max-turns <n>', withDefault('at most n model calls; reaching it is exit 1', DEFAULTS.maxTurns))
    .option(
      '--max-tokens <n>',
      withDefault(
        "max_tokens of each model call without thinking; with thinking, the model's output limit",
        DEFAULTS.maxTokens,
      ),
    )
    .option(
      '--context-window <tokens>',
      withDefault("the model's context window, for budgeting", DEFAULTS.contextWindow),
    )
    .option('--fallback-model <id>', 'switch to this model when the main one is overloaded or not found')
    .option('--effort <level>', 'low, medium, high or max: how hard a model that thinks adaptively thinks')
    .option('--max-thinking-tokens <n>', 'a thinking budget, for models that take one (default: MAX_THINKING_TOKENS)')
    .option('--no-thinking', 'send no thinking settings')
    .option('--system-prompt <text>', 'replace the built-in system prompt')
    .option('--system-prompt-file <path>', "replace the built-in system prompt with a file's text")
    .option('--append-system-prompt <text>', 'append to the system prompt, after the project instructions')
    .option('--append-system-prompt-file <path>', "append a file's text to the system prompt")
    .option('--no-project-instructions', 'read no AGENTS.md or CLAUDE.md into the system prompt')
    .option('--no-cache', 'send no prompt-caching breakpoints');

  program
    .optionsGroup('Input and output:')
    .option('-f, --prompt-file <path>', 'read the prompt from a file (- for stdin)')
    .option('--no-stdin', 'never read stdin as context')
    .option('--output-format <format>', withDefault(OUTPUT_FORMATS.join(', '), DEFAULTS.outputFormat))
    .option('--json-schema <schema>', 'the final answer must be JSON valid against this schema: inline JSON, or a file')
    .option('--transcript <file>', 'write the whole run as JSONL, in the session file format')
    .option('-q, --quiet', 'only warnings and errors on stderr')
    .option('-v, --verbose', 'full command output on stderr');

  program
    .optionsGroup('Commands and safety:')
    .option('-C, --cwd <dir>', 'working directory of the run (default: the current directory)')
    .option('-t, --timeout <seconds>', withDefault('per-command time limit', DEFAULTS.timeoutSec))
    .option(
      '--max-timeout <seconds>',
      withDefault('the longest time limit the model may ask for', DEFAULTS.maxTimeoutSec),
    )
    .option('--allow <rule>', 'allow-list rule (repeatable): only commands matching a rule run', collect)
    .option('--deny <rule>', 'extra deny rule (repeatable)', collect)
    .option('--dangerously-skip-guard', 'turn off the built-in deny rules (--allow and --deny still apply)')
    .option('--sandbox', 'run every command under bubblewrap: read-only system, no network')
    .option(
      '--sandbox-expose <path>',
      'under --sandbox, show a path of the hidden home read-only (repeatable)',
      collect,
    )
    .option('--sandbox-tmp-size <size>', 'under --sandbox, the size of the private /tmp (default 1G)')
    .option(
      '--pass-env <glob>',
      'let secret-looking variables that match through to the commands (repeatable)',
      collect,
    );

  addSessionAndConfigurationOptions(program);

  program
    .optionsGroup('Other:')
    .version(version, '-V, --version', 'print the version')
    .helpOption('-h, --help', 'show this help');

  return program
    .addHelpText('after', () => helpEpilogue())
    .showHelpAfterError('(run agent --help for usage)')
    .exitOverride()
    .configureOutput({ outputError: (text, write) => write(`agent: ${cleanString(text.replace(/^error: /, ''))}`) });
}

function addSessionAndConfigurationOptions(program: Command): void {
  program
    .optionsGroup('Sessions and budgets:')
    .option('-r, --resume <session>', 'continue a saved session: its id, or a session or transcript file')
    .option('-c, --continue', 'continue the most recent session of this working directory')
    .option(
      '--fork-session',
      'with --resume or --continue: continue under a new session id, leaving the original as it was',
    )
    .option('--no-session-persistence', 'save nothing under the state directory')
    .option('--max-budget-usd <n>', 'no model call starts once the run has cost n dollars; reaching it is exit 1')
    .option('--max-duration <seconds>', 'wall-clock limit of the whole run; reaching it is exit 1');

  program
    .optionsGroup('Configuration:')
    .option('--env-file <path>', 'dotenv file to load (default: .env in the working directory)')
    .option('--no-env-file', 'load no dotenv file');
}

type Commander = typeof import('commander');

/**
 * The prompt words and raw options, or commander's error when it already answered (help, version, bad flag).
 * Commander loads only here: a command line without flags never needs it (plain-arguments.ts).
 */
export async function parseArguments(
  argv: string[],
  version: string,
): Promise<{ words: string[]; raw: RawOptions } | CommanderError> {
  const commander = await import('commander');
  const program = buildProgram(commander, version);
  try {
    program.parse(argv, { from: 'user' });
  } catch (error) {
    if (error instanceof commander.CommanderError) return error;
    throw error;
  }
  return { words: program.args, raw: program.opts<RawOptions>() };
}

function withDefault(description: string, value: string | number): string {
  return `${description} (default: ${value})`;
}

function collect(value: string, previous: string[] | undefined): string[] {
  return [...(previous ?? []), value];
}
