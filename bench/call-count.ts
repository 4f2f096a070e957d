// How much JavaScript a later turn runs, counted exactly rather than timed: V8's precise coverage (NODE_V8_COVERAGE)
// counts every call of every function, Node's own included. A 31-turn run minus a 2-turn run, divided by 29, is what
// one later turn calls, for the agent and for the bare loop. The count does not depend on how busy the machine is,
// so a change to a turn's path shows here even where the times cannot tell it from noise.

import { mkdirSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import type { SourceMap } from 'node:module';
import { join, resolve } from 'node:path';
import { answer, bash } from '../test/support/run-agent.js';
import { startServer } from '../test/support/server.js';
import { agentEnv, expectRun, type Figure } from './figures.js';
import { timedRun } from './measure.js';
import { buildProfiled, partOf, sourceMapsOf } from './turn-breakdown.js';

const BARE_LOOP = resolve(import.meta.dirname, 'bare-loop.mjs');
const TURNS = 31;
const BASELINE_TURNS = 2;

interface Coverage {
  result: Array<{
    url: string;
    functions: Array<{ ranges: Array<{ startOffset: number; count: number }> }>;
  }>;
}

/** Calls of each function (by script and offset) in one run of `turns` turns. */
async function callsInRun(script: string, turns: number, tmp: string): Promise<Map<string, number>> {
  const dir = join(tmp, `coverage-${turns}`);
  rmSync(dir, { recursive: true, force: true });
  mkdirSync(dir, { recursive: true });
  const server = await startServer([...Array.from({ length: turns - 1 }, () => bash('true')), answer('done')]);
  try {
    const run = await timedRun(process.execPath, [script, '--max-turns', String(turns + 1), 'run the commands'], {
      env: { ...agentEnv(server.url, tmp), NODE_V8_COVERAGE: dir },
      cwd: tmp,
    });
    expectRun(`counted ${turns}-turn run`, run.code === 0 && server.validRequests().length === turns, run);
  } finally {
    await server.close();
  }
  const calls = new Map<string, number>();
  for (const file of readdirSync(dir)) {
    const coverage = JSON.parse(readFileSync(join(dir, file), 'utf8')) as Coverage;
    for (const { url, functions } of coverage.result) {
      for (const { ranges } of functions) {
        const whole = ranges[0];
        if (!whole || whole.count === 0) continue;
        // Summed: a script with no URL of its own, or another Node process of the run, shares a key.
        const key = `${url}@${whole.startOffset}`;
        calls.set(key, (calls.get(key) ?? 0) + whole.count);
      }
    }
  }
  return calls;
}

/** What one later turn calls: each function's calls, per turn. */
async function callsPerTurn(script: string, tmp: string): Promise<Map<string, number>> {
  const short = await callsInRun(script, BASELINE_TURNS, tmp);
  const long = await callsInRun(script, TURNS, tmp);
  const perTurn = new Map<string, number>();
  for (const [key, count] of long) {
    const added = (count - (short.get(key) ?? 0)) / (TURNS - BASELINE_TURNS);
    if (added > 0) perTurn.set(key, added);
  }
  return perTurn;
}

/** The part of the code a function is in: by source map for the bundle, by module for Node's own. */
function partOfFunction(key: string, maps: Map<string, SourceMap>, lineStarts: Map<string, number[]>): string {
  const at = key.lastIndexOf('@');
  const url = key.slice(0, at);
  const map = maps.get(url);
  if (!map) return url.startsWith('node:') ? 'Node internals' : url.replace(/.*\//, '');
  const offset = Number(key.slice(at + 1));
  const starts = lineStartsOf(url, lineStarts);
  let line = 0;
  for (let low = 0, high = starts.length - 1; low <= high; ) {
    const middle = (low + high) >> 1;
    if (starts[middle]! <= offset) {
      line = middle;
      low = middle + 1;
    } else high = middle - 1;
  }
  const entry = map.findEntry(line, offset - starts[line]!) as { originalSource?: string };
  return entry.originalSource ? partOf(entry.originalSource) : 'other';
}

function lineStartsOf(url: string, cache: Map<string, number[]>): number[] {
  const known = cache.get(url);
  if (known) return known;
  const text = readFileSync(new URL(url), 'utf8');
  const starts = [0];
  for (let index = text.indexOf('\n'); index !== -1; index = text.indexOf('\n', index + 1)) starts.push(index + 1);
  cache.set(url, starts);
  return starts;
}

const sum = (values: Iterable<number>): number => [...values].reduce((total, value) => total + value, 0);
/** Functions called about once a turn or more: the code a turn goes through. */
const functionsOf = (perTurn: Map<string, number>): number => [...perTurn.values()].filter((n) => n >= 0.9).length;

export async function measureCallsPerTurn(tmp: string): Promise<Figure> {
  const dir = join(tmp, 'counted');
  const runner = await buildProfiled(dir);
  const agent = await callsPerTurn(runner, tmp);
  const bare = await callsPerTurn(BARE_LOOP, tmp);
  const maps = sourceMapsOf(join(dir, 'dist'));
  const lineStarts = new Map<string, number[]>();
  const byPart = new Map<string, number>();
  for (const [key, calls] of agent) {
    const part = partOfFunction(key, maps, lineStarts);
    byPart.set(part, (byPart.get(part) ?? 0) + calls);
  }
  const agentCalls = sum(agent.values());
  const bareCalls = sum(bare.values());
  const parts = [...byPart.entries()].sort((a, b) => b[1] - a[1]);
  const shown = parts.map(([part, calls]) => `${part} ${Math.round(calls)}`).join(', ');
  return {
    id: 'calls_per_turn',
    label: 'JS calls in a later turn (counted)',
    value: Math.round(agentCalls),
    unit: 'calls',
    target: '(breakdown)',
    pass: undefined,
    detail:
      `V8's call counts (NODE_V8_COVERAGE; they vary by about 1% as the stream's chunks fall), ${TURNS}-turn run minus ${BASELINE_TURNS}-turn run; agent ${Math.round(agentCalls)} ` +
      `calls through ${functionsOf(agent)} functions, bare loop ${Math.round(bareCalls)} through ${functionsOf(bare)} ` +
      `(${(agentCalls / bareCalls).toFixed(2)} ×); the agent's by part: ${shown}`,
    data: {
      agentCalls,
      agentFunctions: functionsOf(agent),
      bareCalls,
      bareFunctions: functionsOf(bare),
      parts: Object.fromEntries(parts),
    },
  };
}
