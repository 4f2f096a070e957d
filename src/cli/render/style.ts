import type { TerminalSettings } from '../../config.js';

/** ANSI styling for stderr; see colourWanted for when it is on. */
export interface Style {
  dim(text: string): string;
  bold(text: string): string;
  red(text: string): string;
  yellow(text: string): string;
  cyan(text: string): string;
}

export function createStyle(enabled: boolean): Style {
  const wrap = (open: number, close: number) => (text: string) =>
    enabled && text !== '' ? `\u001b[${open}m${text}\u001b[${close}m` : text;
  return { dim: wrap(2, 22), bold: wrap(1, 22), red: wrap(31, 39), yellow: wrap(33, 39), cyan: wrap(36, 39) };
}

/**
 * Colour on stderr, by the common conventions: FORCE_COLOR (not empty) forces it on, even when stderr is not a
 * terminal, except FORCE_COLOR=0 or false, which turns it off; otherwise NO_COLOR (not empty, no-color.org) turns it
 * off; otherwise colour on a terminal that is not dumb.
 */
export function colourWanted(stream: { isTTY?: boolean }, terminal: TerminalSettings): boolean {
  const force = terminal.forceColor;
  if (force !== undefined && force !== '') return force !== '0' && force.toLowerCase() !== 'false';
  if (terminal.noColor !== undefined && terminal.noColor !== '') return false;
  return Boolean(stream.isTTY) && terminal.term !== 'dumb';
}
