/**
 * Pure helpers of the readiness-lag bench (docs/reference/runtime.md §7): one CR's lag decomposed into its parts, and
 * the per-round summary (nearest-rank p50/p99, min, max) of each part.
 */
import { percentile } from './stats.js';

/** CrTimes are the instants (ms, one monotonic clock) recorded for one CR; absent when not seen. */
export interface CrTimes {
  /** The bench's own Deployment watch delivered the first Available=True, all replicas available. */
  readonly availableSeen?: number | undefined;
  /** The Deployment's Available lastTransitionTime (wall ms; the API server keeps whole seconds). */
  readonly availableTransition?: number | undefined;
  /** Wall-clock time of `availableSeen`. */
  readonly availableSeenWall?: number | undefined;
  /** The runtime's child cache received that Deployment version. */
  readonly runtimeSeen?: number | undefined;
  /** Every reconcile of the CR that wrote something: when it ended and how long it ran (ms). */
  readonly reconciles: readonly { readonly endAt: number; readonly durationMs: number }[];
  /** The bench's CR watch delivered the first Ready=True. */
  readonly readySeen?: number | undefined;
  /** Wall-clock time of `readySeen`. */
  readonly readySeenWall?: number | undefined;
}

/** LagParts is one CR's lag and where it went (ms). */
export interface LagParts {
  /** readySeen − availableSeen: what `kubectl wait` sees after the Deployment's own Available. */
  readonly lag: number;
  /** readySeenWall − availableTransition (whole-second resolution of lastTransitionTime). */
  readonly lagFromTransition: number | undefined;
  /**
   * availableSeenWall − availableTransition: before Orkestra can act — the truncation of
   * lastTransitionTime to whole seconds (0–1 s), the controller-manager's write and the watch.
   */
  readonly beforeRuntime: number | undefined;
  /** The runtime's child informer versus the bench's watch of the same event. */
  readonly childEvent: number | undefined;
  /** From the runtime seeing the event to the start of the reconcile that wrote Ready=True. */
  readonly queued: number | undefined;
  /** That reconcile's duration (rendering, applies, status write). */
  readonly reconcile: number | undefined;
  /** From that reconcile's end to the bench's watch delivering Ready=True (may be slightly negative). */
  readonly echo: number | undefined;
}

/**
 * decompose splits one CR's lag; undefined when Available or Ready was not seen. The reconcile that
 * wrote Ready=True is the reconcile with writes that ended nearest to Ready being seen: the watch
 * event of a status write can be delivered before the write's own answer (separate connections),
 * so `echo` may be slightly negative. A negative `queued` means that reconcile was already running
 * when the runtime saw the event (its status step read the updated cache).
 */
export function decompose(t: CrTimes): LagParts | undefined {
  if (t.availableSeen == null || t.readySeen == null) return undefined;
  const readySeen = t.readySeen;
  let last: { endAt: number; durationMs: number } | undefined;
  for (const r of t.reconciles)
    if (last == null || Math.abs(r.endAt - readySeen) < Math.abs(last.endAt - readySeen)) last = r;
  const start = last == null ? undefined : last.endAt - last.durationMs;
  return {
    lag: readySeen - t.availableSeen,
    lagFromTransition:
      t.availableTransition == null || t.readySeenWall == null
        ? undefined
        : t.readySeenWall - t.availableTransition,
    beforeRuntime:
      t.availableTransition == null || t.availableSeenWall == null
        ? undefined
        : t.availableSeenWall - t.availableTransition,
    childEvent: t.runtimeSeen == null ? undefined : t.runtimeSeen - t.availableSeen,
    queued: start == null || t.runtimeSeen == null ? undefined : start - t.runtimeSeen,
    reconcile: last?.durationMs,
    echo: last == null ? undefined : readySeen - last.endAt,
  };
}

/** Quantiles are nearest-rank p50 and p99, min and max (ms, rounded); null without samples. */
export interface Quantiles {
  readonly p50: number | null;
  readonly p99: number | null;
  readonly min: number | null;
  readonly max: number | null;
  readonly n: number;
}

/** quantiles summarizes samples, leaving out missing ones. */
export function quantiles(samples: readonly (number | undefined)[]): Quantiles {
  const values = samples.filter((v): v is number => v != null && Number.isFinite(v));
  const r = (v: number | undefined): number | null => (v == null ? null : Math.round(v));
  return {
    p50: r(percentile(values, 50)),
    p99: r(percentile(values, 99)),
    min: r(values.length === 0 ? undefined : Math.min(...values)),
    max: r(values.length === 0 ? undefined : Math.max(...values)),
    n: values.length,
  };
}

/** summarizeParts gives the quantiles of the lag and of each of its parts over the CRs of a round. */
export function summarizeParts(parts: readonly LagParts[]): Record<keyof LagParts, Quantiles> {
  const of = (k: keyof LagParts): Quantiles => quantiles(parts.map((p) => p[k]));
  return {
    lag: of('lag'),
    lagFromTransition: of('lagFromTransition'),
    beforeRuntime: of('beforeRuntime'),
    childEvent: of('childEvent'),
    queued: of('queued'),
    reconcile: of('reconcile'),
    echo: of('echo'),
  };
}
