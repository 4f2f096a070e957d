// On a terminal, a structured answer is shown pretty-printed on stderr; stdout keeps the one-line JSON value.
import { expect, it } from 'vitest';
import { answer, baseEnv, runAgent, tempDir } from './support/run-agent.js';
import { runOnTerminal, screenOf } from './support/terminal.js';
import { useServer } from './support/use-server.js';

const serve = useServer();
const SCHEMA =
  '{"type":"object","properties":{"verdict":{"enum":["approve","reject"]},"reasons":{"type":"array","items":{"type":"string"}}},"required":["verdict"]}';
const REPLY = '{"verdict":"approve","reasons":["tests pass","small diff"]}';
const PRETTY = ['{', '  "verdict": "approve",', '  "reasons": [', '    "tests pass",', '    "small diff"', '  ]', '}'];

it('shows the answer pretty-printed on a terminal, and the one-line value on stdout', async () => {
  const s = await serve([answer(REPLY)]);
  const { code, bytes } = await runOnTerminal(`"$AGENT" --json-schema '${SCHEMA}' review`, {
    env: { ...baseEnv(s.url), NO_COLOR: '1' },
    cwd: tempDir(),
  });
  expect(code).toBe(0);
  const screen = await screenOf(bytes);
  const start = screen.indexOf('{');
  expect(screen.slice(start, start + PRETTY.length)).toEqual(PRETTY);
  expect(screen).toContain(REPLY);
});

it('leaves it out when stderr is not a terminal (a log)', async () => {
  const s = await serve([answer(REPLY)]);
  const run = await runAgent(['--json-schema', SCHEMA, 'review'], s.url, { cwd: tempDir() });
  expect(run.stdout).toBe(`${REPLY}\n`);
  expect(run.stderr).not.toContain('  "verdict"');
});
