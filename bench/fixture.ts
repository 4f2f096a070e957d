// A small generated project and a fixed 12-turn exploration of it: the workload whose token bill
// is compared with and without prompt caching.

import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { answer, bash } from '../test/support/run-agent.js';
import type { Turn } from '../test/support/server.js';

function sourceFile(module: string, functions: number): string {
  const lines = [`// ${module}: generated for the benchmark.`, `import { Token } from './tokens.js';`, ''];
  for (let i = 1; i <= functions; i++) {
    lines.push(
      `/** Step ${i} of the ${module}: folds the tokens it is given into a running total. */`,
      `export function ${module}Step${i}(tokens: Token[], total = ${i * 7}): number {`,
      `  return tokens.reduce((sum, token) => sum + token.text.length * ${i}, total);`,
      '}',
      '',
    );
  }
  return lines.join('\n');
}

function csv(rows: number): string {
  const lines = ['id,name,kind,size,modified'];
  for (let i = 1; i <= rows; i++)
    lines.push(
      `${i},item-${String(i).padStart(4, '0')},${i % 3 === 0 ? 'dir' : 'file'},${(i * 977) % 65_536},2026-11-${String((i % 28) + 1).padStart(2, '0')}`,
    );
  return `${lines.join('\n')}\n`;
}

/** Instructions of a realistic size: what to run, the style to keep, what not to touch. */
function agentsMd(): string {
  const rules = Array.from(
    { length: 40 },
    (_, i) =>
      `- Rule ${i + 1}: keep step ${i + 1} pure; its tests live in test/step${i + 1}.test.ts and run with \`npm test -- step${i + 1}\`.`,
  );
  return ['# Working on calc', '', 'Run `npm test` before you finish. Keep 2-space indents.', '', ...rules, ''].join(
    '\n',
  );
}

export const AGENTS_MD_BYTES = Buffer.byteLength(agentsMd());

/** Writes the project into `dir`: four source files of 3–5 KB, a README and a CSV; with `agentsMd`, an AGENTS.md. */
export function writeProject(dir: string, options: { agentsMd?: boolean } = {}): void {
  if (options.agentsMd) writeFileSync(join(dir, 'AGENTS.md'), agentsMd());
  mkdirSync(join(dir, 'src'), { recursive: true });
  mkdirSync(join(dir, 'data'), { recursive: true });
  writeFileSync(join(dir, 'src/tokens.ts'), sourceFile('tokens', 14));
  writeFileSync(join(dir, 'src/lexer.ts'), sourceFile('lexer', 20));
  writeFileSync(join(dir, 'src/parser.ts'), sourceFile('parser', 24));
  writeFileSync(join(dir, 'src/printer.ts'), sourceFile('printer', 16));
  writeFileSync(
    join(dir, 'README.md'),
    [
      '# calc',
      '',
      'A tiny calculator: tokens → lexer → parser → printer.',
      '',
      ...Array.from(
        { length: 40 },
        (_, i) => `- Note ${i + 1}: step ${i + 1} keeps its running total in the token's length times ${i + 1}.`,
      ),
    ].join('\n'),
  );
  writeFileSync(join(dir, 'data/sample.csv'), csv(150));
}

/** Eleven commands, each printing 0.5–5 KB, as a model exploring the project would run them. */
export const TOKEN_RUN_COMMANDS = [
  'ls -la src data',
  'cat README.md',
  'cat src/lexer.ts',
  'grep -n "export function" src/*.ts | head -60',
  'cat src/parser.ts',
  'seq 1 600',
  'head -c 4000 data/sample.csv',
  'cat src/printer.ts',
  'wc -c src/* data/* README.md',
  'sed -n 1,80p src/tokens.ts',
  'cat -n src/parser.ts | tail -40',
];

export const TOKEN_RUN_DESCRIPTION =
  '12 model calls: 11 commands over a generated project (ls, cat of 3–5 KB source files, grep, seq 1 600, head -c 4000 of a CSV, wc, sed, cat -n | tail), then the answer';

export function tokenRunScript(): Turn[] {
  return [...TOKEN_RUN_COMMANDS.map((command) => bash(command)), answer('The project is a four-stage calculator.')];
}
