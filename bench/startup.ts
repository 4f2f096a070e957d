// Start-up figures (the node floor, --version, spawn to first request) and per-turn overhead.

import { spawn } from 'node:child_process';
import { resolve } from 'node:path';
import { answer, bash } from '../test/support/run-agent.js';
import { startServer, type Turn } from '../test/support/server.js';
import { agentEnv, expectRun, type Figure } from './figures.js';
import { AGENT_BIN, median, middleHalf, summary, timedRun } from './measure.js';

export interface StartupOptions {
  repetitions: number;
  warmups: number;
  tmp: string;
  /** Another Node.js to measure with (its bin directory first on PATH), instead of the one running the benchmark. */
  node?: { binDir: string; name: string; firstRequestTarget: number };
  /** Another agent to measure instead of bin/agent: the standalone binary. */
  agent?: { path: string; name: string; firstRequestTarget: number };
}

/**
 * `node -e 0`, `agent --version` and a one-turn run, interleaved round by round so that the
 * machine's load drifts over all three alike. The server's turn takes performance.now() when the
 * request arrives: the same clock as the spawn, in the same process.
 */
export async function measureStartup({ repetitions, warmups, tmp, node, agent }: StartupOptions): Promise<Figure[]> {
  let arrivedAt: number | undefined;
  const firstRequest: Turn = () => {
    arrivedAt ??= performance.now();
    return answer('ok');
  };
  const server = await startServer([], { onExhausted: firstRequest });
  const env = agentEnv(server.url, tmp);
  if (node) env.PATH = `${node.binDir}:${env.PATH}`;
  const floor: number[] = [];
  const version: number[] = [];
  const toRequest: number[] = [];
  const runWall: number[] = [];
  try {
    for (let round = 0; round < warmups + repetitions; round++) {
      const keep = round >= warmups;
      const node = await timedRun('node', ['-e', '0'], { env, cwd: tmp });
      expectRun('node -e 0', node.code === 0, node);
      const agentPath = agent?.path ?? AGENT_BIN;
      const shown = await timedRun(agentPath, ['--version'], { env, cwd: tmp });
      expectRun('agent --version', shown.code === 0 && /^\d+\.\d+\.\d+/.test(shown.stdout), shown);
      arrivedAt = undefined;
      const run = await timedRun(agentPath, ['say hello'], { env, cwd: tmp });
      expectRun('agent one-turn run', run.code === 0 && arrivedAt !== undefined, run);
      if (!keep) continue;
      floor.push(node.wallMs);
      version.push(shown.wallMs);
      toRequest.push(arrivedAt! - run.startedAt);
      runWall.push(run.wallMs);
    }
  } finally {
    await server.close();
  }
  const floorMs = median(floor);
  const ratio = (values: number[]) => median(values) / floorMs;
  const variant = agent ?? node;
  const suffix = variant ? `_${variant.name.toLowerCase().replace(/\W+/g, '')}` : '';
  const on = variant ? ` (${variant.name})` : '';
  const firstRequestTarget = variant?.firstRequestTarget ?? 1.8;
  return [
    {
      id: `node_floor${suffix}`,
      label: `\`node -e 0\` wall time (the floor)${on}`,
      value: floorMs,
      unit: 'ms',
      target: '(reference)',
      pass: undefined,
      detail: `median of ${repetitions} runs after ${warmups} warm-up`,
      data: { samples: summary(floor) },
    },
    {
      id: `first_request${suffix}`,
      label: `spawn → first request at the server${on}`,
      value: ratio(toRequest),
      unit: '× floor',
      target: `≤ ${firstRequestTarget} × floor`,
      pass: ratio(toRequest) <= firstRequestTarget,
      detail: `median ${median(toRequest).toFixed(1)} ms (middle half ${middleHalf(toRequest, 1)} ms); \`agent "say hello"\` with stdin /dev/null; whole one-turn run median ${median(runWall).toFixed(1)} ms`,
      data: { samplesMs: summary(toRequest), oneTurnRunWallMs: summary(runWall) },
    },
    {
      id: `version${suffix}`,
      label: `\`agent --version\` wall time${on}`,
      value: ratio(version),
      unit: '× floor',
      target: '≤ 1.2 × floor',
      pass: ratio(version) <= 1.2,
      detail: `median ${median(version).toFixed(1)} ms`,
      data: { samplesMs: summary(version) },
    },
  ];
}

const LONG_RUN_TURNS = 30;
const BARE_LOOP = resolve(import.meta.dirname, 'bare-loop.mjs');
const PER_TURN_TARGET = 1.5;

type LoopName = 'agent' | 'bare';
interface Loop {
  command: string;
  args: string[];
  /** A bin directory to put first on PATH, where bin/agent finds its node. */
  binDir?: string;
}

/** The two loops measured side by side: the agent, and the bare loop that is the floor under a turn. */
function loops(node: StartupOptions['node']): Record<LoopName, Loop> {
  const bareNode = node ? `${node.binDir}/node` : process.execPath;
  return {
    agent: { command: AGENT_BIN, args: ['run the commands'], ...(node ? { binDir: node.binDir } : {}) },
    bare: { command: bareNode, args: [BARE_LOOP, 'run the commands'] },
  };
}

/**
 * (wall of a 30-turn run − wall of a 1-turn run) / 29: what each extra turn costs when the model answers at once and
 * the command (`true`) does nothing, for the agent and for the bare loop (bench/bare-loop.mjs), in one run. The four
 * runs of a round alternate, so that the machine's load drifts over both loops alike.
 */
export async function measurePerTurn({ repetitions, warmups, tmp, node }: StartupOptions): Promise<Figure[]> {
  const chosen = loops(node);
  const suffix = node ? ` (${node.name})` : '';
  const idSuffix = node ? `_${node.name.toLowerCase().replace(/\W+/g, '')}` : '';
  const samples: Record<LoopName, { one: number[]; long: number[] }> = {
    agent: { one: [], long: [] },
    bare: { one: [], long: [] },
  };
  const serverCpuPerTurn: number[] = [];
  const longScript = (): Turn[] => [...Array.from({ length: LONG_RUN_TURNS - 1 }, () => bash('true')), answer('done')];
  for (let round = 0; round < warmups + repetitions; round++) {
    for (const loop of ['agent', 'bare'] as const) {
      const short = await timeScript(loop, chosen[loop], [answer('done')], tmp, 1);
      const long = await timeScript(loop, chosen[loop], longScript(), tmp, LONG_RUN_TURNS);
      if (round < warmups) continue;
      samples[loop].one.push(short.wallMs);
      samples[loop].long.push(long.wallMs);
      if (loop === 'agent') serverCpuPerTurn.push((long.serverCpuMs - short.serverCpuMs) / (LONG_RUN_TURNS - 1));
    }
  }
  const perTurn = (loop: LoopName) => (median(samples[loop].long) - median(samples[loop].one)) / (LONG_RUN_TURNS - 1);
  const ratio = perTurn('agent') / perTurn('bare');
  // Each round on its own, for the spread: its four runs ran back to back, under the same load.
  const roundPerTurn = (loop: LoopName) =>
    samples[loop].long.map((long, round) => (long - samples[loop].one[round]!) / (LONG_RUN_TURNS - 1));
  const roundRatios = roundPerTurn('agent').map((agent, round) => agent / roundPerTurn('bare')[round]!);
  const bashAlone = await timeBashSpawns(41, tmp);
  const how =
    `(median ${LONG_RUN_TURNS}-turn run − median 1-turn run) / ${LONG_RUN_TURNS - 1}; command \`true\`, instant replies, ` +
    `${repetitions} rounds`;
  return [
    {
      id: `per_turn_overhead${idSuffix}`,
      label: `agent: time per turn${suffix}`,
      value: perTurn('agent'),
      unit: 'ms',
      target: '(context)',
      pass: undefined,
      detail:
        `${how}; 30-turn median ${median(samples.agent.long).toFixed(1)} ms, 1-turn ${median(samples.agent.one).toFixed(1)} ms; ` +
        `the test server's CPU per turn, included: ${median(serverCpuPerTurn).toFixed(2)} ms; ` +
        `spawning \`bash -c true\` from node alone takes ${median(bashAlone).toFixed(2)} ms`,
      data: {
        oneTurnMs: summary(samples.agent.one),
        longRunMs: summary(samples.agent.long),
        serverCpuPerTurnMs: summary(serverCpuPerTurn),
        bashSpawnMs: summary(bashAlone),
        turns: LONG_RUN_TURNS,
      },
    },
    {
      id: `bare_loop_per_turn${idSuffix}`,
      label: `bare loop: time per turn (the floor)${suffix}`,
      value: perTurn('bare'),
      unit: 'ms',
      target: '(reference)',
      pass: undefined,
      detail: `${how}; bench/bare-loop.mjs: node:http, the SSE read whole, an async \`bash -c\` per command, nothing else`,
      data: { oneTurnMs: summary(samples.bare.one), longRunMs: summary(samples.bare.long) },
    },
    {
      id: `per_turn_ratio${idSuffix}`,
      label: `per turn × bare loop${suffix}`,
      value: ratio,
      unit: '×',
      target: `≤ ${PER_TURN_TARGET} ×`,
      pass: ratio <= PER_TURN_TARGET,
      detail:
        'agent per turn / bare loop per turn, both measured in this run; ' +
        `the ratio round by round, middle half ${middleHalf(roundRatios, 2)}`,
      data: { roundRatios: summary(roundRatios) },
    },
  ];
}

/**
 * Wall time of one run, and the CPU this process (the test server, in practice) spent meanwhile:
 * the server is part of every turn's round trip, so its share is worth knowing.
 */
async function timeScript(
  loop: LoopName,
  { command, args, binDir }: Loop,
  script: Turn[],
  tmp: string,
  expectedRequests: number,
): Promise<{ wallMs: number; serverCpuMs: number }> {
  const server = await startServer(script);
  try {
    const cpuBefore = process.cpuUsage();
    const env = agentEnv(server.url, tmp);
    if (binDir) env.PATH = `${binDir}:${env.PATH}`;
    const run = await timedRun(command, args, { env, cwd: tmp });
    const cpu = process.cpuUsage(cpuBefore);
    expectRun(
      `${loop}: ${expectedRequests}-turn run`,
      run.code === 0 && server.validRequests().length === expectedRequests,
      run,
    );
    return { wallMs: run.wallMs, serverCpuMs: (cpu.user + cpu.system) / 1000 };
  } finally {
    await server.close();
  }
}

/** The floor under any turn that runs a command: a detached `bash -c true`, spawned and reaped from this process. */
async function timeBashSpawns(count: number, tmp: string): Promise<number[]> {
  const times: number[] = [];
  for (let i = 0; i < count; i++) {
    const started = performance.now();
    await new Promise<void>((resolve, reject) => {
      const child = spawn('bash', ['-c', 'true'], { cwd: tmp, detached: true, stdio: ['ignore', 'pipe', 'pipe'] });
      child.stdout.resume();
      child.stderr.resume();
      child.on('error', reject);
      child.on('close', () => resolve());
    });
    times.push(performance.now() - started);
  }
  return times;
}
