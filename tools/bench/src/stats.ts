/**
 * Small, pure number helpers for the benchmark report: percentiles, ratios and rounding.
 */

/**
 * percentile returns the `p`-th percentile (0–100) of `samples` by the nearest-rank method: the
 * smallest sample with at least `p`% of the samples at or below it. Undefined for no samples.
 *
 * @example
 * percentile([5, 1, 3], 50); // 3
 */
export function percentile(samples: readonly number[], p: number): number | undefined {
  if (samples.length === 0) return undefined;
  if (!(p >= 0 && p <= 100)) throw new RangeError(`percentile must be within 0..100, got ${p}`);
  const sorted = [...samples].sort((a, b) => a - b);
  const rank = Math.max(1, Math.ceil((p / 100) * sorted.length));
  return sorted[rank - 1];
}

/**
 * ratio divides `numerator` by `denominator`, or returns null when either is missing or the
 * denominator is not positive, so a measurement that could not run never becomes a number.
 */
export function ratio(
  numerator: number | null | undefined,
  denominator: number | null | undefined,
): number | null {
  if (numerator == null || denominator == null || !(denominator > 0)) return null;
  return numerator / denominator;
}

/** round keeps `digits` decimals (default 2); null stays null. */
export function round(value: number | null | undefined, digits = 2): number | null {
  if (value == null || !Number.isFinite(value)) return null;
  const f = 10 ** digits;
  return Math.round(value * f) / f;
}

/**
 * perCrHour scales a request count seen over `windowMs` for `crs` CRs to requests per CR per hour.
 */
export function perCrHour(requests: number, crs: number, windowMs: number): number | null {
  if (!(crs > 0) || !(windowMs > 0)) return null;
  return (requests / crs) * (3_600_000 / windowMs);
}

/**
 * mbPerThousand scales a memory growth in bytes measured with `crs` CRs to megabytes per 1 000 CRs
 * (MiB, 1 048 576 bytes).
 */
export function mbPerThousand(bytes: number, crs: number): number | null {
  if (!(crs > 0)) return null;
  return (bytes / 1_048_576) * (1000 / crs);
}

/** Spread is the median and the range of one figure over rounds; all null when no round measured it. */
export interface Spread {
  readonly median: number | null;
  readonly min: number | null;
  readonly max: number | null;
  /** Rounds that measured the figure. */
  readonly n: number;
}

/**
 * median is the middle sample (the mean of the two middle ones for an even count), ignoring
 * missing values; null when there are none.
 *
 * @example
 * median([3, null, 1, 2]); // 2
 */
export function median(samples: readonly (number | null | undefined)[]): number | null {
  const values = present(samples).sort((a, b) => a - b);
  if (values.length === 0) return null;
  const mid = Math.floor(values.length / 2);
  return values.length % 2 === 1
    ? (values[mid] as number)
    : ((values[mid - 1] as number) + (values[mid] as number)) / 2;
}

/** spread summarizes samples (one per round) as median, minimum and maximum, missing values left out. */
export function spread(samples: readonly (number | null | undefined)[]): Spread {
  const values = present(samples);
  if (values.length === 0) return { median: null, min: null, max: null, n: 0 };
  return { median: median(values), min: Math.min(...values), max: Math.max(...values), n: values.length };
}

function present(samples: readonly (number | null | undefined)[]): number[] {
  return samples.filter((v): v is number => v != null && Number.isFinite(v));
}
