import type Anthropic from '@anthropic-ai/sdk';

/** What the loop and the tools report as a run goes. Renderers subscribe; the loop knows nothing of terminals or JSON. */
export type RunEvent =
  | { type: 'request_start'; turn: number }
  | { type: 'text_delta'; text: string; block: number }
  /** The model's thinking as it streams: for `-v` on stderr only, never the answer. */
  | { type: 'thinking_delta'; text: string; block: number }
  | { type: 'response'; turn: number; message: Anthropic.Message }
  | { type: 'tool_start'; id: string; command: string }
  /** A command's output as it arrives, already cleaned of control characters and masked where it is captured. */
  | { type: 'tool_output'; id: string; text: string }
  | {
      type: 'tool_end';
      id: string;
      command: string;
      content: string;
      isError: boolean;
      blocked: boolean;
      /** How long the command ran, and its exit code (null when it was killed or never ran); absent when blocked. */
      durationMs?: number;
      exitCode?: number | null;
    }
  | { type: 'tool_results'; message: Anthropic.MessageParam }
  | { type: 'retry'; attempt: number; maxAttempts: number; delayMs: number; reason: string }
  | { type: 'warning'; message: string }
  /** A detail for `-v`: shown on stderr only when verbose. */
  | { type: 'notice'; message: string }
  /** The final answer, accepted against --json-schema. */
  | { type: 'structured_answer'; value: unknown };

export type EventSink = (event: RunEvent) => void;

export function fanOut(...sinks: EventSink[]): EventSink {
  return (event) => {
    for (const sink of sinks) sink(event);
  };
}
