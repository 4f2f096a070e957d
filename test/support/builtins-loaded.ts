import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { runAgent, tempDir, type AgentRun } from './run-agent.js';
import type { TestServer } from './server.js';

/**
 * Runs the agent against `server` and tells which of Node's own modules matching `pattern` it loaded
 * (`process.moduleLoadList` at exit), one per line: '' when none; undefined when the run left no report.
 */
export async function builtinsLoaded(
  server: TestServer,
  pattern: RegExp,
): Promise<{ run: AgentRun; loaded: string | undefined }> {
  const dir = tempDir();
  const hook = join(dir, 'hook.cjs');
  const report = join(dir, 'loaded.txt');
  writeFileSync(
    hook,
    `const pattern = new RegExp(${JSON.stringify(pattern.source)});\n` +
      `process.on('exit', () => require('node:fs').writeFileSync(${JSON.stringify(report)}, process.moduleLoadList.filter((m) => pattern.test(m)).join('\\n')));\n`,
  );
  const run = await runAgent(['go'], server.url, { cwd: dir, nodeArgs: ['--require', hook] });
  return { run, loaded: existsSync(report) ? readFileSync(report, 'utf8') : undefined };
}
