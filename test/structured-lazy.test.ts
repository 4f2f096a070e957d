// Start-up: a run without --json-schema loads none of the validator or the schema handling; they come in their own
// chunk of the bundle, loaded only with the flag.
import { readFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { expect, it } from 'vitest';
import { answer, runAgent, tempDir } from './support/run-agent.js';
import { useServer } from './support/use-server.js';

const serve = useServer();
const LOAD_LOG = resolve(import.meta.dirname, 'support/load-log.mjs');
const DIST = resolve(import.meta.dirname, '../dist');
/** The id of the JSON Schema 2020-12 meta-schema, which ajv carries: a chunk that holds it holds the validator. */
const VALIDATOR_MARK = 'json-schema.org/draft/2020-12/schema';

/** The files of dist/ that a run loaded. */
async function chunksLoaded(args: string[], reply: string): Promise<string[]> {
  const dir = tempDir();
  const log = join(dir, 'loaded.txt');
  const s = await serve([answer(reply)]);
  const run = await runAgent(args, s.url, { cwd: dir, nodeArgs: ['--import', LOAD_LOG], env: { AGENT_LOAD_LOG: log } });
  expect(run.code).toBe(0);
  return readFileSync(log, 'utf8')
    .trim()
    .split('\n')
    .filter((url) => url.startsWith('file:'))
    .map((url) => fileURLToPath(url))
    .filter((path) => path.startsWith(`${DIST}/`));
}

const holdsValidator = (path: string) => readFileSync(path, 'utf8').includes(VALIDATOR_MARK);

it('a run without --json-schema loads no chunk that holds the validator; a run with it does', async () => {
  const plain = await chunksLoaded(['go'], 'fine');
  expect(plain.map((path) => path.slice(DIST.length + 1))).toEqual(
    expect.arrayContaining(['cli.js', expect.stringMatching(/^run-/)]),
  );
  expect(plain.filter(holdsValidator)).toEqual([]);

  const structured = await chunksLoaded(
    ['--json-schema', '{"type":"object","properties":{"a":{"type":"integer"}}}', 'go'],
    '{"a":1}',
  );
  expect(structured.filter(holdsValidator)).toHaveLength(1);
  expect(structured.length).toBeGreaterThan(plain.length);
});
