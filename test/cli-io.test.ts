import { execFileSync, spawn } from 'node:child_process';
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import {
  AGENT_BIN,
  answer,
  answerWithLastResult,
  baseEnv,
  bash,
  messageText,
  readRecords,
  runAgent,
  tempDir,
} from './support/run-agent.js';
import { startServer, type TestServer } from './support/server.js';
import { useServer } from './support/use-server.js';

const serve = useServer();
const firstUserText = (s: TestServer, request = 0) =>
  messageText((s.validRequests()[request]!.body.messages as Array<{ content: unknown }>)[0]!.content);

describe('a run through the binary', () => {
  it('answers "What is the current git branch?" from what the command printed', async () => {
    const repo = tempDir();
    execFileSync('git', ['init', '-q', '-b', 'feature-x'], { cwd: repo });
    const s = await serve([bash('git branch --show-current'), answerWithLastResult('The branch is ')]);
    const run = await runAgent(['What is the current git branch?'], s.url, { cwd: repo });
    expect(run.code).toBe(0);
    expect(run.stdout).toBe('The branch is feature-x\n');
    expect(run.stderr).toContain('$ git branch --show-current');
    expect(s.rejections()).toEqual([]);
    const system = JSON.stringify(s.validRequests()[0]!.body.system);
    expect(system).toContain(repo);
    expect(system).toMatch(/non-interactive/);
    expect(system).toMatch(/linux/);
  });

  it('keeps stdout to the answer alone: no echoes, no colour', async () => {
    const s = await serve([bash('echo from-the-command; printf "\\033[31mred\\033[0m"'), answer('just this')]);
    const run = await runAgent(['go'], s.url);
    expect(run.stdout).toBe('just this\n');
    expect(run.stderr).toContain('from-the-command');
    expect(run.stderr).not.toContain('\u001b[');
  });

  it('prints one result object with --output-format json, usage summed from the API', async () => {
    const s = await serve([bash('true'), answer('done')]);
    const run = await runAgent(['--output-format', 'json', 'go'], s.url);
    expect(run.code).toBe(0);
    const result = JSON.parse(run.stdout);
    expect(result).toMatchObject({
      type: 'result',
      subtype: 'success',
      is_error: false,
      result: 'done',
      stop_reason: 'end_turn',
      num_turns: 2,
      commands: 1,
      exit_code: 0,
      model: 'claude-sonnet-5-5',
    });
    expect(result.usage).toEqual(s.totals());
    expect(result.duration_ms).toBeGreaterThan(0);
    expect(result.duration_api_ms).toBeGreaterThan(0);
    expect(run.stdout.trim().split('\n')).toHaveLength(1);
  });

  it('streams newline-delimited JSON events with --output-format stream-json, the result last', async () => {
    const s = await serve([bash('echo hi'), answer('bye')]);
    const run = await runAgent(['--output-format', 'stream-json', 'go'], s.url);
    const lines = run.stdout
      .trim()
      .split('\n')
      .map((line) => JSON.parse(line));
    expect(lines.map((line) => line.type)).toEqual(['system', 'assistant', 'user', 'assistant', 'result']);
    expect(lines.at(-1)).toMatchObject({ subtype: 'success', result: 'bye' });
    expect(lines[2].message.content[0]).toMatchObject({ type: 'tool_result', content: 'hi' });
    expect(Object.keys(lines[1].message).sort()).toEqual([
      'content',
      'id',
      'model',
      'role',
      'stop_reason',
      'stop_sequence',
      'type',
      'usage',
    ]);
  });

  it('takes the prompt from stdin when there are no words', async () => {
    const s = await serve([answer('ok')]);
    const run = await runAgent([], s.url, { stdin: 'summarise this\n' });
    expect(run.code).toBe(0);
    expect(firstUserText(s)).toBe('summarise this\n');
  });

  it('puts piped stdin before the prompt words, fenced and labelled', async () => {
    const s = await serve([answer('ok')]);
    await runAgent(['Review this change'], s.url, { stdin: 'diff --git a/x b/x\n+```code```\n' });
    const text = firstUserText(s);
    expect(text).toMatch(
      /^Piped input \(stdin\):\n````\ndiff --git a\/x b\/x\n\+```code```\n````\n\nReview this change$/,
    );
  });

  it('warns when piped stdin beside prompt words is empty, and goes on with the prompt alone', async () => {
    const s = await serve([answer('ok')]);
    const run = await runAgent(['Review this change'], s.url, { stdin: ' \n' });
    expect(run.code).toBe(0);
    expect(run.stderr).toContain('warning: stdin was empty, so the prompt goes without piped input');
    expect(firstUserText(s)).toBe('Review this change');
  });

  it('says nothing of a stdin that is /dev/null', async () => {
    const s = await serve([answer('ok')]);
    const run = await runAgent(['hello'], s.url, { stdin: 'ignore' });
    expect(run.code).toBe(0);
    expect(run.stderr).not.toContain('stdin');
  });

  it('reads a stdin of /dev/null as empty: without prompt words there is no prompt', async () => {
    const s = await serve([answer('ok')]);
    const run = await runAgent([], s.url, { stdin: 'ignore' });
    expect(run.code).toBe(2);
    expect(run.stderr).toContain('No prompt: stdin was empty');
    const fromFile = await runAgent(['--prompt-file', '-'], s.url, { stdin: 'ignore' });
    expect(fromFile.code).toBe(2);
    expect(fromFile.stderr).toContain('The prompt read from stdin is empty.');
    expect(s.validRequests()).toHaveLength(0);
  });

  it('reads a stdin redirected from a file as piped context', async () => {
    const s = await serve([answer('ok')]);
    const dir = tempDir();
    writeFileSync(join(dir, 'context.txt'), 'the file on stdin\n');
    const child = spawn('sh', ['-c', `'${AGENT_BIN}' 'Summarise' < context.txt`], {
      cwd: dir,
      env: baseEnv(s.url),
      stdio: 'ignore',
    });
    const code = await new Promise((resolve) => child.on('close', resolve));
    expect(code).toBe(0);
    expect(firstUserText(s)).toContain('the file on stdin');
  });

  it('goes on without stdin after 3 s of silence, with a warning', async () => {
    const s = await serve([answer('ok')]);
    const run = await runAgent(['hello'], s.url, { stdin: 'open' });
    expect(run.code).toBe(0);
    expect(run.stderr).toMatch(/stdin gave nothing within 3 s/);
    expect(run.durationMs).toBeGreaterThan(2_900);
    expect(firstUserText(s)).toBe('hello');
  });

  it('never waits on stdin with --no-stdin', async () => {
    const s = await serve([answer('ok')]);
    const run = await runAgent(['--no-stdin', 'hello'], s.url, { stdin: 'open' });
    expect(run.code).toBe(0);
    expect(run.stderr).not.toMatch(/stdin gave nothing/);
    expect(run.durationMs).toBeLessThan(2_900);
    expect(firstUserText(s)).toBe('hello');
  });

  it('reads the prompt from --prompt-file, and from stdin with -f -', async () => {
    const dir = tempDir();
    writeFileSync(join(dir, 'task.md'), 'the task from a file');
    const s = await serve([answer('a'), answer('b')]);
    expect((await runAgent(['-f', 'task.md', '--no-stdin'], s.url, { cwd: dir })).code).toBe(0);
    expect((await runAgent(['--prompt-file', '-'], s.url, { stdin: 'task on stdin' })).code).toBe(0);
    expect([firstUserText(s, 0), firstUserText(s, 1)]).toEqual(['the task from a file', 'task on stdin']);
  });

  it('treats everything after -- as prompt', async () => {
    const s = await serve([answer('ok')]);
    expect((await runAgent(['--', '-n', 'is', 'a', 'flag'], s.url)).code).toBe(0);
    expect(firstUserText(s)).toBe('-n is a flag');
  });

  it('runs commands in --cwd', async () => {
    const dir = tempDir();
    mkdirSync(join(dir, 'inner'));
    const s = await serve([bash('pwd'), answerWithLastResult()]);
    const run = await runAgent(['-C', join(dir, 'inner'), 'where?'], s.url);
    expect(run.stdout).toBe(`${join(dir, 'inner')}\n`);
  });

  it('writes the whole run to --transcript as JSONL, in the session format', async () => {
    const dir = tempDir();
    const s = await serve([bash('echo logged'), answer('fin')]);
    const run = await runAgent(['--output-format', 'json', '--transcript', join(dir, 't.jsonl'), 'go'], s.url);
    const records = readRecords(join(dir, 't.jsonl'));
    expect(records.map((record) => record.type)).toEqual([
      'session',
      'message',
      'request',
      'response',
      'message',
      'command',
      'message',
      'request',
      'response',
      'message',
      'result',
    ]);
    expect(records[0]).toMatchObject({ type: 'session', session_id: JSON.parse(run.stdout).session_id });
    expect(records[1].message).toEqual({ role: 'user', content: 'go' });
    expect(records[2]).toMatchObject({ turn: 1, messages: 1 });
    expect(records[5]).toMatchObject({ command: 'echo logged', result: 'logged', is_error: false, exit_code: 0 });
    expect(records[6].message.role).toBe('user');
    expect(records[7]).toMatchObject({ turn: 2, messages: 3 });
    expect(records[10]).toMatchObject({ type: 'result', result: 'fin' });
    for (const record of records) expect(Date.parse(record.ts)).not.toBeNaN();
  });

  it("shows the model's narration on stderr, each text block on its own line", async () => {
    const s = await serve([
      {
        kind: 'message',
        content: [
          { type: 'text', text: 'First I look.' },
          { type: 'tool_use', name: 'bash', input: { command: 'true' } },
          { type: 'text', text: 'Then I wait.' },
        ],
      },
      answer('done'),
    ]);
    const run = await runAgent(['go'], s.url);
    expect(run.stderr).toContain('First I look.\nThen I wait.\n$ true');
    expect(run.stdout).toBe('done\n');
  });

  it('keeps only warnings and errors with --quiet, and shows full output with --verbose', async () => {
    const s = await serve([
      bash('seq 1 10'),
      answer('q'),
      bash('seq 1 10'),
      answer('v'),
      bash('seq 1 10'),
      answer('n'),
    ]);
    const quiet = await runAgent(['-q', 'go'], s.url);
    expect(quiet.stderr).toBe('');
    const verbose = await runAgent(['-v', 'go'], s.url);
    expect(verbose.stderr).toContain('$ seq 1 10');
    expect(verbose.stderr).toContain('\n10\n');
    const normal = await runAgent(['go'], s.url);
    expect(normal.stderr).toContain('$ seq 1 10');
    expect(normal.stderr).toMatch(/│ 4\n.*6 more lines/s);
    expect(normal.stderr).not.toContain('\n10\n');
  });
});

describe('stdout and concurrency', () => {
  it('delivers a large answer whole to a slow reader', async () => {
    const big = Array.from({ length: 40_000 }, (_, i) => `line ${i} of the answer`).join('\n');
    const s = await serve([answer(big)]);
    const child = spawn(AGENT_BIN, ['go'], {
      cwd: tempDir(),
      env: baseEnv(s.url),
      stdio: ['ignore', 'pipe', 'ignore'],
    });
    child.stdout.pause();
    await new Promise((resolve) => setTimeout(resolve, 1_000));
    let out = '';
    child.stdout.setEncoding('utf8').on('data', (chunk: string) => (out += chunk));
    child.stdout.resume();
    const code = await new Promise((resolve) => child.on('close', resolve));
    expect(code).toBe(0);
    expect(out).toBe(`${big}\n`);
  });

  it('shows the answer once when stdout and stderr are the same pipe', async () => {
    const s = await serve([
      {
        kind: 'message',
        content: [
          { type: 'text', text: 'NARRATION-TEXT' },
          { type: 'tool_use', name: 'bash', input: { command: 'true' } },
        ],
      },
      answer('FINAL-ANSWER-TEXT'),
    ]);
    const child = spawn('sh', ['-c', `'${AGENT_BIN}' go 2>&1`], {
      cwd: tempDir(),
      env: baseEnv(s.url),
      stdio: ['ignore', 'pipe', 'inherit'],
    });
    let out = '';
    child.stdout.setEncoding('utf8').on('data', (chunk: string) => (out += chunk));
    expect(await new Promise((resolve) => child.on('close', resolve))).toBe(0);
    expect(out.split('FINAL-ANSWER-TEXT')).toHaveLength(2);
    expect(out.split('NARRATION-TEXT')).toHaveLength(2);
  });

  it('runs side by side in one directory without sharing state', async () => {
    const dir = tempDir();
    const servers = await Promise.all(
      [1, 2, 3, 4].map((n) => startServer([bash(`echo run-${n} > out-${n}; cat out-${n}`), answerWithLastResult()])),
    );
    try {
      const runs = await Promise.all(servers.map((s) => runAgent(['go'], s.url, { cwd: dir })));
      expect(runs.map((run) => run.stdout)).toEqual(['run-1\n', 'run-2\n', 'run-3\n', 'run-4\n']);
    } finally {
      await Promise.all(servers.map((s) => s.close()));
    }
  });
});

describe('model, credentials and configuration', () => {
  const modelOf = (s: TestServer, i = 0) => s.validRequests()[i]!.body.model;

  it('takes the model from --model, then MODEL_ID, then ANTHROPIC_MODEL, then the default', async () => {
    const s = await serve([answer('1'), answer('2'), answer('3'), answer('4')]);
    await runAgent(['-m', 'flag-model', 'x'], s.url, {
      env: { MODEL_ID: 'id-model', ANTHROPIC_MODEL: 'anthropic-model' },
    });
    await runAgent(['x'], s.url, { env: { MODEL_ID: 'id-model', ANTHROPIC_MODEL: 'anthropic-model' } });
    await runAgent(['x'], s.url, { env: { ANTHROPIC_MODEL: 'anthropic-model' } });
    await runAgent(['x'], s.url);
    expect([0, 1, 2, 3].map((i) => modelOf(s, i))).toEqual([
      'flag-model',
      'id-model',
      'anthropic-model',
      'claude-sonnet-5-5',
    ]);
  });

  it('sends --max-tokens and the system prompt options', async () => {
    const s = await serve([answer('1'), answer('2')]);
    await runAgent(['--max-tokens', '1234', '--append-system-prompt', 'EXTRA RULE', 'x'], s.url);
    await runAgent(['--system-prompt', 'ONLY THIS', 'x'], s.url);
    const [first, second] = s.validRequests();
    expect(first!.body.max_tokens).toBe(1234);
    expect(JSON.stringify(first!.body.system)).toMatch(/non-interactive.*EXTRA RULE/s);
    expect(second!.body.system[0].text).toBe('ONLY THIS');
  });

  it('sends ANTHROPIC_API_KEY, else ANTHROPIC_AUTH_TOKEN, and the API key wins when both are set', async () => {
    const s = await serve([answer('1'), answer('2'), answer('3')]);
    await runAgent(['x'], s.url, { env: { ANTHROPIC_API_KEY: 'the-key' } });
    await runAgent(['x'], s.url, { env: { ANTHROPIC_API_KEY: undefined, ANTHROPIC_AUTH_TOKEN: 'the-token' } });
    await runAgent(['x'], s.url, { env: { ANTHROPIC_API_KEY: 'key-wins', ANTHROPIC_AUTH_TOKEN: 'token-loses' } });
    const auth = s.validRequests().map((r) => ({ key: r.headers['x-api-key'], bearer: r.headers.authorization }));
    expect(auth).toEqual([
      { key: 'the-key', bearer: undefined },
      { key: undefined, bearer: 'Bearer the-token' },
      { key: 'key-wins', bearer: undefined },
    ]);
  });

  it("ignores the SDK's own credential chain: a local profile neither fails the run nor adds a credential", async () => {
    const home = tempDir();
    mkdirSync(join(home, '.config', 'anthropic', 'configs'), { recursive: true });
    const s = await serve([answer('1'), answer('2')]);
    const missing = await runAgent(['x'], s.url, { env: { HOME: home, ANTHROPIC_PROFILE: 'no-such-profile' } });
    expect(missing.code).toBe(0);
    const config = {
      authentication: { type: 'oidc_federation', federation_rule_id: 'r' },
      organization_id: 'o',
      base_url: 'http://127.0.0.1:9',
    };
    writeFileSync(join(home, '.config', 'anthropic', 'configs', 'default.json'), JSON.stringify(config));
    const profiled = await runAgent(['x'], s.url, { env: { HOME: home, ANTHROPIC_IDENTITY_TOKEN: 'identity' } });
    expect(profiled.code).toBe(0);
    expect(s.validRequests().map((r) => [r.headers['x-api-key'], r.headers.authorization])).toEqual([
      ['test-key', undefined],
      ['test-key', undefined],
    ]);
  });

  it('ANTHROPIC_CUSTOM_HEADERS adds headers but never a second credential; from a working-directory .env it is ignored', async () => {
    const s = await serve([answer('1'), answer('2'), answer('3')]);
    const custom = 'Authorization: Bearer other-token\nX-Api-Key: other-key\nX-Gateway-Route: team-a';
    await runAgent(['x'], s.url, { env: { ANTHROPIC_CUSTOM_HEADERS: custom } });
    await runAgent(['x'], s.url, {
      env: { ANTHROPIC_API_KEY: undefined, ANTHROPIC_AUTH_TOKEN: 'the-token', ANTHROPIC_CUSTOM_HEADERS: custom },
    });
    const dir = tempDir();
    writeFileSync(
      join(dir, '.env'),
      'ANTHROPIC_CUSTOM_HEADERS="Authorization: Bearer from-the-repo\nX-Injected: yes"\n',
    );
    const fromRepo = await runAgent(['x'], s.url, { cwd: dir });
    expect(fromRepo.stderr).toContain(
      `warning: ignoring ANTHROPIC_CUSTOM_HEADERS from ${join(dir, '.env')} (ANTHROPIC_CUSTOM_HEADERS: ANTHROPIC_API_KEY comes from the environment`,
    );
    const seen = s
      .validRequests()
      .map((r) => [
        r.headers['x-api-key'],
        r.headers.authorization,
        r.headers['x-gateway-route'],
        r.headers['x-injected'],
      ]);
    expect(seen).toEqual([
      ['test-key', undefined, 'team-a', undefined],
      [undefined, 'Bearer the-token', 'team-a', undefined],
      ['test-key', undefined, undefined, undefined],
    ]);
  });

  it("says the SDK's deprecation notice once, as a warning, also with -q", async () => {
    const s = await serve([bash('true'), bash('true'), answer('done')]);
    const run = await runAgent(['-q', '-m', 'claude-sonnet-4-5', 'x'], s.url);
    expect(run.code).toBe(0);
    const lines = run.stderr.split('\n').filter((line) => line.includes('deprecated'));
    expect(lines).toEqual([
      expect.stringMatching(
        /^warning: The model 'claude-sonnet-4-5' is deprecated and will reach end-of-life on .+ Please migrate/,
      ),
    ]);
  });

  it('never shows the credentials to commands', async () => {
    const s = await serve([bash('echo "key=[${ANTHROPIC_API_KEY:-}]"'), answerWithLastResult()]);
    const run = await runAgent(['x'], s.url, { env: { ANTHROPIC_API_KEY: 'secret-key' } });
    expect(run.stdout).toBe('key=[]\n');
  });

  it('fills in from .env only what the real environment lacks', async () => {
    const dir = tempDir();
    writeFileSync(join(dir, '.env'), 'ANTHROPIC_API_KEY=dotenv-key\nMODEL_ID=dotenv-model\n');
    const s = await serve([answer('1'), answer('2')], { requireAuth: { apiKey: 'real-key' } });
    const real = await runAgent(['x'], s.url, { cwd: dir, env: { ANTHROPIC_API_KEY: 'real-key' } });
    expect(real.code).toBe(0);
    expect(modelOf(s)).toBe('dotenv-model');
    const fromFile = await runAgent(['x'], s.url, { cwd: dir, env: { ANTHROPIC_API_KEY: undefined } });
    expect(fromFile.code).toBe(3); // dotenv-key is sent, and this server only takes real-key
    expect(fromFile.stderr).toMatch(/401/);
  });

  it('loads --env-file, and a missing one is a usage error', async () => {
    const dir = tempDir();
    writeFileSync(join(dir, 'ci.env'), 'ANTHROPIC_AUTH_TOKEN=file-token\n');
    const s = await serve([answer('ok')]);
    const run = await runAgent(['--env-file', join(dir, 'ci.env'), 'x'], s.url, {
      env: { ANTHROPIC_API_KEY: undefined },
    });
    expect(run.code).toBe(0);
    expect(s.validRequests()[0]!.headers.authorization).toBe('Bearer file-token');
    const missing = await runAgent(['--env-file', join(dir, 'nope.env'), 'x'], s.url);
    expect(missing.code).toBe(2);
    expect(missing.stderr).toMatch(/Cannot read env file .*nope\.env/);
  });
});

describe('usage errors: exit 2, a plain message, no request', () => {
  const cases: Array<[string, string[], Record<string, string | undefined>, RegExp, string?]> = [
    ['no prompt and an empty stdin', [], {}, /No prompt/],
    ['an unknown flag', ['--bogus', 'x'], {}, /unknown option '--bogus'/],
    ['a non-integer --max-turns', ['--max-turns', 'abc', 'x'], {}, /--max-turns must be a positive whole number/],
    ['a zero --timeout', ['--timeout', '0', 'x'], {}, /--timeout must be a positive whole number/],
    [
      'an unknown output format',
      ['--output-format', 'xml', 'x'],
      {},
      /--output-format must be one of text, json, stream-json/,
    ],
    ['a missing working directory', ['-C', '/nonexistent/dir', 'x'], {}, /does not exist/],
    [
      'an unreadable prompt file',
      ['-f', '/nonexistent/prompt.md'],
      {},
      /Cannot read prompt file \/nonexistent\/prompt.md: no such file\./,
    ],
    [
      'a transcript in a missing directory',
      ['--transcript', '/nonexistent/dir/t.jsonl', 'x'],
      {},
      /Cannot write transcript \/nonexistent\/dir\/t.jsonl: no such file\./,
    ],
    [
      'an env file that is a directory',
      ['--env-file', '/tmp', 'x'],
      {},
      /Cannot read env file \/tmp: it is a directory\./,
    ],
    ['no credentials', ['x'], { ANTHROPIC_API_KEY: undefined }, /ANTHROPIC_API_KEY/],
    ['a bad base URL', ['x'], { ANTHROPIC_BASE_URL: 'not a url' }, /ANTHROPIC_BASE_URL/],
    ['words and --prompt-file together', ['-f', 'x.md', 'words'], {}, /either as words or with --prompt-file/],
  ];
  it.each(cases)('%s', async (_name, args, env, message) => {
    const s = await serve([answer('never')]);
    const run = await runAgent(args, s.url, { env });
    expect(run.code).toBe(2);
    expect(run.stderr).toMatch(message);
    expect(run.stderr).not.toMatch(/\n\s+at /); // no stack trace
    expect(run.stdout).toBe('');
    expect(s.requests).toHaveLength(0);
  });

  it('an empty piped stdin is exit 2 at once', async () => {
    const s = await serve([answer('never')]);
    const run = await runAgent([], s.url, { stdin: '   \n' });
    expect(run.code).toBe(2);
    expect(run.stderr).toMatch(/stdin was empty/);
  });

  it.each([
    ['a bad value', ['--output-format', 'json', '--max-turns', 'x', 'go'], /--max-turns/],
    ['an unknown flag', ['--output-format=json', '--bogus', 'go'], /unknown option '--bogus'/],
    ['a missing argument', ['--output-format', 'stream-json', 'go', '--max-turns'], /argument missing/],
  ])('still prints a result object in json modes: %s', async (_name, args, message) => {
    const s = await serve([answer('never')]);
    const run = await runAgent(args, s.url);
    expect(run.code).toBe(2);
    const result = JSON.parse(run.stdout);
    expect(result).toMatchObject({ type: 'result', subtype: 'error_usage', is_error: true, exit_code: 2 });
    expect(result.error).toMatch(message);
    expect(run.stderr).toMatch(message);
  });

  it('prints help and version on stdout with exit 0', async () => {
    const s = await serve([]);
    const help = await runAgent(['--help'], s.url);
    expect(help.code).toBe(0);
    expect(help.stdout).toMatch(/--output-format/);
    const version = await runAgent(['--version'], s.url);
    expect(version.code).toBe(0);
    expect(version.stdout).toMatch(/^\d+\.\d+\.\d+\n$/);
  });
});
