// On a terminal, a structured answer is shown pretty-printed on stderr; stdout keeps the one-line JSON value.
import { expect, it } from 'vitest';
import { answer, baseEnv, runAgent } from './support/run-agent.js';
import { runOnTerminal } from './support/terminal.js';
import { useServer } from './support/use-server.js';
import { useTempDirs } from './support/temp-dirs.js';

const serve = useServer();
const tempDir = useTempDirs();
const SCHEMA = '{"type":"object","properties":{"verdict":{"enum":["approve","reject"]},"reasons":{"type":"array","items":{"type":"string"}}},"required":["verdict"]}';
const REPLY = '{"verdict":"approve","reasons":["tests pass","small diff"]}';
const PRETTY = ['{', '  "verdict": "approve",', '  "reasons": [', '    "tests pass",', '    "small diff"', '  ]', '}'].join('\r\n');

it('shows the answer pretty-printed on a terminal, and the one-line value on stdout', async () => {
  const s = await serve([answer(REPLY)]);
  const { code, screen } = await runOnTerminal(['--json-schema', SCHEMA, 'review'], { ...baseEnv(s.url), NO_COLOR: '1' }, tempDir());
  expect(code).toBe(0);
  expect(screen).toContain(PRETTY);
  expect(screen).toContain(`${REPLY}\r\n`);
});

it('leaves it out when stderr is not a terminal (a log)', async () => {
  const s = await serve([answer(REPLY)]);
  const run = await runAgent(['--json-schema', SCHEMA, 'review'], s.url, { cwd: tempDir() });
  expect(run.stdout).toBe(`${REPLY}\n`);
  expect(run.stderr).not.toContain('  "verdict"');
});
