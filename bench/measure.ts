// Process timing and memory sampling for the benchmark.

import { spawn } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { resolve } from 'node:path';

export const AGENT_BIN = resolve(import.meta.dirname, '../bin/agent');

export interface SpawnOptions {
  env: Record<string, string>;
  cwd: string;
  /** Sample the process's peak RSS (VmHWM) from /proc while it runs. */
  sampleRss?: boolean;
}

export interface Finished {
  code: number | null;
  startedAt: number;
  /** From just before spawn() to the exit event, in ms. */
  wallMs: number;
  stdout: string;
  stderr: string;
  /** Last VmHWM read from /proc/<pid>/status, in KiB; the peak is monotone, so the last read is the highest seen. */
  peakRssKb?: number;
  /** The command name /proc gave for the pid, to check that it is node itself and not a wrapper. */
  processName?: string;
}

const RSS_POLL_MS = 5;

/** Spawns a command, waits for it to exit, and times it with performance.now(). */
export function timedRun(command: string, args: string[], options: SpawnOptions): Promise<Finished> {
  return new Promise((resolvePromise, reject) => {
    const startedAt = performance.now();
    const child = spawn(command, args, { cwd: options.cwd, env: options.env, stdio: ['ignore', 'pipe', 'pipe'] });
    let exitedAt = 0;
    let stdout = '';
    let stderr = '';
    child.stdout.setEncoding('utf8').on('data', (chunk: string) => (stdout += chunk));
    child.stderr.setEncoding('utf8').on('data', (chunk: string) => (stderr += chunk));
    const sampler = options.sampleRss && child.pid !== undefined ? new RssSampler(child.pid) : undefined;
    child.on('error', reject);
    child.on('exit', () => {
      exitedAt = performance.now();
      sampler?.stop();
    });
    child.on('close', (code) => {
      resolvePromise({
        code,
        startedAt,
        wallMs: (exitedAt || performance.now()) - startedAt,
        stdout,
        stderr,
        ...(sampler?.peakKb !== undefined ? { peakRssKb: sampler.peakKb } : {}),
        ...(sampler?.name !== undefined ? { processName: sampler.name } : {}),
      });
    });
  });
}

/** Polls /proc/<pid>/status for VmHWM (peak resident set) until stopped or the process is gone. */
class RssSampler {
  peakKb: number | undefined;
  name: string | undefined;
  private readonly timer: NodeJS.Timeout;

  constructor(private readonly pid: number) {
    this.timer = setInterval(() => this.sample(), RSS_POLL_MS);
    this.sample();
  }

  stop(): void {
    clearInterval(this.timer);
  }

  private sample(): void {
    let status: string;
    try {
      status = readFileSync(`/proc/${this.pid}/status`, 'utf8');
    } catch {
      return; // Gone, or not yet visible.
    }
    const name = /^Name:\s+(\S+)/m.exec(status)?.[1];
    const hwm = /^VmHWM:\s+(\d+) kB/m.exec(status)?.[1];
    // A zombie has no VmHWM any more; keep the last real reading.
    if (hwm === undefined) return;
    if (name !== undefined) this.name = name;
    this.peakKb = Math.max(this.peakKb ?? 0, Number(hwm));
  }
}

export function median(values: readonly number[]): number {
  if (values.length === 0) return Number.NaN;
  const sorted = [...values].sort((a, b) => a - b);
  const middle = Math.floor(sorted.length / 2);
  return sorted.length % 2 === 1 ? sorted[middle]! : (sorted[middle - 1]! + sorted[middle]!) / 2;
}

/** The middle half of a sample, as `low–high` with `digits` decimals: how far to trust its median. */
export function middleHalf(values: readonly number[], digits: number): string {
  const sorted = [...values].sort((a, b) => a - b);
  const at = (fraction: number) => sorted[Math.min(sorted.length - 1, Math.floor(fraction * sorted.length))]!;
  return `${at(0.25).toFixed(digits)}–${at(0.75).toFixed(digits)}`;
}

/** Spread of a sample, for the JSON record: the values are noisy on a small shared machine. */
export function summary(values: readonly number[]): { median: number; min: number; max: number; n: number } {
  return { median: median(values), min: Math.min(...values), max: Math.max(...values), n: values.length };
}
