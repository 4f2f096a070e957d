import { plural } from '../../plural.js';
import type { ResultObject } from '../../result.js';
import type { Style } from './style.js';

const PREVIEW_LINES = 4;
const PREVIEW_WIDTH = 160;
const ECHO_WIDTH = 200;
const RULE_WIDTH = 60;

/** A command as one line: its first line, cut to `width`, and how many lines were left out. */
export function oneLine(command: string, width = ECHO_WIDTH): string {
  const lines = command.split('\n');
  const first = clip(lines[0] ?? '', width);
  return lines.length > 1 ? `${first} … (+${plural(lines.length - 1, 'line')})` : first;
}

export function clip(line: string, width = PREVIEW_WIDTH): string {
  return line.length > width ? `${line.slice(0, width - 1)}…` : line;
}

/**
 * The first lines of a command's result, each behind a bar; when more follow, how many, and for an error its last
 * line. The executor's closing `exit code: N` line is left out when the exit code is shown beside the command.
 */
export function preview(content: string, style: Style, isError: boolean, exitCode?: number | null): string {
  let lines = content.replace(/\n+$/, '').split('\n');
  if (lines.length > 1 && exitCode && lines.at(-1) === `exit code: ${exitCode}`) lines = lines.slice(0, -1);
  const shown = lines.slice(0, PREVIEW_LINES).map((line) => `  ${style.dim('│')} ${clip(line)}`);
  if (lines.length > PREVIEW_LINES) {
    shown.push(`  ${style.dim(`│ … ${plural(lines.length - PREVIEW_LINES, 'more line')} in the result`)}`);
    if (isError) shown.push(`  ${style.dim('│')} ${style.red(clip(lines.at(-1) ?? ''))}`);
  }
  return `${shown.join('\n')}\n`;
}

/** How a command ended, for beside it: `1.2 s`, `0.3 s · exit code 2`; empty when nothing is known. */
export function commandStatus(
  durationMs: number | undefined,
  exitCode: number | null | undefined,
  style: Style,
): string {
  const parts: string[] = [];
  if (durationMs !== undefined) parts.push(style.dim(formatDuration(durationMs)));
  if (exitCode) parts.push(style.red(`exit code ${exitCode}`));
  return parts.join(style.dim(' · '));
}

/** `0.4 s`, `12 s`, `2 min 5 s`, `1 h 3 min`. */
function formatDuration(ms: number): string {
  if (ms < 9_950) return `${(ms / 1000).toFixed(1)} s`;
  return formatElapsed(Math.round(ms / 1000));
}

/** Whole seconds: `12 s`, `2 min 5 s`, `1 h 3 min`. */
export function formatElapsed(seconds: number): string {
  if (seconds < 60) return `${seconds} s`;
  if (seconds < 3600) return `${Math.floor(seconds / 60)} min ${seconds % 60} s`;
  return `${Math.floor(seconds / 3600)} h ${Math.floor((seconds % 3600) / 60)} min`;
}

/** The last line on a terminal: `2 turns · 1 command · 3.2 s · $0.0123`. */
export function summaryLine(result: ResultObject): string {
  const parts = [
    plural(result.num_turns, 'turn'),
    plural(result.commands, 'command'),
    formatDuration(result.duration_ms),
  ];
  if (result.total_cost_usd !== undefined) parts.push(formatCost(result.total_cost_usd));
  return parts.join(' · ');
}

function formatCost(usd: number): string {
  return `$${usd >= 1 ? usd.toFixed(2) : usd.toFixed(4)}`;
}

/** The rule that sets the final answer apart from the narration above it. */
export function answerRule(columns: number): string {
  const width = Math.max(10, Math.min(RULE_WIDTH, columns - 1));
  return `── answer ${'─'.repeat(width - 10)}`;
}
