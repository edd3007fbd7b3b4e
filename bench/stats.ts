/** Small statistics over millisecond samples. */

export interface Summary {
  readonly n: number;
  readonly p50: number;
  readonly p99: number;
  readonly mean: number;
}

/** Nearest-rank percentile of samples (p in 0..100). */
export const percentile = (samples: readonly number[], p: number): number => {
  if (samples.length === 0) return Number.NaN;
  const sorted = [...samples].sort((a, b) => a - b);
  const rank = Math.min(sorted.length - 1, Math.max(0, Math.ceil((p / 100) * sorted.length) - 1));
  return sorted[rank]!;
};

export const median = (samples: readonly number[]): number => percentile(samples, 50);

export const summarize = (samples: readonly number[]): Summary => ({
  n: samples.length,
  p50: round(percentile(samples, 50)),
  p99: round(percentile(samples, 99)),
  mean: round(samples.reduce((sum, x) => sum + x, 0) / Math.max(1, samples.length)),
});

export const round = (x: number, digits = 3): number => Number(x.toFixed(digits));

export const ratio = (subject: number, floor: number): number => round(subject / floor, 2);

/** Times one async call in milliseconds. */
export const timed = async <T>(call: () => Promise<T>): Promise<[number, T]> => {
  const start = performance.now();
  const value = await call();
  return [performance.now() - start, value];
};
