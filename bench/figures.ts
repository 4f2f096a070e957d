// The shape of one benchmark figure, and the environment the measured runs get.

import { join } from 'node:path';
import { baseEnv } from '../test/support/run-agent.js';

export interface Figure {
  /** Stable key for the JSON record. */
  id: string;
  label: string;
  /** The figure as a number in `unit`. */
  value: number;
  unit: string;
  /** The target as people read it, e.g. "≤ 1.8 × floor". */
  target: string;
  /** Undefined for figures that are context, not targets (the floor itself). */
  pass: boolean | undefined;
  /** What was measured, and how, in a sentence. */
  detail: string;
  /** Raw samples and anything else worth keeping in the JSON record. */
  data: Record<string, unknown>;
}

/** The environment of every measured process: clean, pointed at the local server, spill files and sessions in `tmp`. */
export function agentEnv(serverUrl: string, tmp: string): Record<string, string> {
  return { ...baseEnv(serverUrl, join(tmp, 'state')), TMPDIR: tmp };
}

/** Throws with the run's own words when a measured run did not do what the figure assumes. */
export function expectRun(
  what: string,
  ok: boolean,
  run: { code: number | null; stderr: string; stdout: string },
): void {
  if (ok) return;
  throw new Error(
    `${what}: unexpected run (exit ${run.code})\nstdout: ${run.stdout.slice(0, 2_000)}\nstderr: ${run.stderr.slice(0, 2_000)}`,
  );
}
