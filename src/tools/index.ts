import type Anthropic from '@anthropic-ai/sdk';
import { NO_OUTPUT } from '../shell/no-output.js';

export interface ToolOutcome {
  content: string;
  isError: boolean;
}

export interface Tool {
  spec: Anthropic.Tool;
  run(input: Record<string, unknown>, toolUseId: string, signal: AbortSignal): Promise<ToolOutcome>;
}

interface Toolbox {
  specs: Anthropic.Tool[];
  run(block: Anthropic.ToolUseBlock, signal: AbortSignal): Promise<Anthropic.ToolResultBlockParam>;
}

/**
 * The tool registry: schemas for the request, and dispatch that turns every failure into an is_error result. Every
 * result is passed through `redact` on its way to the model, whatever part of it (output, notes, markers) it is.
 */
export function createToolbox(tools: Tool[], redact: (text: string) => string = (text) => text): Toolbox {
  const byName = new Map(tools.map((tool) => [tool.spec.name, tool]));
  const names = tools.map((tool) => tool.spec.name).join(', ');
  return {
    specs: tools.map((tool) => tool.spec),
    async run(block, signal) {
      const tool = byName.get(block.name);
      const outcome: ToolOutcome = signal.aborted
        ? { content: 'Not run: the run was stopped before this call.', isError: true }
        : !tool
          ? { content: `Unknown tool '${block.name}'. The tools available are: ${names}.`, isError: true }
          : !isRecord(block.input)
            ? { content: `The input of '${block.name}' must be a JSON object.`, isError: true }
            : await tool.run(block.input, block.id, signal);
      const content = redact(outcome.content);
      return {
        type: 'tool_result',
        tool_use_id: block.id,
        // The API rejects empty and blank text, so a tool that printed nothing (or only blank lines) says so.
        content: content.trim() === '' ? NO_OUTPUT : content,
        ...(outcome.isError ? { is_error: true } : {}),
      };
    },
  };
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}
