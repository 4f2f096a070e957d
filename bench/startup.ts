// Start-up figures: the node floor, --version, spawn to first request.

import { answer } from '../test/support/run-agent.js';
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
