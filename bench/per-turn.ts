// Per-turn cost, the agent's and the bare loop's (bench/bare-loop.mjs), measured side by side. A run of N turns costs
// its start-up, the first command's one-time cost (the command path's modules, the shell's files, code run for the
// first time, the sweep for processes left behind at the end) and N − 2 more turns; the bench reports the last two
// apart, so that neither hides in the other and the per-turn figure does not depend on how long the run is.

import { spawn } from 'node:child_process';
import { resolve } from 'node:path';
import { answer, bash } from '../test/support/run-agent.js';
import { startServer, type Turn } from '../test/support/server.js';
import { agentEnv, expectRun, type Figure } from './figures.js';
import { AGENT_BIN, median, middleHalf, summary, timedRun } from './measure.js';
import type { StartupOptions } from './startup.js';

const PER_TURN_TARGET = 1.5;
/** Model calls in the long run: 30 commands, then the answer. */
const LONG_RUN_TURNS = 31;
const BARE_LOOP = resolve(import.meta.dirname, 'bare-loop.mjs');

type LoopName = 'agent' | 'bare';
interface Loop {
  command: string;
  args: string[];
  /** A bin directory to put first on PATH, where bin/agent finds its node. */
  binDir?: string;
}
type Runs = { answer: number[]; oneCommand: number[]; long: number[] };

/** The two loops measured side by side: the agent, and the bare loop that is the floor under a turn. */
function loops(node: StartupOptions['node']): Record<LoopName, Loop> {
  const bareNode = node ? `${node.binDir}/node` : process.execPath;
  return {
    agent: { command: AGENT_BIN, args: ['run the commands'], ...(node ? { binDir: node.binDir } : {}) },
    bare: { command: bareNode, args: [BARE_LOOP, 'run the commands'] },
  };
}

const script = (commands: number): Turn[] => [...Array.from({ length: commands }, () => bash('true')), answer('done')];

/** A later turn: (the 31-turn run − the 2-turn run) / 29. */
const perTurn = (runs: { oneCommand: number; long: number }) => (runs.long - runs.oneCommand) / (LONG_RUN_TURNS - 2);
/** What the first command costs beyond a later turn: (the 2-turn run − the 1-turn run) − a later turn. */
const firstCommandExtra = (runs: { answer: number; oneCommand: number; long: number }) =>
  runs.oneCommand - runs.answer - perTurn(runs);

/**
 * Three runs per loop and round, with instant replies and `true` as the command: an answer alone, one command, and 30
 * commands. The runs of a round alternate between the loops, so that the machine's load drifts over both alike.
 */
export async function measurePerTurn({ repetitions, warmups, tmp, node }: StartupOptions): Promise<Figure[]> {
  const chosen = loops(node);
  const suffix = node ? ` (${node.name})` : '';
  const idSuffix = node ? `_${node.name.toLowerCase().replace(/\W+/g, '')}` : '';
  const samples: Record<LoopName, Runs> = {
    agent: { answer: [], oneCommand: [], long: [] },
    bare: { answer: [], oneCommand: [], long: [] },
  };
  const serverCpuPerTurn: number[] = [];
  for (let round = 0; round < warmups + repetitions; round++) {
    for (const loop of ['agent', 'bare'] as const) {
      const alone = await timeScript(loop, chosen[loop], script(0), tmp, 1);
      const one = await timeScript(loop, chosen[loop], script(1), tmp, 2);
      const long = await timeScript(loop, chosen[loop], script(LONG_RUN_TURNS - 1), tmp, LONG_RUN_TURNS);
      if (round < warmups) continue;
      samples[loop].answer.push(alone.wallMs);
      samples[loop].oneCommand.push(one.wallMs);
      samples[loop].long.push(long.wallMs);
      if (loop === 'agent') serverCpuPerTurn.push((long.serverCpuMs - one.serverCpuMs) / (LONG_RUN_TURNS - 2));
    }
  }
  // The three runs of a loop, each taken down to one number: its median, or one round's sample.
  const taken = (loop: LoopName, take: (runs: number[]) => number) => ({
    answer: take(samples[loop].answer),
    oneCommand: take(samples[loop].oneCommand),
    long: take(samples[loop].long),
  });
  const [agent, bare] = [taken('agent', median), taken('bare', median)];
  const ratio = perTurn(agent) / perTurn(bare);
  const firstRatio = firstCommandExtra(agent) / firstCommandExtra(bare);
  // Each round on its own, for the spread: its runs ran back to back, under the same load.
  const inRound = (loop: LoopName, round: number) => taken(loop, (runs) => runs[round]!);
  const roundRatios = samples.agent.long.map(
    (_, round) => perTurn(inRound('agent', round)) / perTurn(inRound('bare', round)),
  );
  // The figure as an earlier bench counted it, (30-command run − 1-turn run) / 30, which spreads the first command's
  // one-time cost over the turns of that run.
  const blended = (runs: typeof agent) => (runs.long - runs.answer) / (LONG_RUN_TURNS - 1);
  const bashAlone = await timeBashSpawns(41, tmp);
  const how =
    `(median ${LONG_RUN_TURNS}-turn run − median 2-turn run) / ${LONG_RUN_TURNS - 2}; command \`true\`, instant ` +
    `replies, ${repetitions} rounds`;
  return [
    {
      id: `per_turn_overhead${idSuffix}`,
      label: `agent: time per turn${suffix}`,
      value: perTurn(agent),
      unit: 'ms',
      target: '(context)',
      pass: undefined,
      detail:
        `${how}; medians ${agent.long.toFixed(1)} ms (31 turns), ${agent.oneCommand.toFixed(1)} ms (2), ` +
        `${agent.answer.toFixed(1)} ms (1); the test server's CPU per turn, included: ` +
        `${median(serverCpuPerTurn).toFixed(2)} ms; spawning \`bash -c true\` from node alone takes ` +
        `${median(bashAlone).toFixed(2)} ms`,
      data: {
        answerRunMs: summary(samples.agent.answer),
        oneCommandRunMs: summary(samples.agent.oneCommand),
        longRunMs: summary(samples.agent.long),
        serverCpuPerTurnMs: summary(serverCpuPerTurn),
        bashSpawnMs: summary(bashAlone),
        turns: LONG_RUN_TURNS,
      },
    },
    {
      id: `bare_loop_per_turn${idSuffix}`,
      label: `bare loop: time per turn (the floor)${suffix}`,
      value: perTurn(bare),
      unit: 'ms',
      target: '(reference)',
      pass: undefined,
      detail: `${how}; bench/bare-loop.mjs: node:http, the SSE read whole, an async \`bash -c\` per command, nothing else`,
      data: {
        answerRunMs: summary(samples.bare.answer),
        oneCommandRunMs: summary(samples.bare.oneCommand),
        longRunMs: summary(samples.bare.long),
      },
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
        `the ratio round by round, middle half ${middleHalf(roundRatios, 2)}; ` +
        `counted with the first command spread over a 30-command run, ${(blended(agent) / blended(bare)).toFixed(2)} ×`,
      data: { roundRatios: summary(roundRatios), blendedRatio: blended(agent) / blended(bare) },
    },
    {
      id: `first_command_once${idSuffix}`,
      label: `agent: the first command, once${suffix}`,
      value: firstCommandExtra(agent),
      unit: 'ms',
      target: '(context)',
      pass: undefined,
      detail:
        `beyond a later turn: (median 2-turn run − median 1-turn run) − time per turn; the bare loop's ` +
        `${firstCommandExtra(bare).toFixed(1)} ms` +
        // A difference of three noisy medians: a ratio to one near zero would say nothing.
        (firstCommandExtra(bare) >= 1 ? `, so ${firstRatio.toFixed(1)} × the bare loop's` : ''),
      data: { bareMs: firstCommandExtra(bare), ratio: firstRatio },
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
  turns: Turn[],
  tmp: string,
  expectedRequests: number,
): Promise<{ wallMs: number; serverCpuMs: number }> {
  const server = await startServer(turns);
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
    await new Promise<void>((done, reject) => {
      const child = spawn('bash', ['-c', 'true'], { cwd: tmp, detached: true, stdio: ['ignore', 'pipe', 'pipe'] });
      child.stdout.resume();
      child.stderr.resume();
      child.on('error', reject);
      child.on('close', () => done());
    });
    times.push(performance.now() - started);
  }
  return times;
}
