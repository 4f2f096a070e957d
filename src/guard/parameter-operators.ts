// What bash's parameter operators make of a value the guard knows: trimmed (`${V%/}`, `${V##*/}`), replaced
// (`${V/a/b}`), re-cased (`${V,,}`) or sliced (`${V:0:1}`). Whatever cannot be worked out here is 'unknown'.
import type { ParameterOperation, Word } from 'unbash';

/** An operand's value as an assignment would store it; 'unknown' when it cannot be known. */
type OperandValue = (word: Word) => string | 'unknown';

/** The result of `operation` on `value`; 'unknown' for operators (and operands) not worked out here. */
export function applyOperator(value: string, operation: ParameterOperation, operand: OperandValue): string | 'unknown' {
  switch (operation.type) {
    case 'Remove':
      return removeMatch(value, operation.operator, operand(operation.operand));
    case 'Replace':
      return replaceLiteral(value, operation.operator, operand(operation.pattern), operand(operation.replacement));
    case 'CaseModification':
      return operation.operand === undefined ? changeCase(value, operation.operator) : 'unknown';
    case 'Slice':
      return slice(
        value,
        operand(operation.offset),
        operation.length === undefined ? undefined : operand(operation.length),
      );
    default:
      return 'unknown';
  }
}

/** A glob pattern as a regular expression matching a whole string; undefined for brackets, escapes and unknowns. */
function patternRegExp(pattern: string): RegExp | undefined {
  if (/[[\\]/.test(pattern)) return undefined;
  const source = [...pattern]
    .map((char) => (char === '*' ? '[^]*' : char === '?' ? '[^]' : char.replace(/[$()+.^{|}]/g, '\\$&')))
    .join('');
  return new RegExp(`^${source}$`);
}

function removeMatch(
  value: string,
  operator: '#' | '##' | '%' | '%%',
  pattern: string | 'unknown',
): string | 'unknown' {
  if (pattern === 'unknown') return 'unknown';
  const regexp = patternRegExp(pattern);
  if (regexp === undefined) return 'unknown';
  const lengths = [...Array(value.length + 1).keys()];
  if (operator === '##' || operator === '%%') lengths.reverse();
  const fromStart = operator.startsWith('#');
  for (const length of lengths) {
    const piece = fromStart ? value.slice(0, length) : value.slice(value.length - length);
    if (regexp.test(piece)) return fromStart ? value.slice(length) : value.slice(0, value.length - length);
  }
  return value;
}

/** `${V/a/b}` and its kin, for a pattern without glob characters only. */
function replaceLiteral(
  value: string,
  operator: '/' | '//' | '/#' | '/%',
  pattern: string | 'unknown',
  replacement: string | 'unknown',
): string | 'unknown' {
  if (pattern === 'unknown' || replacement === 'unknown' || /[*?[\\]/.test(pattern)) return 'unknown';
  if (pattern === '') return operator === '/#' ? replacement + value : operator === '/%' ? value + replacement : value;
  if (operator === '//') return value.split(pattern).join(replacement);
  if (operator === '/#') return value.startsWith(pattern) ? replacement + value.slice(pattern.length) : value;
  if (operator === '/%') return value.endsWith(pattern) ? value.slice(0, -pattern.length) + replacement : value;
  return value.replace(pattern, () => replacement);
}

function changeCase(value: string, operator: '^' | '^^' | ',' | ',,'): string {
  const change = operator.startsWith('^') ? (text: string) => text.toUpperCase() : (text: string) => text.toLowerCase();
  return operator.length === 2 ? change(value) : change(value.slice(0, 1)) + value.slice(1);
}

const INTEGER = /^\s*(-?\d+)\s*$/;

/** `${V:offset}` and `${V:offset:length}`, as bash counts them (negative: from the end). */
function slice(
  value: string,
  offsetText: string | 'unknown',
  lengthText: string | 'unknown' | undefined,
): string | 'unknown' {
  const offsetMatch = offsetText === 'unknown' ? null : INTEGER.exec(offsetText);
  if (offsetMatch === null) return 'unknown';
  let start = Number(offsetMatch[1]);
  if (start < 0) start = value.length + start;
  if (start < 0 || start > value.length) return '';
  if (lengthText === undefined) return value.slice(start);
  const lengthMatch = lengthText === 'unknown' ? null : INTEGER.exec(lengthText);
  if (lengthMatch === null) return 'unknown';
  const length = Number(lengthMatch[1]);
  if (length >= 0) return value.slice(start, start + length);
  // Past the start, bash stops the command (`substring expression < 0`): nothing runs.
  return value.length + length < start ? 'unknown' : value.slice(start, value.length + length);
}
