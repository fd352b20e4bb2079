/**
 * The runtime's tuning knobs, declared once (docs/reference/runtime.md §22, ADR 0013). The
 * KatalogRuntime, the CrdController, the pipeline and the operator's flags all take this type (or
 * a `Pick` of it) instead of re-declaring the knobs; the defaults live only in
 * RUNTIME_TUNING_DEFAULTS and are applied once, by resolveTuning.
 */
import { DRIFT_LIMIT_DEFAULTS } from './drift-limiter.js';
import type { DriftLimitTuning } from './drift-limiter.js';

/** RuntimeTuning tunes the runtime; every field is optional and has a default (RUNTIME_TUNING_DEFAULTS). */
export interface RuntimeTuning {
  /** Concurrent child writes per CR (`--max-concurrent-writes`). Default 8. */
  readonly maxConcurrentWrites?: number | undefined;
  /** A reconcile running longer is aborted and retried (`--reconcile-timeout`). Default 300 000 ms. */
  readonly reconcileTimeoutMs?: number | undefined;
  /** Silent watches are relisted after this long (`--watch-idle-timeout`). Default 300 000 ms. */
  readonly watchIdleTimeoutMs?: number | undefined;
  /** How long `start` waits for the first list of every informer. Default 120 000 ms. */
  readonly syncTimeoutMs?: number | undefined;
  /** Overrides every entry's resync interval in ms (0 disables). Default: each entry's `resync`. */
  readonly resyncMs?: number | undefined;
  /**
   * Skip a CR's resync when a reconcile caused by a change succeeded within the interval
   * (`--resync-skip-recent`, runtime.md §16). Default true; false resyncs every CR every interval.
   */
  readonly resyncSkipRecent?: boolean | undefined;
  /** Watch only this namespace (namespaced CRs and children). Default: all namespaces (or the guard's pinned one). */
  readonly namespace?: string | undefined;
  /** The operator's own namespace (`--namespace`): where per-entry credentials (autoscale sources' `auth.secretRef`) are read. Default `orkestra-system`. */
  readonly operatorNamespace?: string | undefined;
  /** Where git checkouts live (`--work-dir`). Default: a new temporary directory, made when an entry has `git`. */
  readonly workDir?: string | undefined;
  /** Most bytes git checkouts may fill the work directory with (`--max-work-dir-bytes`); 0: no cap. Default 1 GiB. */
  readonly maxWorkDirBytes?: number | undefined;
  /** Docker builds at a time (`--max-concurrent-builds`). Default 1. */
  readonly maxConcurrentBuilds?: number | undefined;
  /** How often the git poller looks for due checkouts. Default: the smallest declared `pollInterval`, clamped to 1000–15 000 ms. */
  readonly gitPollTickMs?: number | undefined;
  /** Allow external calls, cross HTTP reads and git hosts at link-local and cloud metadata addresses. Default false. */
  readonly allowLinkLocal?: boolean | undefined;
  /** CIDRs outbound calls may reach although the address guard refuses them by default (`--allow-private-addresses`). Default none. */
  readonly allowPrivateAddresses?: readonly string[] | undefined;
  /**
   * Bounds re-applies of a child that another writer keeps changing back (`forceConflict: true`):
   * more than `maxCorrections` (5) within `windowMs` (60 s) back off from `initialBackoffMs` (1 s),
   * doubling to `maxBackoffMs` (5 min), with one `DriftFight` Warning per episode.
   */
  readonly driftLimit?: DriftLimitTuning | undefined;
}

/**
 * ResolvedTuning is RuntimeTuning with every default applied. The knobs whose default depends on
 * the Katalog (`resyncMs`, `namespace`, `workDir`, `gitPollTickMs`) stay optional.
 */
export interface ResolvedTuning {
  readonly maxConcurrentWrites: number;
  readonly reconcileTimeoutMs: number;
  readonly watchIdleTimeoutMs: number;
  readonly syncTimeoutMs: number;
  readonly resyncMs: number | undefined;
  readonly resyncSkipRecent: boolean;
  readonly namespace: string | undefined;
  readonly operatorNamespace: string;
  readonly workDir: string | undefined;
  readonly maxWorkDirBytes: number;
  readonly maxConcurrentBuilds: number;
  readonly gitPollTickMs: number | undefined;
  readonly allowLinkLocal: boolean;
  readonly allowPrivateAddresses: readonly string[];
  readonly driftLimit: Required<DriftLimitTuning>;
}

/** RUNTIME_TUNING_DEFAULTS are the defaults of RuntimeTuning, the only place they are written down. */
export const RUNTIME_TUNING_DEFAULTS: ResolvedTuning = Object.freeze({
  maxConcurrentWrites: 8,
  reconcileTimeoutMs: 300_000,
  watchIdleTimeoutMs: 300_000,
  syncTimeoutMs: 120_000,
  resyncMs: undefined,
  resyncSkipRecent: true,
  namespace: undefined,
  operatorNamespace: 'orkestra-system',
  workDir: undefined,
  maxWorkDirBytes: 1024 * 1024 * 1024,
  maxConcurrentBuilds: 1,
  gitPollTickMs: undefined,
  allowLinkLocal: false,
  allowPrivateAddresses: Object.freeze([]) as readonly string[],
  driftLimit: Object.freeze({ ...DRIFT_LIMIT_DEFAULTS }),
});

/**
 * resolveTuning applies RUNTIME_TUNING_DEFAULTS to every knob left out (or `undefined`); the
 * drift limit is merged field by field. A knob that is not a positive integer where one is needed
 * is a RangeError naming it.
 *
 * @example
 * resolveTuning({ maxConcurrentWrites: 16 }).reconcileTimeoutMs; // 300 000
 */
export function resolveTuning(tuning: RuntimeTuning = {}): ResolvedTuning {
  const pick = <K extends keyof ResolvedTuning>(key: K): ResolvedTuning[K] =>
    ((tuning as Record<string, unknown>)[key] ?? RUNTIME_TUNING_DEFAULTS[key]) as ResolvedTuning[K];
  const drift = tuning.driftLimit ?? {};
  const resolved: ResolvedTuning = {
    maxConcurrentWrites: pick('maxConcurrentWrites'),
    reconcileTimeoutMs: pick('reconcileTimeoutMs'),
    watchIdleTimeoutMs: pick('watchIdleTimeoutMs'),
    syncTimeoutMs: pick('syncTimeoutMs'),
    resyncMs: tuning.resyncMs,
    resyncSkipRecent: pick('resyncSkipRecent'),
    namespace: tuning.namespace,
    operatorNamespace: pick('operatorNamespace'),
    workDir: tuning.workDir,
    maxWorkDirBytes: pick('maxWorkDirBytes'),
    maxConcurrentBuilds: pick('maxConcurrentBuilds'),
    gitPollTickMs: tuning.gitPollTickMs,
    allowLinkLocal: pick('allowLinkLocal'),
    allowPrivateAddresses: pick('allowPrivateAddresses'),
    driftLimit: {
      maxCorrections: drift.maxCorrections ?? DRIFT_LIMIT_DEFAULTS.maxCorrections,
      windowMs: drift.windowMs ?? DRIFT_LIMIT_DEFAULTS.windowMs,
      initialBackoffMs: drift.initialBackoffMs ?? DRIFT_LIMIT_DEFAULTS.initialBackoffMs,
      maxBackoffMs: drift.maxBackoffMs ?? DRIFT_LIMIT_DEFAULTS.maxBackoffMs,
    },
  };
  for (const key of ['maxConcurrentWrites', 'maxConcurrentBuilds'] as const) {
    if (!Number.isInteger(resolved[key]) || resolved[key] < 1)
      throw new RangeError(`tuning.${key} must be a positive integer, got ${String(resolved[key])}`);
  }
  return resolved;
}
