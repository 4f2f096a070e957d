// The model call as it goes out on the wire: a streamed request, marked as the SDK's streaming helper marks it.
import { describe, expect, it } from 'vitest';
import { answer, bash, runAgent } from './support/run-agent.js';
import { useServer } from './support/use-server.js';

const serve = useServer();

describe('the streamed model call', () => {
  it('asks for a stream, with the helper header, and runs the tool call the stream spelled out in pieces', async () => {
    const s = await serve([bash('echo "split \\"input\\" é"'), answer('done')]);
    const run = await runAgent(['--output-format', 'json', 'go'], s.url);
    expect(run.code).toBe(0);
    const requests = s.validRequests();
    expect(requests.map((r) => [r.body.stream, r.headers['x-stainless-helper-method']])).toEqual([
      [true, 'stream'],
      [true, 'stream'],
    ]);
    expect(JSON.stringify(requests[1]!.body.messages)).toContain('split \\"input\\" é');
  });
});
