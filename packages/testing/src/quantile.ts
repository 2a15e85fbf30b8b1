/** The `q` quantile (0–1) of ascending `sorted` values, nearest-rank; NaN when empty (latency percentiles of the benchmarks and the soak). */
export function quantile(sorted: readonly number[], q: number): number {
  if (sorted.length === 0) return Number.NaN;
  const rank = Math.min(sorted.length, Math.max(1, Math.ceil(q * sorted.length)));
  return sorted[rank - 1]!;
}
