// Start-up: a run without --json-schema loads none of the validator or the schema handling; they come in their own
// chunk of the bundle, loaded only with the flag.
import { readFileSync } from 'node:fs';
import { expect, it } from 'vitest';
import { chunksLoaded as loadedBy, DIST } from './support/chunks-loaded.js';
import { answer } from './support/run-agent.js';
import { useServer } from './support/use-server.js';

const serve = useServer();
/** The id of the JSON Schema 2020-12 meta-schema, which ajv carries: a chunk that holds it holds the validator. */
const VALIDATOR_MARK = 'json-schema.org/draft/2020-12/schema';

const chunksLoaded = async (args: string[], reply: string) => loadedBy(args, await serve([answer(reply)]));

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
