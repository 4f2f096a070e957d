// Which variables a simple command sets, unsets or may have set, for the guard's view of the variables:
// `NAME=value`, `export`/`declare`/`local`/`readonly`, `unset`, `read` and the other builtins that assign,
// and the commands after which anything may be set (`source`, `eval`, `declare -n`).
import { forEachChild } from 'unbash';
import type { Command, ParameterExpansionPart, SyntaxNode, Word } from 'unbash';

export type Effect =
  /** `value` undefined: set to something the guard cannot know (`read D`, `a=(…)`, `declare -i`). */
  | { readonly kind: 'assign'; readonly name: string; readonly value: Word | undefined; readonly append: boolean }
  | { readonly kind: 'unset'; readonly name: string }
  /** Only in the environment of the command itself (`D=x cmd`, `env D=x cmd`). */
  | { readonly kind: 'child'; readonly name: string; readonly value: Word | undefined }
  | { readonly kind: 'opaque' }
  | { readonly kind: 'nounset'; readonly on: boolean };

const NAME = /^[A-Za-z_][A-Za-z0-9_]*$/;
const DECLARERS: readonly string[] = ['export', 'declare', 'typeset', 'local', 'readonly'];
/** Builtins whose name operands receive values read at run time. */
const READERS: readonly string[] = ['read', 'mapfile', 'readarray', 'getopts'];
const SOURCING: readonly string[] = ['source', '.', 'eval'];
const TESTS: readonly string[] = ['[', 'test'];
const OPAQUE: readonly Effect[] = [{ kind: 'opaque' }];
const NONE: readonly Effect[] = [];

export function commandEffects(command: Command): readonly Effect[] {
  const name = command.name?.value;
  if (name === undefined) {
    return command.prefix.flatMap((item): Effect[] =>
      item.type !== 'Assignment'
        ? []
        : [{ kind: 'assign', name: item.name, value: plainValue(item), append: item.append === true }],
    );
  }
  const child: Effect[] = [];
  for (const item of command.prefix) {
    if (item.type === 'Assignment') child.push({ kind: 'child', name: item.name, value: plainValue(item) });
  }
  return child.length === 0 ? builtinEffects(name, command) : [...child, ...builtinEffects(name, command)];
}

function plainValue(assignment: { value: Word | { type: 'ArrayValue' }; index: Word | undefined }): Word | undefined {
  return assignment.value.type === 'Word' && assignment.index === undefined ? assignment.value : undefined;
}

function builtinEffects(name: string, command: Command): readonly Effect[] {
  if (command.args.length === 0 && !SOURCING.includes(name)) return NONE;
  if (DECLARERS.includes(name)) return declarerEffects(name, command);
  if (SOURCING.includes(name)) return OPAQUE;
  if (name === 'unset') return unsetEffects(command);
  if (name === 'set') return setEffects(command);
  if (name === 'env') return envEffects(command);
  const words = command.args.filter((argument): argument is Word => argument.type === 'Word');
  if (READERS.includes(name)) return words.filter((word) => NAME.test(word.value)).map(unknownValue);
  if (name === 'printf' || name === 'wait') return optionValueEffects(words, name === 'printf' ? '-v' : '-p');
  if (name === 'let') {
    return words.flatMap((word) => {
      const target = /^[A-Za-z_][A-Za-z0-9_]*/.exec(word.value)?.[0];
      return target === undefined ? [] : [unknownValue({ value: target })];
    });
  }
  return NONE;
}

function unknownValue(word: { value: string }): Effect {
  return { kind: 'assign', name: word.value, value: undefined, append: false };
}

function declarerEffects(name: string, command: Command): readonly Effect[] {
  const effects: Effect[] = [];
  let valuesUnknown = false;
  for (const argument of command.args) {
    if (argument.type === 'Assignment') {
      const value = valuesUnknown ? undefined : plainValue(argument);
      effects.push({ kind: 'assign', name: argument.name, value, append: argument.append === true });
      continue;
    }
    const text = argument.value;
    if (argument.parts !== undefined && argument.parts.length > 0) return OPAQUE; // a computed name
    if (text.startsWith('-') || text.startsWith('+')) {
      if (/[fF]/.test(text)) return NONE; // functions, not variables
      // A name reference (-n) writes through to another name; export's -n only removes the export.
      if (text.startsWith('-') && text.includes('n') && name !== 'export') return OPAQUE;
      if (/[aAi]/.test(text)) valuesUnknown = true;
      continue;
    }
    // `local X` and `declare X` give X an unset local; `export X` and `readonly X` leave its value alone.
    const declaresLocal = name === 'local' || name === 'declare' || name === 'typeset';
    if (NAME.test(text) && declaresLocal) effects.push(unknownValue(argument));
  }
  return effects;
}

function unsetEffects(command: Command): readonly Effect[] {
  const effects: Effect[] = [];
  for (const argument of command.args) {
    if (argument.type !== 'Word' || (argument.parts !== undefined && argument.parts.length > 0)) return OPAQUE;
    if (argument.value === '-f') return NONE;
    if (NAME.test(argument.value)) effects.push({ kind: 'unset', name: argument.value });
  }
  return effects;
}

function setEffects(command: Command): readonly Effect[] {
  const words = command.args.map((argument) => (argument.type === 'Word' ? argument.value : ''));
  const effects: Effect[] = [];
  words.forEach((word, index) => {
    if (word === '--') return;
    if ((word === '-o' || word === '+o') && words[index + 1] === 'nounset') {
      effects.push({ kind: 'nounset', on: word === '-o' });
    } else if (/^[-+][a-zA-Z]*u[a-zA-Z]*$/.test(word)) effects.push({ kind: 'nounset', on: word.startsWith('-') });
  });
  return effects;
}

function envEffects(command: Command): readonly Effect[] {
  const effects: Effect[] = [];
  for (const argument of command.args) {
    const text = argument.type === 'Word' ? argument.value : '';
    const equals = text.indexOf('=');
    const name = text.slice(0, equals);
    if (equals > 0 && NAME.test(name)) effects.push({ kind: 'child', name, value: undefined });
  }
  return effects;
}

function optionValueEffects(words: readonly Word[], option: string): readonly Effect[] {
  const effects: Effect[] = [];
  words.forEach((word, index) => {
    const attached = word.value.startsWith(option) ? word.value.slice(2) : undefined;
    const target = word.value === option ? words[index + 1]?.value : attached;
    if (target !== undefined && NAME.test(target)) effects.push(unknownValue({ value: target }));
  });
  return effects;
}

/** `${NAME=…}` and `${NAME:=…}` assign the default. */
export function assignsDefault(node: ParameterExpansionPart): boolean {
  return node.operation?.type === 'Default' && node.operation.operator.includes('=');
}

/**
 * Adds to `assigned` every variable the script may assign anywhere, and to `tested` every variable it tests
 * (`[ -n "$D" ] && rm -rf "$D"/*` guards its use). `opaque` when it may assign any variable at all.
 */
export function scanVariables(script: SyntaxNode, assigned: Set<string>, tested: Set<string>): { opaque: boolean } {
  let opaque = false;
  const visit = (node: SyntaxNode, inTest: boolean): void => {
    if (inTest && node.type === 'SimpleExpansion') tested.add(node.text.slice(1));
    else if (inTest && node.type === 'ParameterExpansion') tested.add(node.parameter);
    if (node.type === 'Assignment') assigned.add(node.name);
    else if (node.type === 'For' || node.type === 'Select') assigned.add(node.name.value);
    else if (node.type === 'Coproc') assigned.add(node.name?.value ?? 'COPROC');
    else if (node.type === 'ArithmeticWord' && NAME.test(node.value)) assigned.add(node.value);
    else if (node.type === 'ParameterExpansion' && assignsDefault(node)) assigned.add(node.parameter);
    else if (node.type === 'Command') {
      for (const effect of commandEffects(node)) {
        if (effect.kind === 'opaque') opaque = true;
        else if (effect.kind !== 'nounset') assigned.add(effect.name);
      }
    }
    const testing =
      inTest || node.type === 'TestCommand' || (node.type === 'Command' && TESTS.includes(node.name?.value ?? ''));
    forEachChild(node, (child) => visit(child, testing));
  };
  visit(script, false);
  return { opaque };
}
