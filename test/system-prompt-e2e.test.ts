// The built-in system prompt as the binary sends it: each point it must make, what it says of cut output matching
// what the bash tool really prints, and its size.
import { existsSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { answer, bash, runAgent, tempDir, toolResults } from './support/run-agent.js';
import { useServer } from './support/use-server.js';

const serve = useServer();

/** The built-in prompt before it was reviewed, without its working-directory and platform lines: 699 characters. */
const SIZE_BEFORE_REVIEW = 699;

async function builtInPrompt(): Promise<string> {
  const s = await serve([answer('ok')]);
  await runAgent(['go'], s.url, { cwd: tempDir() });
  return s.validRequests()[0]!.body.system[0].text as string;
}

describe('the built-in system prompt', () => {
  it('makes each point a headless run needs', async () => {
    const prompt = await builtInPrompt();
    expect(prompt).toMatch(
      /non-interactive: nobody can answer a question, so never ask one; decide, .*say in the answer what you assumed/,
    );
    expect(prompt).toMatch(
      /cut to its head and tail around a marker naming the file with the full output: read parts of it \(grep -n, sed -n/,
    );
    expect(prompt).toMatch(/Check the work before you answer: run the tests or the program, re-read what you changed/);
    expect(prompt).toMatch(/A script or a person reads it: the result first/);
  });

  it('grows by at most 20% over its size before the review', async () => {
    const fixedPart = (prompt: string) =>
      prompt
        .split('\n')
        .filter((line) => !/^(Working directory|Platform):/.test(line))
        .join('\n');
    expect(fixedPart(await builtInPrompt()).length).toBeLessThanOrEqual(SIZE_BEFORE_REVIEW * 1.2);
  });

  it('describes cut output as the bash tool really shows it: a marker that names a file with the full output', async () => {
    const s = await serve([bash('seq 1 20000'), answer('ok')]);
    await runAgent(['go'], s.url, { cwd: tempDir() });
    const prompt = s.validRequests()[0]!.body.system[0].text as string;
    const result = toolResults(s.validRequests()[1]!)[0]!.content;
    const marker =
      /\n\[\.\.\. [\d,]+ characters \([\d,]+ lines\) omitted; the full output \([\d,]+ characters\) is in (\S+) \.\.\.\]\n/.exec(
        result,
      );
    expect(marker, result.slice(0, 200)).not.toBeNull();
    expect(prompt).toContain('a marker naming the file with the full output');
    expect(result.startsWith('1\n2\n')).toBe(true);
    expect(result.trimEnd().endsWith('19999\n20000')).toBe(true);
    // The run's private directory, with the file in it, is removed when the run ends; it was named while it lived.
    expect(existsSync(marker![1]!)).toBe(false);
  });
});
