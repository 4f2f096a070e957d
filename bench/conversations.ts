// Figures that need whole conversations: peak memory under a flood of output, the token bill with
// and without caching, and a long run against a server that enforces its context window.

import { mkdtempSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { billedEquivalentInput } from '../src/api/usage.js';
import { numberedLinesCommand } from '../test/support/bench-workloads.js';
import { answer, bash, tempDir } from '../test/support/run-agent.js';
import { countTokens, startServer, type TestServer, type Turn } from '../test/support/server.js';
import { agentEnv, expectRun, type Figure } from './figures.js';
import { AGENT_BIN, timedRun, type Finished } from './measure.js';
import { AGENTS_MD_BYTES, TOKEN_RUN_DESCRIPTION, tokenRunScript, writeProject } from './fixture.js';

interface ScriptedRun {
  run: Finished;
  server: TestServer;
}

async function runScript(
  script: Turn[],
  args: string[],
  cwd: string,
  tmp: string,
  options: { contextWindow?: number; sampleRss?: boolean } = {},
): Promise<ScriptedRun> {
  const server = await startServer(script, options.contextWindow ? { contextWindow: options.contextWindow } : {});
  try {
    const run = await timedRun(AGENT_BIN, args, {
      env: agentEnv(server.url, tmp),
      cwd,
      sampleRss: options.sampleRss ?? false,
    });
    return { run, server };
  } finally {
    await server.close();
  }
}

const FLOOD_BYTES = 1_000_000_000;
const FLOOD_COMMAND = `head -c ${FLOOD_BYTES} /dev/zero | tr '\\0' 'a'`;

/** Peak RSS of the agent's own process while its one command prints 1 GB; the highest of the runs. */
export async function measureFloodRss(repetitions: number, tmp: string): Promise<Figure> {
  const peaksMb: number[] = [];
  const printedChars: number[] = [];
  const walls: number[] = [];
  let processName: string | undefined;
  for (let i = 0; i < repetitions; i++) {
    const runTmp = mkdtempSync(join(tmp, 'flood-'));
    try {
      const { run, server } = await runScript(
        [bash(FLOOD_COMMAND), answer('done')],
        ['-q', 'print a lot'],
        tmp,
        runTmp,
        { sampleRss: true },
      );
      const printed = charsPrinted(server.validRequests()[1]?.body);
      expectRun('1 GB flood run', run.code === 0 && run.peakRssKb !== undefined && printed >= FLOOD_BYTES * 0.99, run);
      peaksMb.push(run.peakRssKb! / 1024);
      processName = run.processName;
      printedChars.push(printed);
      walls.push(run.wallMs);
    } finally {
      rmSync(runTmp, { recursive: true, force: true });
    }
  }
  const peak = Math.max(...peaksMb);
  return {
    id: 'flood_peak_rss',
    label: 'peak RSS while a command prints 1 GB',
    value: peak,
    unit: 'MB',
    target: '≤ 120 MB',
    pass: peak <= 120,
    detail:
      `highest VmHWM of ${repetitions} runs of \`${FLOOD_COMMAND}\` (process "${processName}"), polled from /proc every 5 ms; ` +
      `the model was told of ${(Math.min(...printedChars) / 1e6).toFixed(0)} M characters; run ${(Math.min(...walls) / 1000).toFixed(1)} s`,
    data: { peaksMb, printedChars, wallMs: walls, processName },
  };
}

/** Characters the command printed, as the tool result reports them: what it kept plus what its marker says it left out. */
function charsPrinted(body: unknown): number {
  const messages = (body as { messages?: Array<{ content: unknown }> } | undefined)?.messages ?? [];
  const content = JSON.stringify(messages.at(-1)?.content ?? '');
  const omitted = /\[\.\.\. ([\d,]+) characters/.exec(content)?.[1];
  return omitted === undefined ? 0 : Number(omitted.replace(/,/g, '')) + content.length;
}

interface Bill {
  usage: {
    input_tokens: number;
    output_tokens: number;
    cache_creation_input_tokens: number;
    cache_read_input_tokens: number;
  };
  billed: number;
}

/** The bill of the result object's usage, at the plain input price (src/api/usage.ts). */
function billOf(stdout: string): Bill {
  const usage = (JSON.parse(stdout) as { usage: Bill['usage'] }).usage;
  return { usage, billed: billedEquivalentInput(usage) };
}

/** Share of the input tokens that were read from the cache. */
function cachedShare({ usage }: Bill): number {
  return (
    usage.cache_read_input_tokens /
    (usage.input_tokens + usage.cache_creation_input_tokens + usage.cache_read_input_tokens)
  );
}

/**
 * The same 12-turn run with caching on and with --no-cache, each against a fresh server cache; with `agentsMd`, the
 * project has an AGENTS.md, which goes into the system prompt.
 */
export async function measureCachingBill(tmp: string, { agentsMd = false } = {}): Promise<Figure> {
  const project = tempDir('agent-bench-project-');
  writeProject(project, { agentsMd });
  const bills: Record<'cached' | 'uncached', Bill> = {} as Record<'cached' | 'uncached', Bill>;
  try {
    for (const [name, extra] of [
      ['cached', []],
      ['uncached', ['--no-cache']],
    ] as const) {
      const { run, server } = await runScript(
        tokenRunScript(),
        ['--output-format', 'json', ...extra, 'explore the project'],
        project,
        tmp,
      );
      expectRun(
        `12-turn ${name} run`,
        run.code === 0 && server.validRequests().length === 12 && server.rejections().length === 0,
        run,
      );
      bills[name] = billOf(run.stdout);
    }
  } finally {
    rmSync(project, { recursive: true, force: true });
  }
  const ratio = bills.cached.billed / bills.uncached.billed;
  const share = cachedShare(bills.cached);
  return {
    id: agentsMd ? 'cache_bill_ratio_agents_md' : 'cache_bill_ratio',
    label: `billed-equivalent input tokens, cached ÷ --no-cache${agentsMd ? ', with an AGENTS.md' : ''}`,
    value: ratio,
    unit: '×',
    target: '≤ 0.30',
    pass: ratio <= 0.3,
    detail:
      `${Math.round(bills.cached.billed)} vs ${Math.round(bills.uncached.billed)} tokens, ${(share * 100).toFixed(1)}% of the input read from the cache; ` +
      `${TOKEN_RUN_DESCRIPTION}${agentsMd ? `; the project has a ${AGENTS_MD_BYTES.toLocaleString('en-US')}-byte AGENTS.md` : ''}`,
    data: { cached: bills.cached, uncached: bills.uncached, cachedShare: share },
  };
}

const LONG_TURNS = 45;
const WINDOW = 200_000;

/** 45 commands of 28,000 characters each against a server that rejects prompts over 200k tokens. */
export async function measureLongRun(tmp: string): Promise<Figure> {
  const script: Turn[] = [
    ...Array.from({ length: LONG_TURNS }, (_, turn) => bash(numberedLinesCommand(turn))),
    answer('done'),
  ];
  const { run, server } = await runScript(script, ['--output-format', 'json', 'read every output'], tmp, tmp, {
    contextWindow: WINDOW,
  });
  const rejected = server.rejections().length;
  const prompts = server.validRequests().map((request) => countTokens(request.body));
  const completed = run.code === 0 && rejected === 0 && prompts.length === LONG_TURNS + 1;
  return {
    id: 'long_run_200k',
    label: `${LONG_TURNS} turns of 28,000-char outputs, 200k window`,
    value: rejected,
    unit: 'rejected',
    target: 'completes, 0 rejected',
    pass: completed,
    detail: `exit ${run.code}, ${prompts.length} requests, largest prompt ${Math.max(...prompts)} tokens of ${WINDOW}, ${(run.wallMs / 1000).toFixed(1)} s`,
    data: { exitCode: run.code, requests: prompts.length, rejected, promptTokens: prompts, wallMs: run.wallMs },
  };
}
