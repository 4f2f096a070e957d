import { UsageError } from '../outcome.js';

const DEFAULT_TMP_BYTES = 1024 ** 3;
const MIN_TMP_BYTES = 1024 ** 2;
const UNITS: Record<string, number> = { '': 1, k: 1024, m: 1024 ** 2, g: 1024 ** 3, t: 1024 ** 4 };

/** `--sandbox-tmp-size`: bytes, or a number with K, M, G or T (powers of 1024, as in `512M`, `2G`); only with --sandbox. */
export function resolveTmpSize(raw: string | undefined, sandbox: boolean): number {
  if (raw === undefined) return DEFAULT_TMP_BYTES;
  if (!sandbox) throw new UsageError('--sandbox-tmp-size only applies with --sandbox.');
  const match = /^(\d+(?:\.\d+)?)\s*([kmgt]?)(?:i?b)?$/i.exec(raw.trim());
  const bytes = match ? Math.floor(Number(match[1]) * UNITS[match[2]!.toLowerCase()]!) : NaN;
  if (!Number.isFinite(bytes) || bytes < MIN_TMP_BYTES) {
    throw new UsageError(`--sandbox-tmp-size '${raw}': give a size of at least 1M, such as 512M or 2G.`);
  }
  return bytes;
}
