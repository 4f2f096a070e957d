// Milliseconds on a monotonic clock, for durations and deadlines. Node's `performance` global loads perf_hooks and
// its timing modules on first use, which every run would pay before its first request; process.hrtime loads nothing.
export function nowMs(): number {
  const [seconds, nanoseconds] = process.hrtime();
  return seconds * 1e3 + nanoseconds / 1e6;
}
