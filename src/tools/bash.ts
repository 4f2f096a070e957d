import type { EventSink } from '../events.js';
import type { Shell } from '../shell/exec.js';
import type { Tool, ToolOutcome } from './index.js';

export type GuardCheck = (command: string) => Promise<{ allowed: true } | { allowed: false; reason: string }>;

interface BashToolDeps {
  /** The run's shell, which may still be opening when the first command comes. */
  openShell: () => Promise<Shell>;
  guard: GuardCheck;
  maxTimeoutSec: number;
  defaultTimeoutSec: number;
  emit: EventSink;
}

/** The one tool: validate the input, ask the guard, run the command, and report what happened. */
export function createBashTool({ openShell, guard, maxTimeoutSec, defaultTimeoutSec, emit }: BashToolDeps): Tool {
  return {
    spec: bashToolSpec(defaultTimeoutSec, maxTimeoutSec),

    async run(input, toolUseId, signal): Promise<ToolOutcome> {
      const problem = inputProblem(input, maxTimeoutSec);
      if (problem) return { content: problem, isError: true };
      const { command, timeout } = input as { command: string; timeout?: number };
      emit({ type: 'tool_start', id: toolUseId, command });

      const verdict = await guard(command);
      if (!verdict.allowed) {
        emit({
          type: 'tool_end',
          id: toolUseId,
          command,
          content: verdict.reason,
          isError: true,
          blocked: true,
          exitCode: null,
          durationMs: 0,
        });
        return { content: verdict.reason, isError: true };
      }
      const shell = await openShell();
      const result = await shell.run(command, {
        ...(timeout === undefined ? {} : { timeoutSec: timeout }),
        signal,
        onOutput: (text) => emit({ type: 'tool_output', id: toolUseId, text }),
      });
      emit({
        type: 'tool_end',
        id: toolUseId,
        command,
        content: result.text,
        isError: result.isError,
        blocked: false,
        durationMs: result.durationMs,
        exitCode: result.exitCode,
      });
      return { content: result.text, isError: result.isError };
    },
  };
}

function bashToolSpec(defaultTimeoutSec: number, maxTimeoutSec: number): Tool['spec'] {
  return {
    name: 'bash',
    description:
      'Run a bash command non-interactively and return its combined stdout and stderr, then its exit code when not 0. ' +
      'stdin is empty: nothing can be typed in, so use non-interactive flags. The working directory carries over between ' +
      'calls (as after `cd`); environment changes do not. Long output is cut to its head and tail, and the full output is ' +
      `saved to a file named in the result. Commands time out after ${defaultTimeoutSec} s unless you ask for more with ` +
      `"timeout" (at most ${maxTimeoutSec} s).`,
    input_schema: {
      type: 'object',
      properties: {
        command: { type: 'string', description: 'The bash command or script to run.' },
        timeout: {
          type: 'number',
          description: `Seconds before the command is killed (default ${defaultTimeoutSec}, at most ${maxTimeoutSec}).`,
        },
      },
      required: ['command'],
    },
  };
}

/** What is wrong with the model's input, said so that it can call again correctly; undefined when nothing is. */
function inputProblem(input: Record<string, unknown>, maxTimeoutSec: number): string | undefined {
  const { command, timeout } = input;
  if (typeof command !== 'string' || command.trim() === '') {
    return 'The bash tool needs a non-empty string \'command\', e.g. {"command": "ls -la"}.';
  }
  if (timeout !== undefined && (typeof timeout !== 'number' || !Number.isFinite(timeout) || timeout <= 0)) {
    return `'timeout' must be a positive number of seconds (at most ${maxTimeoutSec}).`;
  }
  return undefined;
}
