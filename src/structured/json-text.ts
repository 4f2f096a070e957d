/** JSON.parse with failures as values that say where the text went wrong, by line and column. */
type ParsedJson = { ok: true; value: unknown } | { ok: false; problem: string };

export function parseJson(text: string): ParsedJson {
  try {
    return { ok: true, value: JSON.parse(text) };
  } catch (error) {
    const message = (error as Error).message;
    const position = /at position (\d+)/.exec(message)?.[1];
    if (position === undefined) return { ok: false, problem: message };
    const at = Number(position);
    const where = lineAndColumn(text, at);
    const comment = text.startsWith('//', at) || text.startsWith('/*', at) ? ' (a comment: JSON has none)' : '';
    if (/after JSON/.test(message)) {
      return { ok: false, problem: `more text follows the JSON value, from ${where}${comment}` };
    }
    return { ok: false, problem: `${message.replace(/ (in JSON )?at position \d+.*$/s, '')} at ${where}${comment}` };
  }
}

/** "line 3, column 7" for an offset into the text (both counted from 1). */
function lineAndColumn(text: string, offset: number): string {
  const before = text.slice(0, offset);
  const line = before.split('\n').length;
  const column = offset - before.lastIndexOf('\n');
  return `line ${line}, column ${column}`;
}
