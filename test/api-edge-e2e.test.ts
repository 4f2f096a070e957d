// Replies that real gateways and networks send and the API never would: each must end the run the right way.
import { describe, expect, it } from 'vitest';
import { answer, bash, runAgent } from './support/run-agent.js';
import { useServer } from './support/use-server.js';

const serve = useServer();

describe('a reply that says tool_use but holds no tool call', () => {
  it('ends the turn with its text: exit 0, and no empty message is ever sent', async () => {
    const s = await serve([
      bash('echo hi'),
      {
        kind: 'message',
        content: [{ type: 'text', text: 'Nothing more to run; the answer is 42.' }],
        stop_reason: 'tool_use',
      },
      answer('never asked for'),
    ]);
    const run = await runAgent(['--output-format', 'json', 'go'], s.url);
    expect(run.code).toBe(0);
    expect(JSON.parse(run.stdout)).toMatchObject({
      subtype: 'success',
      stop_reason: 'tool_use',
      result: 'Nothing more to run; the answer is 42.',
      num_turns: 2,
    });
    expect(s.requests).toHaveLength(2);
    expect(s.rejections()).toEqual([]);
  });
});

describe('a 200 whose body is not an event stream', () => {
  const portal =
    '<!DOCTYPE html><html><head><title>Wi-Fi login</title></head><body>Please sign in to continue</body></html>';

  it('is exit 3 at once, saying what came back and what to check', async () => {
    const s = await serve([
      { kind: 'raw', status: 200, headers: { 'content-type': 'text/html; charset=utf-8' }, body: portal },
    ]);
    const run = await runAgent(['--output-format', 'json', 'go'], s.url);
    expect(run.code).toBe(3);
    expect(s.requests).toHaveLength(1);
    expect(run.stderr).not.toMatch(/retrying/);
    expect(run.stderr).toContain("HTTP 200 with content type 'text/html; charset=utf-8'");
    expect(run.stderr).toContain('<title>Wi-Fi login</title>');
    expect(run.stderr).toMatch(/Check ANTHROPIC_BASE_URL/);
    expect(JSON.parse(run.stdout)).toMatchObject({ subtype: 'error_api', is_error: true });
  });

  it('names a missing content type and an empty body plainly', async () => {
    const s = await serve([{ kind: 'raw', status: 200, body: '' }]);
    const run = await runAgent(['go'], s.url);
    expect(run.code).toBe(3);
    expect(s.requests).toHaveLength(1);
    expect(run.stderr).toContain("content type 'none'");
    expect(run.stderr).toContain('(empty body)');
  });

  it('still retries a 502 page from a proxy, which is transient', async () => {
    const s = await serve([
      { kind: 'raw', status: 502, headers: { 'content-type': 'text/html' }, body: '<h1>502 Bad Gateway</h1>' },
      answer('ok'),
    ]);
    const run = await runAgent(['go'], s.url);
    expect(run.code).toBe(0);
    expect(run.stdout).toBe('ok\n');
    expect(run.stderr).toMatch(/retrying/);
  });
});

describe('the stall watch', () => {
  it('keeps a stream that only pings for longer than AGENT_STREAM_IDLE_MS', async () => {
    const s = await serve([
      { kind: 'message', content: [{ type: 'text', text: 'slow but alive' }], pings: { count: 8, everyMs: 150 } },
    ]);
    const run = await runAgent(['go'], s.url, { env: { AGENT_STREAM_IDLE_MS: '500' } });
    expect(run.stderr).not.toMatch(/stalled|retrying/);
    expect(run.code).toBe(0);
    expect(run.stdout).toBe('slow but alive\n');
    expect(s.requests).toHaveLength(1);
  });

  it('still drops a stream that goes silent', async () => {
    const s = await serve([
      { kind: 'message', content: [{ type: 'text', text: 'late' }], pings: { count: 1, everyMs: 1_500 } },
      answer('second try'),
    ]);
    const run = await runAgent(['go'], s.url, { env: { AGENT_STREAM_IDLE_MS: '500' } });
    expect(run.stderr).toMatch(/stream stalled: no data for 0.5 s/);
    expect(run.code).toBe(0);
    expect(run.stdout).toBe('second try\n');
  });
});
