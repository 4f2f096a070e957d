// Control characters written out as escapes a person can read, for text that must be seen exactly as it will act:
// a command about to run. Dropping an escape sequence whole would drop its payload too (the `; rm -rf ~` inside
// an OSC title), and the reader would not see what bash runs.

/** Any control character but newline and tab. */
const CONTROL_GLOBAL = /[\x00-\x08\x0b-\x1f\x7f-\x9f]/g;

const NAMED: Readonly<Record<string, string>> = {
  '\x07': '\\a',
  '\x08': '\\b',
  '\x0b': '\\v',
  '\x0c': '\\f',
  '\x0d': '\\r',
  '\x1b': '\\e',
};

/** `text` with each control character but newline and tab as `\e`, `\a`, `\b`, `\v`, `\f`, `\r` or `\xHH`. */
export function showControls(text: string): string {
  return text.replace(
    CONTROL_GLOBAL,
    (char) => NAMED[char] ?? `\\x${char.charCodeAt(0).toString(16).padStart(2, '0')}`,
  );
}
