// Where a turn's time goes: the agent, built with source maps, runs a long scripted conversation under Node's CPU
// profiler; each sample is charged to the part of the code it was in (the file a bundled function came from, or
// Node's own module), and the shares are printed.

import { execFileSync } from 'node:child_process';
import { mkdirSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { SourceMap } from 'node:module';
import { join, resolve } from 'node:path';
import { build } from 'esbuild';
import { answer, bash } from '../test/support/run-agent.js';
import { startServer, type Turn } from '../test/support/server.js';
import { bundleOptions } from '../scripts/build-options.mjs';
import { agentEnv, expectRun, type Figure } from './figures.js';
import { timedRun } from './measure.js';

const ROOT = resolve(import.meta.dirname, '..');
const TURNS = 120;

/** The parts a turn's CPU is charged to, first match wins; `path` is a source path or a node: module URL. */
const PARTS: Array<[string, RegExp]> = [
  ['spawning bash (Node child_process)', /^node:(internal\/)?child_process/],
  [
    'Node HTTP, sockets, streams',
    /^node:(internal\/)?(_?http|net|stream|streams|tls|dns|timers|event_target|webstreams)/,
  ],
  ['the SDK', /node_modules\/@anthropic-ai\/sdk\//],
  ['the guard (unbash and src/guard)', /node_modules\/unbash\/|src\/guard\//],
  [
    'the spinner and colours',
    /node_modules\/(ora|chalk|cli-spinners|log-symbols|stdin-discarder|string-width|strip-ansi)/,
  ],
  ['masking (src/secrets)', /src\/secrets/],
  ['sessions and transcripts (src/session)', /src\/session\//],
  ['the shell tool (src/shell)', /src\/shell\//],
  ['our HTTP client and the context step (src/api)', /src\/api\//],
  ['the loop, output and the rest of src', /src\//],
  ['module loading', /^node:internal\/modules/],
  ['other Node internals', /^node:/],
];

interface ProfileNode {
  id: number;
  callFrame: { functionName: string; url: string; lineNumber: number; columnNumber: number };
  children?: number[];
}
interface Profile {
  nodes: ProfileNode[];
  samples: number[];
  timeDeltas: number[];
}

/** Builds the CLI with source maps into `dir`, and a runner that starts it as bin/agent would. */
export async function buildProfiled(dir: string): Promise<string> {
  await build({
    ...bundleOptions({ outdir: join(dir, 'dist'), sourcemap: 'external' }),
    absWorkingDir: ROOT,
    logLevel: 'error',
  });
  const runner = join(dir, 'run.mjs');
  writeFileSync(runner, "const cli = await import('./dist/cli.js');\nawait cli.main(process.argv.slice(2), []);\n");
  return runner;
}

export function sourceMapsOf(distDir: string): Map<string, SourceMap> {
  const maps = new Map<string, SourceMap>();
  for (const name of readdirSync(distDir).filter((file) => file.endsWith('.js'))) {
    const mapFile = join(distDir, `${name}.map`);
    try {
      maps.set(`file://${join(distDir, name)}`, new SourceMap(JSON.parse(readFileSync(mapFile, 'utf8'))));
    } catch {
      // A chunk without a map is charged by its own name.
    }
  }
  return maps;
}

/** The source path of a profile frame, or undefined for a native frame that belongs to its caller. */
function sourceOf(frame: ProfileNode['callFrame'], maps: Map<string, SourceMap>): string | undefined {
  if (frame.url === '') return undefined;
  const map = maps.get(frame.url);
  if (!map) return frame.url;
  const entry = map.findEntry(frame.lineNumber, frame.columnNumber) as { originalSource?: string };
  return entry.originalSource ?? frame.url;
}

export function partOf(path: string): string {
  return PARTS.find(([, pattern]) => pattern.test(path))?.[0] ?? 'other';
}

/** Self time per part, in ms; samples in native frames go to the nearest caller that has a source. */
function chargeSamples(profile: Profile, maps: Map<string, SourceMap>): Map<string, number> {
  const parent = new Map<number, ProfileNode>();
  const byId = new Map(profile.nodes.map((node) => [node.id, node]));
  for (const node of profile.nodes) for (const child of node.children ?? []) parent.set(child, node);
  const partCache = new Map<number, string>();
  const partOfNode = (node: ProfileNode): string => {
    const cached = partCache.get(node.id);
    if (cached) return cached;
    const name = node.callFrame.functionName;
    let part: string;
    if (name === '(garbage collector)') part = 'garbage collection';
    else if (name === '(idle)') part = 'idle';
    else if (name === '(program)') part = 'Node native, outside JavaScript';
    else {
      const source = sourceOf(node.callFrame, maps);
      const caller = parent.get(node.id);
      part = source !== undefined ? partOf(source) : caller ? partOfNode(caller) : 'Node native, outside JavaScript';
    }
    partCache.set(node.id, part);
    return part;
  };
  const charged = new Map<string, number>();
  profile.samples.forEach((id, index) => {
    const part = partOfNode(byId.get(id)!);
    charged.set(part, (charged.get(part) ?? 0) + (profile.timeDeltas[index] ?? 0) / 1000);
  });
  return charged;
}

export async function measureTurnBreakdown(tmp: string): Promise<Figure> {
  const dir = join(tmp, 'profiled');
  const profiles = join(dir, 'profiles');
  mkdirSync(profiles, { recursive: true });
  const runner = await buildProfiled(dir);
  const script: Turn[] = [...Array.from({ length: TURNS - 1 }, () => bash('true')), answer('done')];
  const server = await startServer(script);
  try {
    const run = await timedRun(
      process.execPath,
      [
        '--cpu-prof',
        '--cpu-prof-dir',
        profiles,
        '--cpu-prof-interval',
        '200',
        runner,
        '--max-turns',
        String(TURNS + 1),
        'run the commands',
      ],
      { env: agentEnv(server.url, tmp), cwd: tmp },
    );
    expectRun(`profiled ${TURNS}-turn run`, run.code === 0 && server.validRequests().length === TURNS, run);
  } finally {
    await server.close();
  }
  const profileFile = readdirSync(profiles).find((file) => file.endsWith('.cpuprofile'));
  if (!profileFile) throw new Error('the profiled run wrote no .cpuprofile');
  const charged = chargeSamples(
    JSON.parse(readFileSync(join(profiles, profileFile), 'utf8')) as Profile,
    sourceMapsOf(join(dir, 'dist')),
  );
  const idle = charged.get('idle') ?? 0;
  charged.delete('idle');
  const busy = [...charged.values()].reduce((sum, ms) => sum + ms, 0);
  const shares = [...charged.entries()].sort((a, b) => b[1] - a[1]);
  const detail = shares.map(([part, ms]) => `${part} ${((100 * ms) / busy).toFixed(0)}%`).join(', ');
  return {
    id: 'turn_breakdown',
    label: "agent's CPU per turn, and where it goes",
    value: busy / TURNS,
    unit: 'ms',
    target: '(breakdown)',
    pass: undefined,
    detail: `a ${TURNS}-turn run under --cpu-prof, samples charged by source map; ${detail}; idle (waiting on the server and bash) ${(idle / TURNS).toFixed(2)} ms per turn`,
    data: {
      turns: TURNS,
      busyMs: busy,
      idleMs: idle,
      partsMs: Object.fromEntries(shares),
      node: execFileSync(process.execPath, ['--version'], { encoding: 'utf8' }).trim(),
    },
  };
}
