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
