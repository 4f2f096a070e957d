// The guard's cost per command: judgeCommand over its own safe and dangerous tables, many times over.
// `node --import tsx bench/guard-judge.ts [rounds]`; prints CPU microseconds per judgement (fastest and median of
// 5 runs; CPU time, so that other work on the machine counts less than it would in wall-clock time).
import { judgeCommand } from '../src/guard/judge.js';
import type { GuardPolicy } from '../src/guard/judge.js';
import { DANGEROUS, SAFE } from '../test/support/guard-corpus.js';

const POLICY: GuardPolicy = { builtinRules: true, allow: [], deny: [] };
const rounds = Number(process.argv[2] ?? 1000);
const commands = [...SAFE, ...DANGEROUS.map(([command]) => command)];
const env: Record<string, string> = { ...process.env, PWD: '/tmp/agent-project' } as Record<string, string>;

async function once(): Promise<number> {
  const started = process.cpuUsage();
  for (let round = 0; round < rounds; round += 1) {
    for (const command of commands) await judgeCommand(command, POLICY, { cwd: '/tmp/agent-project', env });
  }
  const used = process.cpuUsage(started);
  return (used.user + used.system) / (rounds * commands.length);
}

await once(); // warm-up: the parser's import and the JIT
const runs: number[] = [];
for (let run = 0; run < 5; run += 1) runs.push(await once());
runs.sort((a, b) => a - b);
const [fastest, , median] = runs as [number, number, number];
console.log(
  `guard: ${commands.length} commands × ${rounds}: ${fastest.toFixed(1)} µs CPU per judgement at best, ${median.toFixed(1)} median`,
);
