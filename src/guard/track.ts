// Keeps the guard's view of the variables up to date as the walk goes through the command line in order.
import type { SyntaxNode } from 'unbash';
import { assignsDefault, type Effect } from './assignments.js';
import { expandToValue } from './expand.js';
import type { VariableScope, VariableValue } from './variables.js';

const ARITHMETIC_ASSIGNMENTS: readonly string[] = ['=', '+=', '-=', '*=', '/=', '%=', '<<=', '>>=', '&=', '^=', '|='];
const NAME = /^[A-Za-z_][A-Za-z0-9_]*$/;

type Known = VariableValue | 'unknown';
const REPEATED: readonly string[] = ['For', 'Select', 'While', 'ArithmeticFor', 'Function'];

/** What the command's effects do to the shell's own variables (not those of its child's environment). */
export function applyEffects(effects: readonly Effect[], scope: VariableScope): void {
  for (const effect of effects) {
    if (effect.kind === 'assign') scope.assign(effect.name, assignedValue(effect, scope));
    else if (effect.kind === 'unset') scope.unset(effect.name);
    else if (effect.kind === 'opaque') scope.makeOpaque();
    else if (effect.kind === 'nounset') scope.nounset = effect.on;
  }
}

function assignedValue(effect: Extract<Effect, { kind: 'assign' }>, scope: VariableScope): Known {
  if (effect.value === undefined) return 'unknown';
  const value = expandToValue(effect.value, scope);
  if (!effect.append || value === 'unknown') return value;
  const before = scope.lookup(effect.name);
  if (before.kind === 'unknown') return 'unknown';
  return before.kind === 'unset' ? value : { ...before.value, text: before.value.text + value.text };
}

/** The variables a command puts in its own environment only (`D=x bash -c '…'`). */
export function childVariables(effects: readonly Effect[], scope: VariableScope): ReadonlyMap<string, Known> {
  const variables = new Map<string, Known>();
  for (const effect of effects) {
    if (effect.kind !== 'child') continue;
    variables.set(effect.name, effect.value === undefined ? 'unknown' : expandToValue(effect.value, scope));
  }
  return variables;
}

/** Assignments that are not commands (loop variables, arithmetic, `${D:=…}`), and `${D:?}`, which stops if D is unset. */
export function trackNode(node: SyntaxNode, scope: VariableScope): void {
  if (node.type === 'For' || node.type === 'Select') scope.assign(node.name.value, 'unknown');
  else if (node.type === 'Coproc') scope.assign(node.name?.value ?? 'COPROC', 'unknown');
  else if (node.type === 'ArithmeticBinary') {
    if (ARITHMETIC_ASSIGNMENTS.includes(node.operator)) markArithmetic(node.left, scope);
  } else if (node.type === 'ArithmeticUnary') {
    if (node.operator === '++' || node.operator === '--') markArithmetic(node.operand, scope);
  } else if (node.type === 'ParameterExpansion') {
    // After `: "${D:?}"` the line goes on only if D was set.
    const stops = node.operation?.type === 'Default' && node.operation.operator.includes('?');
    const stopsIfUnset = stops && scope.lookup(node.parameter).kind === 'unset';
    if (assignsDefault(node) || stopsIfUnset) scope.assign(node.parameter, 'unknown');
  }
}

function markArithmetic(node: SyntaxNode, scope: VariableScope): void {
  if (node.type === 'ArithmeticWord' && NAME.test(node.value)) scope.assign(node.value, 'unknown');
}

/** Loops and function bodies: what they assign later may already have run when a command in them runs. */
export function isRepeated(node: SyntaxNode): boolean {
  return REPEATED.includes(node.type);
}
