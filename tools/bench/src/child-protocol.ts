/**
 * The messages between the benchmark and the Orkestra runtime child process (over Node's IPC
 * channel). The child runs the runtime alone, so its RSS is the runtime's.
 */

/** ParentMessage is sent by the benchmark to the child. */
export type ParentMessage =
  | {
      readonly type: 'start';
      readonly kubeconfigPath: string;
      readonly katalogText: string;
      /** Watch only this namespace (the run's own), so earlier runs' objects are not cached. */
      readonly namespace?: string;
      /** The operator namespace (it exists: Lease, revision and rollout ConfigMaps), as the chart installs it. */
      readonly operatorNamespace: string;
      /**
       * Sharded runs (`--replicas`): this replica's shard ID and how many shards there are; the
       * leader answers `started` once its sharder counts every shard live. Default: not sharded.
       */
      readonly shard?: { readonly id: string; readonly replicas: number };
      /** More `ork run` flags (the admission bench: `--install-crds`, the webhook on loopback). */
      readonly args?: readonly string[];
    }
  | { readonly type: 'sample' }
  | { readonly type: 'stats' }
  | { readonly type: 'steps' }
  | { readonly type: 'stop' };

/** ChildSample is the child's answer to `sample`. */
export interface ChildSample {
  readonly type: 'sample';
  /** process.memoryUsage() after global.gc(). */
  readonly rssBytes: number;
  readonly heapUsedBytes: number;
  /** Finished reconciles, summed over every entry's dispatcher. */
  readonly reconciles: number;
}

/** ChildStats is the child's answer to `stats`: counters read without a collection. */
export interface ChildStats {
  readonly type: 'stats';
  /** Finished reconciles, summed over every entry's dispatcher. */
  readonly reconciles: number;
  /** process.cpuUsage(), user + system, ms. */
  readonly cpuMs: number;
  /** Keys the resync added to the queues so far, summed over every entry. */
  readonly resyncsAdded: number;
  /** Sharded runs: the sharder's label patches so far, on the replica that runs it (0 elsewhere). */
  readonly sharderPatches?: number;
}

/**
 * ChildSteps answers `steps`: seconds spent in each reconcile step so far, summed over reconciles,
 * with the count — the `orkestra_reconcile_step_duration_seconds` histogram of the operator's own
 * /metrics (a scrape of its own, so `stats`, which brackets the CPU readings, stays cheap).
 */
export interface ChildSteps {
  readonly type: 'steps';
  readonly steps: Readonly<Record<string, StepTotal>>;
}

/** StepTotal is one reconcile step's summed time (s) and how many reconciles recorded it. */
export interface StepTotal {
  readonly sum: number;
  readonly count: number;
}

/** ChildMessage is sent by the child to the benchmark. */
export type ChildMessage =
  | { readonly type: 'started' }
  | ChildSample
  | ChildStats
  | ChildSteps
  | { readonly type: 'stopped' }
  | { readonly type: 'error'; readonly message: string };
