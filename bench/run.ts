// `npm run bench`: measures the built CLI (bin/agent) against the local test server and prints
// each figure beside its target. The same figures go to bench/results/latest.json.
// `npm run bench -- per-turn breakdown` measures only the parts named (start-up, binary, per-turn, breakdown,
// memory, cache, long-run).

import { execFileSync } from 'node:child_process';
import { mkdirSync, rmSync, writeFileSync } from 'node:fs';
import { cpus, loadavg, release } from 'node:os';
import { join, resolve } from 'node:path';
import { tempDir } from '../test/support/run-agent.js';
import { measureCachingBill, measureFloodRss, measureLongRun } from './conversations.js';
import type { Figure } from './figures.js';
import { measureSandboxPerTurn } from './sandbox.js';
import { measurePerTurn } from './per-turn.js';
import { measureStartup } from './startup.js';
import { measureBinary } from './binary.js';
import { measureTurnBreakdown } from './turn-breakdown.js';
import { measureCallsPerTurn } from './call-count.js';

const RESULTS_DIR = resolve(import.meta.dirname, 'results');

/** The bin directory of an official Node.js of that major version (fetched once), or undefined where there is none. */
function fetchNode(major: number): string | undefined {
  try {
    return execFileSync(process.execPath, [resolve(import.meta.dirname, '../scripts/fetch-node.mjs'), String(major)], {
      encoding: 'utf8',
    }).trim();
  } catch {
    process.stderr.write(`bench: no Node ${major} to measure with; its start-up figures are left out\n`);
    return undefined;
  }
}
/** AGENT_BENCH_BASELINE: another build's bin/agent, to compare the per-turn figure under --sandbox with. */
function baseline(): { baselineBin?: string } {
  const bin = process.env.AGENT_BENCH_BASELINE;
  return bin ? { baselineBin: bin } : {};
}

const STARTUP_REPETITIONS = 21;
const PER_TURN_PAIRS = 15;
const FLOOD_RUNS = 3;

function formatValue(figure: Figure): string {
  const digits = figure.unit === '× floor' || figure.unit === '×' ? 2 : figure.unit === 'rejected' ? 0 : 1;
  return `${figure.value.toFixed(digits)} ${figure.unit}`;
}

function verdict(figure: Figure): string {
  return figure.pass === undefined ? '' : figure.pass ? 'PASS' : 'FAIL';
}

function table(figures: Figure[]): string {
  const rows = [
    ['figure', 'value', 'target', ''],
    ...figures.map((f) => [f.label, formatValue(f), f.target, verdict(f)]),
  ];
  const widths = rows[0]!.map((_, column) => Math.max(...rows.map((row) => row[column]!.length)));
  const line = (row: string[]) =>
    row
      .map((cell, column) => cell.padEnd(widths[column]!))
      .join('  ')
      .trimEnd();
  const rule = widths.map((width) => '-'.repeat(width)).join('  ');
  const notes = figures.map((f) => `  ${f.label}: ${f.detail}`);
  return [line(rows[0]!), rule, ...rows.slice(1).map(line), '', 'How each figure was measured:', ...notes].join('\n');
}

/** The 1-minute load average, per core: above about 0.5 other work is competing and times are inflated. */
function loadPerCore(): number {
  return loadavg()[0]! / cpus().length;
}

async function main(): Promise<void> {
  const tmp = tempDir('agent-bench-');
  const loadBefore = loadPerCore();
  if (loadBefore > 0.5)
    process.stderr.write(
      `bench: warning: the machine is busy (load ${loadBefore.toFixed(2)} per core); time figures will be inflated\n`,
    );
  const started = performance.now();
  const figures: Figure[] = [];
  const step = async <T extends Figure | Figure[]>(name: string, measure: () => Promise<T>) => {
    process.stderr.write(`bench: ${name}…\n`);
    const result = await measure();
    figures.push(...(Array.isArray(result) ? result : [result]));
  };
  const chosen = process.argv.slice(2);
  const wants = (name: string) => chosen.length === 0 || chosen.includes(name);
  const node24 = wants('start-up') || wants('binary') || wants('per-turn') ? fetchNode(24) : undefined;
  const onNode24 = node24 ? { binDir: node24, name: 'Node 24', firstRequestTarget: 2.2 } : undefined;
  const steps: Array<[name: string, what: string, measure: () => Promise<Figure | Figure[]>]> = [
    [
      'start-up',
      'start-up (node floor, --version, first request)',
      () => measureStartup({ repetitions: STARTUP_REPETITIONS, warmups: 1, tmp }),
    ],
    [
      'start-up',
      'start-up on Node 24',
      async () =>
        onNode24 ? measureStartup({ repetitions: STARTUP_REPETITIONS, warmups: 1, tmp, node: onNode24 }) : [],
    ],
    [
      'binary',
      'the standalone binary',
      () => measureBinary({ nodeBinDir: node24, repetitions: STARTUP_REPETITIONS, tmp }),
    ],
    [
      'per-turn',
      'per turn, agent and bare loop',
      () => measurePerTurn({ repetitions: PER_TURN_PAIRS, warmups: 1, tmp }),
    ],
    [
      'per-turn',
      'per turn on Node 24',
      async () => (onNode24 ? measurePerTurn({ repetitions: PER_TURN_PAIRS, warmups: 1, tmp, node: onNode24 }) : []),
    ],
    [
      'sandbox',
      'per turn under --sandbox',
      () => measureSandboxPerTurn({ repetitions: PER_TURN_PAIRS, warmups: 1, tmp, ...baseline() }),
    ],
    ['breakdown', "where a turn's CPU goes", () => measureTurnBreakdown(tmp)],
    ['breakdown', 'how many JavaScript calls a turn makes', () => measureCallsPerTurn(tmp)],
    ['memory', 'peak memory under 1 GB of output', () => measureFloodRss(FLOOD_RUNS, tmp)],
    ['cache', 'token bill with and without caching', () => measureCachingBill(tmp)],
    [
      'cache',
      'token bill with and without caching, with an AGENTS.md',
      () => measureCachingBill(tmp, { agentsMd: true }),
    ],
    ['long-run', '45 turns against a 200k window', () => measureLongRun(tmp)],
  ];
  const unknown = chosen.filter((name) => !steps.some(([step]) => step === name));
  if (unknown.length > 0) {
    process.stderr.write(
      `bench: unknown part ${unknown.join(', ')}; the parts are ${[...new Set(steps.map(([name]) => name))].join(', ')}\n`,
    );
    process.exit(2);
  }
  try {
    for (const [name, what, measure] of steps) if (wants(name)) await step(what, measure);
  } finally {
    rmSync(tmp, { recursive: true, force: true });
  }

  const totalSeconds = (performance.now() - started) / 1000;
  const load = { before: loadBefore, after: loadPerCore() };
  process.stdout.write(
    `${table(figures)}\n\nbench took ${totalSeconds.toFixed(0)} s on ${cpus().length} × ${cpus()[0]?.model ?? 'cpu'}, node ${process.version}; ` +
      `load per core ${load.before.toFixed(2)} before, ${load.after.toFixed(2)} after\n`,
  );
  mkdirSync(RESULTS_DIR, { recursive: true });
  const record = {
    date: new Date().toISOString(),
    node: process.version,
    kernel: release(),
    cpus: cpus().length,
    cpuModel: cpus()[0]?.model,
    totalSeconds,
    loadPerCore: load,
    allPass: figures.every((figure) => figure.pass !== false),
    figures,
  };
  writeFileSync(join(RESULTS_DIR, 'latest.json'), `${JSON.stringify(record, null, 2)}\n`);
  process.stdout.write(`written to ${join(RESULTS_DIR, 'latest.json')}\n`);
}

await main();
