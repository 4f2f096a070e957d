/** ANSI styling for stderr, switched off when stderr is not a terminal or NO_COLOR is set. */
export interface Style {
  dim(text: string): string;
  bold(text: string): string;
  red(text: string): string;
  yellow(text: string): string;
  cyan(text: string): string;
}

export function createStyle(enabled: boolean): Style {
  const wrap = (open: number, close: number) => (text: string) => (enabled ? `\u001b[${open}m${text}\u001b[${close}m` : text);
  return { dim: wrap(2, 22), bold: wrap(1, 22), red: wrap(31, 39), yellow: wrap(33, 39), cyan: wrap(36, 39) };
}

export function colourWanted(stream: { isTTY?: boolean }, env: NodeJS.ProcessEnv): boolean {
  return Boolean(stream.isTTY) && env.NO_COLOR === undefined && env.TERM !== 'dumb';
}
