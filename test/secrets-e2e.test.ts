// Secrets through the real binary: the commands' environment, output masking, and what reaches the model,
// the transcript, stderr and stdout. The home directory under --sandbox is in sandbox-home-e2e.test.ts.
import { readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { answer, bash, messageText, runAgent, tempDir, toolResults } from './support/run-agent.js';
import type { RecordedRequest, TestServer, Turn } from './support/server.js';
import { useServer } from './support/use-server.js';

const serve = useServer();
const dirs: string[] = [];
afterEach(() => {
  for (const dir of dirs.splice(0)) rmSync(dir, { recursive: true, force: true });
});
function workDir(): string {
  const dir = tempDir('agent-secrets-');
  dirs.push(dir);
  return dir;
}

const SECRETS = {
  GITHUB_TOKEN: 'ghp_e2eSecretValue0123456789',
  // Regex characters in a value mean nothing special.
  AWS_SECRET_ACCESS_KEY: 'wJalr+XUtn(FEMI)/K7MDENG.*bPxRfiCY$EXAMPLE',
  DATABASE_URL: 'postgres://app:pw-9f8e7d6c5b@db.internal/app',
  // A value of several lines.
  DEPLOY_PRIVATE_KEY: '-----BEGIN TEST KEY-----\nQmFzZTY0Qm9keU9mVGhlS2V5\n-----END TEST KEY-----',
  // Under 8 characters: withheld, but not masked.
  SHORT_TOKEN: 'ab12',
};
const API_KEY = 'sk-test-e2e-0123456789abcdef';
const ENV = { ...SECRETS, ANTHROPIC_API_KEY: API_KEY };
/** The values that must never show: every long secret, each line of the multi-line one, and the API key. */
const FORBIDDEN = [
  SECRETS.GITHUB_TOKEN,
  SECRETS.AWS_SECRET_ACCESS_KEY,
  SECRETS.DATABASE_URL,
  'pw-9f8e7d6c5b',
  'QmFzZTY0Qm9keU9mVGhlS2V5',
  API_KEY,
];

function expectNoSecret(text: string, where: string): void {
  for (const value of FORBIDDEN) {
    if (text.includes(value))
      throw new Error(`${where} shows the secret ${JSON.stringify(value)}:\n${text.slice(0, 4_000)}`);
  }
}

/** Every tool result of the conversation so far, in order. */
function allResults(request: RecordedRequest): string[] {
  const messages = request.body.messages as Array<{ role: string; content: unknown }>;
  return messages.flatMap((message) =>
    Array.isArray(message.content)
      ? (message.content as Array<{ type: string; content?: unknown }>)
          .filter((block) => block.type === 'tool_result')
          .map((block) => messageText(block.content))
      : [],
  );
}

/** The model's final answer repeats everything its commands printed, so stdout carries it too. */
const answerWithAllResults: Turn = (request) => answer(allResults(request).join('\n---\n'));

const resultsOf = (s: TestServer) =>
  s
    .validRequests()
    .slice(1)
    .map((request) => toolResults(request)[0]!.content);

/** A file in the working directory that holds the secrets' values, as a config file or a log might. */
function writeLeakyFile(dir: string): void {
  writeFileSync(join(dir, 'leaked.txt'), `${Object.values(SECRETS).join('\n')}\napi=${API_KEY}\n`);
}

describe('the commands never get a secret value back', () => {
  const script = (): Turn[] => [
    bash('env'),
    bash('printenv GITHUB_TOKEN; echo "printenv status $?"'),
    bash('cat leaked.txt'),
    answerWithAllResults,
  ];

  it('through env, printenv and cat, nor does stdout or the transcript (text)', async () => {
    const dir = workDir();
    writeLeakyFile(dir);
    const s = await serve(script());
    const transcriptPath = join(dir, 'run.jsonl');
    const run = await runAgent(['--transcript', transcriptPath, 'go'], s.url, { cwd: dir, env: ENV });
    expect(run.code).toBe(0);
    const [env, printenv, cat] = resultsOf(s);

    expect(env).toContain('PATH=');
    for (const name of [...Object.keys(SECRETS), 'ANTHROPIC_API_KEY']) expect(env).not.toContain(`${name}=`);
    expect(printenv).toBe('printenv status 1');
    expect(cat).toContain('[redacted: GITHUB_TOKEN]');
    expect(cat).toContain('[redacted: AWS_SECRET_ACCESS_KEY]');
    expect(cat).toContain('[redacted: DATABASE_URL]');
    expect(cat).toContain('[redacted: DEPLOY_PRIVATE_KEY]');
    expect(cat).toContain(`api=[redacted: ANTHROPIC_API_KEY]`);
    expect(cat).toContain('\nab12\n'); // too short to mask: documented

    for (const request of s.validRequests()) expectNoSecret(JSON.stringify(request.body), 'a request to the model');
    expectNoSecret(readFileSync(transcriptPath, 'utf8'), 'the transcript');
    expectNoSecret(run.stdout, 'stdout');
    expectNoSecret(run.stderr, 'stderr');
    expect(run.stdout).toContain('[redacted: GITHUB_TOKEN]');
    expect(run.stderr).not.toContain('withheld'); // the list is for -v only
  });

  it.each(['json', 'stream-json'])('nor does stdout with --output-format %s', async (format) => {
    const dir = workDir();
    writeLeakyFile(dir);
    const s = await serve(script());
    const run = await runAgent(['--output-format', format, 'go'], s.url, { cwd: dir, env: ENV });
    expect(run.code).toBe(0);
    expectNoSecret(run.stdout, 'stdout');
    expect(run.stdout).toContain('[redacted: AWS_SECRET_ACCESS_KEY]');
    const lines = run.stdout
      .trim()
      .split('\n')
      .map((line) => JSON.parse(line) as { type: string; result?: string });
    expect(lines.at(-1)!.result).toContain('[redacted: GITHUB_TOKEN]');
  });

  it('nor does the live output and the withheld list of -v, which names the variables', async () => {
    const dir = workDir();
    writeLeakyFile(dir);
    const s = await serve(script());
    const run = await runAgent(['-v', 'go'], s.url, { cwd: dir, env: ENV });
    expect(run.code).toBe(0);
    expectNoSecret(run.stderr, 'stderr');
    const listed = /withheld from the commands' environment: (.*)/.exec(run.stderr)?.[1] ?? '';
    for (const name of [...Object.keys(SECRETS), 'ANTHROPIC_API_KEY']) expect(listed).toContain(name);
    expect(listed).toMatch(/too short to mask in output \(under 8 characters\): SHORT_TOKEN$/);
    expect(listed).not.toContain('PATH');
    expect(run.stderr).toContain('[redacted: GITHUB_TOKEN]');
  });

  it("masks the secrets of the working directory's .env, which the commands' environment never gets", async () => {
    const dir = workDir();
    writeFileSync(join(dir, '.env'), 'DEPLOY_TOKEN=dotenvSecret-0123456789\nPLAIN_SETTING=visible\n');
    const s = await serve([bash('env | grep -E "DEPLOY|PLAIN"; cat .env'), answer('done')]);
    const run = await runAgent(['go'], s.url, { cwd: dir });
    expect(run.code).toBe(0);
    const [result] = resultsOf(s);
    expect(result).toBe('DEPLOY_TOKEN=[redacted: DEPLOY_TOKEN]\nPLAIN_SETTING=visible');
  });

  it('withholds and masks secrets that came from a --env-file', async () => {
    const dir = workDir();
    writeFileSync(join(dir, 'ci.env'), 'DEPLOY_TOKEN=dotenvSecret-0123456789\nPLAIN_SETTING=visible\n');
    const s = await serve([bash('env | grep -E "DEPLOY|PLAIN"; cat ci.env'), answer('done')]);
    const run = await runAgent(['--env-file', 'ci.env', 'go'], s.url, { cwd: dir });
    expect(run.code).toBe(0);
    const [result] = resultsOf(s);
    expect(result).toBe('PLAIN_SETTING=visible\nDEPLOY_TOKEN=[redacted: DEPLOY_TOKEN]\nPLAIN_SETTING=visible');
  });
});

describe('masking holds where output is split or cut', () => {
  it('masks a value printed in two pieces a moment apart', async () => {
    const dir = workDir();
    const value = SECRETS.GITHUB_TOKEN;
    const [first, second] = [value.slice(0, 10), value.slice(10)];
    const s = await serve([
      bash(`printf 'token=%s' '${first}'; sleep 0.3; printf '%s!\\n' '${second}'`),
      answer('done'),
    ]);
    const run = await runAgent(['-v', 'go'], s.url, { cwd: dir, env: ENV });
    expect(run.code).toBe(0);
    expect(resultsOf(s)[0]).toBe('token=[redacted: GITHUB_TOKEN]!');
  });

  it('masks values in the head, the tail and the full-output file of output cut to head and tail', async () => {
    const dir = workDir();
    writeLeakyFile(dir);
    const s = await serve([
      bash('cat leaked.txt; seq 1 30000; cat leaked.txt'),
      (request) => {
        const spill = /is in (\S+) \.\.\.\]/.exec(toolResults(request)[0]!.content)?.[1] ?? 'no-spill-file';
        return bash(`grep -c -F -e '${SECRETS.GITHUB_TOKEN}' ${spill}; grep -c -F '[redacted: GITHUB_TOKEN]' ${spill}`);
      },
      answer('done'),
    ]);
    const run = await runAgent(['go'], s.url, { cwd: dir, env: ENV });
    expect(run.code).toBe(0);
    const [cut, counts] = resultsOf(s);
    expect(cut).toMatch(/characters \([\d,]+ lines\) omitted/);
    expectNoSecret(cut!, 'the cut result');
    expect(cut!.startsWith('[redacted: GITHUB_TOKEN]\n')).toBe(true);
    expect(cut).toMatch(/\napi=\[redacted: ANTHROPIC_API_KEY\]$/);
    // The full-output file holds no value, and both copies masked.
    expect(counts).toBe('0\n2');
  });
});

describe('--pass-env', () => {
  it('lets the named variables through, unmasked, and never the API credential', async () => {
    const dir = workDir();
    const s = await serve([
      bash(
        'printenv GITHUB_TOKEN; printenv DATABASE_URL; printenv AWS_SECRET_ACCESS_KEY; echo "api=[${ANTHROPIC_API_KEY:-}]"',
      ),
      answer('done'),
    ]);
    const run = await runAgent(
      ['--pass-env', 'GITHUB_TOKEN', '--pass-env', 'DATA*_URL', '--pass-env', 'ANTHROPIC_*', 'go'],
      s.url,
      {
        cwd: dir,
        env: ENV,
      },
    );
    expect(run.code).toBe(0);
    expect(resultsOf(s)[0]).toBe(`${SECRETS.GITHUB_TOKEN}\n${SECRETS.DATABASE_URL}\napi=[]`);
  });

  it.each([
    ['[abc', /--pass-env: invalid glob '\[abc': unclosed '\['/],
    ['GITHUB_TOKEN=x', /a variable name cannot contain '='/],
    ['', /--pass-env needs a variable name/],
  ])('rejects %j with exit 2 before any request', async (glob, message) => {
    const dir = workDir();
    const s = await serve([answer('never')]);
    const run = await runAgent(['--pass-env', glob, '--output-format', 'json', 'go'], s.url, { cwd: dir, env: ENV });
    expect(run.code).toBe(2);
    expect(run.stderr).toMatch(message);
    expect(run.stderr.trim().split('\n').length).toBeLessThanOrEqual(2);
    expect(JSON.parse(run.stdout)).toMatchObject({ is_error: true, subtype: 'error_usage' });
    expect(s.requests).toHaveLength(0);
  });
});
