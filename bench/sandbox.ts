// Per-turn overhead under --sandbox, and, given another build of the CLI (AGENT_BENCH_BASELINE=<its bin/agent>),
// the ratio of this build's figure to that one's, measured in the same rounds so that the machine's load drifts
// over both alike.

import { answer, bash } from '../test/support/run-agent.js';
import { startServer, type Turn } from '../test/support/server.js';
import { agentEnv, expectRun, type Figure } from './figures.js';
import { AGENT_BIN, median, summary, timedRun } from './measure.js';

const TURNS = 30;

export interface SandboxTurnOptions {
  repetitions: number;
  warmups: number;
  tmp: string;
  baselineBin?: string;
}

export async function measureSandboxPerTurn({
  repetitions,
  warmups,
  tmp,
  baselineBin,
}: SandboxTurnOptions): Promise<Figure[]> {
  const bins = baselineBin ? [AGENT_BIN, baselineBin] : [AGENT_BIN];
  const samples = bins.map(() => ({ short: [] as number[], long: [] as number[] }));
  for (let round = 0; round < warmups + repetitions; round++) {
    for (const [index, bin] of bins.entries()) {
      const short = await wallOf(bin, [answer('done')], tmp, 1);
      const long = await wallOf(
        bin,
        [...Array.from({ length: TURNS - 1 }, () => bash('true')), answer('done')],
        tmp,
        TURNS,
      );
      if (round < warmups) continue;
      samples[index]!.short.push(short);
      samples[index]!.long.push(long);
    }
  }
  const perTurn = samples.map(({ short, long }) => (median(long) - median(short)) / (TURNS - 1));
  const figures: Figure[] = [
    {
      id: 'per_turn_overhead_sandbox',
      label: 'harness overhead per turn under --sandbox',
      value: perTurn[0]!,
      unit: 'ms',
      target: '(reference)',
      pass: undefined,
      detail: `(median ${TURNS}-turn run − median 1-turn run) / ${TURNS - 1}, with --sandbox; command \`true\`, ${repetitions} pairs`,
      data: { oneTurnMs: summary(samples[0]!.short), longRunMs: summary(samples[0]!.long) },
    },
  ];
  if (baselineBin) {
    const ratio = perTurn[0]! / perTurn[1]!;
    figures.push({
      id: 'per_turn_sandbox_vs_baseline',
      label: 'per-turn overhead under --sandbox, this build / baseline',
      value: ratio,
      unit: '×',
      target: '≤ 1.10 ×',
      pass: ratio <= 1.1,
      detail: `${perTurn[0]!.toFixed(2)} ms here, ${perTurn[1]!.toFixed(2)} ms for ${baselineBin}, measured in the same rounds`,
      data: { baselineOneTurnMs: summary(samples[1]!.short), baselineLongRunMs: summary(samples[1]!.long) },
    });
  }
  return figures;
}

async function wallOf(bin: string, script: Turn[], tmp: string, expectedRequests: number): Promise<number> {
  const server = await startServer(script);
  try {
    const run = await timedRun(bin, ['--sandbox', 'run the commands'], { env: agentEnv(server.url, tmp), cwd: tmp });
    expectRun(
      `${expectedRequests}-turn run under --sandbox`,
      run.code === 0 && server.validRequests().length === expectedRequests,
      run,
    );
    return run.wallMs;
  } finally {
    await server.close();
  }
}
