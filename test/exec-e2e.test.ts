// The bash tool through the real binary: bin/agent spawned as a process, talking through the real SDK
// to the scripted test server. test/exec.test.ts covers the executor directly; this proves the wiring.
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { isRunning, waitUntil } from './support/processes.js';
import { answer, answerWithLastResult, bash, runAgent, tempDir, toolResults } from './support/run-agent.js';
import { type RecordedRequest, type TestServer, type Turn } from './support/server.js';
import { useServer } from './support/use-server.js';

const RAW_CONTROL = /[\x00-\x08\x0b-\x1f\x7f-\x9f]/;
const MARKER =
  /\[\.\.\. [\d,]+ characters \([\d,]+ lines\) omitted; the full output \([\d,]+ characters\) is in (\S+) \.\.\.\]/;

const serve = useServer();

function readPid(file: string): number {
  const pid = Number(readFileSync(file, 'utf8').trim());
  expect(pid).toBeGreaterThan(1);
  return pid;
}

/** The results the model got, request by request (the first request carries none). */
const resultsOf = (s: TestServer) =>
  s
    .validRequests()
    .slice(1)
    .map((request) => toolResults(request)[0]!);

describe('finishing', () => {
  it('returns at once from `sleep 30 & echo started`, and the sleep does not outlive the run', async () => {
    const dir = tempDir();
    const seen: number[] = [];
    const at =
      (turn: Turn): Turn =>
      (request: RecordedRequest) => (seen.push(performance.now()), typeof turn === 'function' ? turn(request) : turn);
    const s = await serve([at(bash('sleep 30 & echo $! > bg.pid; echo started')), at(answerWithLastResult())]);
    const run = await runAgent(['go'], s.url, { cwd: dir });
    expect(run.code).toBe(0);
    expect(run.stdout).toBe('started\n');
    expect(run.durationMs).toBeLessThan(5000);
    // From the first response to the request carrying the result: the command plus one client round trip.
    expect(seen[1]! - seen[0]!).toBeLessThan(2000);
    expect(await waitUntil(() => !isRunning(readPid(join(dir, 'bg.pid'))), 2000)).toBe(true);
  });

  it('kills a timed-out command together with its grandchild', async () => {
    const dir = tempDir();
    let goneWhenReported = false;
    const s = await serve([
      bash(`echo before; bash -c 'sleep 300 & echo $! > grandchild.pid; wait'`),
      // Not merely at the end of the run: the group is already dead when the model is told of the timeout.
      async () => (
        (goneWhenReported = await waitUntil(() => !isRunning(readPid(join(dir, 'grandchild.pid'))), 200)), answer('ok')
      ),
    ]);
    const run = await runAgent(['-t', '1', 'go'], s.url, { cwd: dir });
    expect(run.code).toBe(0);
    expect(run.durationMs).toBeLessThan(6000);
    const [result] = resultsOf(s);
    expect(result!.is_error).toBe(true);
    expect(result!.content).toMatch(/^before\ntimed out after 1 s/);
    expect(goneWhenReported).toBe(true);
  });

  it.each([
    ['the prompt came in on stdin', [] as string[], { stdin: 'read the input\n' }],
    ["the agent's stdin is a pipe left open", ['--no-stdin', 'go'], { stdin: 'open' as const }],
  ])('gives cat, read and python input() an immediate EOF when %s', async (_case, args, options) => {
    const s = await serve([
      {
        kind: 'message',
        content: [
          { type: 'tool_use', name: 'bash', input: { command: 'cat' } },
          { type: 'tool_use', name: 'bash', input: { command: 'read x; echo "read status $? [$x]"' } },
          { type: 'tool_use', name: 'bash', input: { command: `python3 -c 'input()' 2>&1 | tail -n 1` } },
        ],
      },
      answer('ok'),
    ]);
    const run = await runAgent(['-t', '5', ...args], s.url, options);
    expect(run.code).toBe(0);
    expect(run.durationMs).toBeLessThan(4000);
    const contents = toolResults(s.validRequests()[1]!).map((result) => result.content);
    expect(contents).toEqual(['(no output)', 'read status 1 []', 'EOFError: EOF when reading a line']);
  });
});

describe('output', () => {
  it('sends `seq 1 3000000` as head and tail with a marker naming a file that holds all of it', async () => {
    const s = await serve([
      bash('seq 1 3000000'),
      (request) => {
        const path = MARKER.exec(toolResults(request)[0]!.content)?.[1] ?? '/marker-not-found';
        return bash(`wc -l < ${path}; tail -n 1 ${path}`);
      },
      answer('ok'),
    ]);
    const run = await runAgent(['go'], s.url, { timeoutMs: 30_000 });
    expect(run.code).toBe(0);
    const [flood, check] = resultsOf(s);
    expect(flood!.content.length).toBeLessThanOrEqual(30_000);
    expect(flood!.content).toMatch(/^1\n2\n3\n/);
    expect(flood!.content).toMatch(/\n2999999\n3000000$/);
    expect(flood!.content).toMatch(MARKER);
    expect(flood!.content).toContain('22,888,896 characters)');
    expect(check!.content).toBe('3000000\n3000000');
  });

  it('keeps the process small while a command prints 500 MB', async () => {
    const s = await serve([
      bash(`yes 'a line of flood output, 48 bytes long.........' | head -c 500000000; echo; echo end`),
      answer('ok'),
    ]);
    let peakKb = 0;
    let poller: NodeJS.Timeout | undefined;
    const run = await runAgent(['go'], s.url, {
      nodeArgs: ['--max-old-space-size=64'],
      timeoutMs: 60_000,
      onSpawn: (child) => {
        poller = setInterval(() => {
          try {
            const kb = Number(/VmHWM:\s+(\d+) kB/.exec(readFileSync(`/proc/${child.pid}/status`, 'utf8'))?.[1] ?? 0);
            peakKb = Math.max(peakKb, kb);
          } catch {
            // exited
          }
        }, 50);
      },
    });
    clearInterval(poller);
    expect(run.code).toBe(0);
    const [result] = resultsOf(s);
    expect(result!.content).toMatch(/omitted; the full output \(500,000,005 characters\)/);
    expect(result!.content).toMatch(/\nend$/);
    expect(peakKb).toBeGreaterThan(10_000); // the poller did see the process
    expect(peakKb).toBeLessThan(150_000);
  }, 60_000);

  it('turns binary, colour, silence and exit codes into text the API accepts', async () => {
    const commands = [
      'head -c 4000 /dev/urandom',
      `printf '\\033[1;31mred\\033[0m and \\033]0;title\\007plain\\n'`,
      'true',
      'echo last words; exit 7',
    ];
    const s = await serve([
      {
        kind: 'message',
        content: commands.map((command) => ({ type: 'tool_use' as const, name: 'bash', input: { command } })),
      },
      answer('ok'),
    ]);
    const run = await runAgent(['go'], s.url);
    expect(run.code).toBe(0);
    expect(s.rejections()).toEqual([]);
    const [binary, colour, empty, failed] = toolResults(s.validRequests()[1]!);
    expect(binary!.content.length).toBeGreaterThan(100);
    expect(binary!.content).not.toMatch(RAW_CONTROL);
    expect(binary!.is_error).toBeUndefined();
    expect(colour!.content).toBe('red and plain');
    expect(empty!.content).toBe('(no output)');
    expect(failed!.content).toBe('last words\nexit code: 7');
    expect(failed!.is_error).toBeUndefined();
  });
});

describe('directory and timeouts', () => {
  it('carries `cd` over to the next command, and falls back with a note when the directory is removed', async () => {
    const dir = tempDir();
    const s = await serve([
      bash('mkdir -p sub && cd sub'),
      bash('pwd'),
      bash('rmdir "$PWD"'),
      bash('pwd'),
      answer('ok'),
    ]);
    const run = await runAgent(['go'], s.url, { cwd: dir });
    expect(run.code).toBe(0);
    const [, inSub, , fallback] = resultsOf(s);
    expect(inSub!.content).toBe(join(dir, 'sub'));
    expect(fallback!.content).toBe(
      `${dir}\nnote: the directory ${join(dir, 'sub')} no longer exists; this command ran in ${dir}`,
    );
  });

  it('leaves no survivor from a subshell background job, a nohup job or a new session', async () => {
    const dir = tempDir();
    const s = await serve([
      bash('(sleep 100 & echo $! > p1)'),
      bash('nohup sleep 100 > /dev/null 2>&1 & echo $! > p2'),
      bash('setsid sleep 100 > /dev/null 2>&1 & echo $! > p3'),
      answer('ok'),
    ]);
    const run = await runAgent(['go'], s.url, { cwd: dir });
    expect(run.code).toBe(0);
    for (const file of ['p1', 'p2', 'p3']) {
      const pid = readPid(join(dir, file));
      expect(await waitUntil(() => !isRunning(pid), 2000), `${file} (pid ${pid}) still running`).toBe(true);
    }
  });

  it('lets the model ask for more time than -t, up to --max-timeout', async () => {
    const s = await serve([
      bash('sleep 2; echo woke', { timeout: 3 }),
      bash('sleep 5; echo never', { timeout: 60 }),
      answer('ok'),
    ]);
    const run = await runAgent(['-t', '1', '--max-timeout', '3', 'go'], s.url);
    expect(run.code).toBe(0);
    const [longer, clamped] = resultsOf(s);
    expect(longer).toEqual({ tool_use_id: expect.any(String), content: 'woke' });
    expect(clamped!.is_error).toBe(true);
    expect(clamped!.content).toMatch(/^\(no output\)\ntimed out after 3 s/);
  });

  it('--max-timeout alone also caps the default limit: no command runs longer', async () => {
    const s = await serve([bash('sleep 5; echo never'), answer('ok')]);
    const run = await runAgent(['--max-timeout', '1', 'go'], s.url);
    expect(run.code).toBe(0);
    expect(resultsOf(s)[0]!.content).toMatch(/^\(no output\)\ntimed out after 1 s/);
  });

  it('-t longer than --max-timeout: exit 2, saying what to change, no request sent', async () => {
    const s = await serve([answer('never')]);
    const run = await runAgent(['-t', '5', '--max-timeout', '2', 'go'], s.url);
    expect(run.code).toBe(2);
    expect(run.stderr).toContain('--timeout 5 is longer than --max-timeout 2, the longest limit a command may have.');
    expect(run.stderr).toContain('Give a --timeout of at most 2, or raise --max-timeout.');
    expect(s.requests).toHaveLength(0);
  });
});

describe('the environment', () => {
  it('gives every command, and what it starts, the non-interactive settings over those of the run', async () => {
    const s = await serve([
      bash('echo "$PAGER $GIT_PAGER $GIT_TERMINAL_PROMPT $TERM $EDITOR"; bash -c \'echo "child: $PAGER $TERM"\''),
      answer('done'),
    ]);
    const run = await runAgent(['go'], s.url, {
      cwd: tempDir(),
      env: { PAGER: 'less', GIT_PAGER: 'delta', TERM: 'xterm-256color', EDITOR: 'vim' },
    });
    expect(run.code).toBe(0);
    expect(resultsOf(s)[0]!.content).toBe('cat cat 0 dumb true\nchild: cat dumb');
  });
});
