import type { KubeConfig } from '@kubernetes/client-node';
import { createKatalogRuntime, keyOf } from '@orkestra/reconciler';
import type {
  CrossAuthorize,
  CrossHandler,
  EventSubject,
  KatalogRuntime,
  RuntimeShard,
  RuntimeTuning,
} from '@orkestra/reconciler';
import type { RuntimeRevisions } from '@orkestra/reconciler/rollout';
import type { KubeObject } from '@orkestra/registry';
import type { LoadedModuleExport, Katalog, Logger, Provider } from '@orkestra/types';
import type { MetricSampleRow, MetricsSink, ScrapeGauges } from './metrics.js';

/** CreateOperatorRuntimeOptions configures createOperatorRuntime. */
export interface CreateOperatorRuntimeOptions {
  readonly katalog: Katalog;
  /** The Katalog file as written (parsed), for the Live API's `/katalog/raw` (runtime.md §18.6). */
  readonly source?: unknown;
  /** The process's metrics, for the Live API's `/api/v1/query` (runtime.md §18.6, ADR 0083). */
  readonly metricSamples?: () => Promise<readonly MetricSampleRow[]>;
  readonly kubeConfig: KubeConfig;
  /** `User-Agent` of the runtime's requests: the operator's (ADR 0035). Default `orkestra`. */
  readonly userAgent?: string;
  readonly logger: Logger;
  /** False keeps a warm standby (informers only) until `startWorkers`. */
  readonly leaderElected: boolean;
  /** The runtime's tuning (docs/reference/runtime.md §22); knobs left out take RUNTIME_TUNING_DEFAULTS. */
  readonly tuning: RuntimeTuning;
  /** Receives the runtime's counters and histograms; scrape-time gauges come from `collect`. */
  readonly metrics?: MetricsSink;
  /** The loaded providers by Katalog name. */
  readonly providers?: ReadonlyMap<string, Provider>;
  /** The module hooks loaded at start, by `<package>#<export>` (ADR 0052). */
  readonly moduleHooks?: ReadonlyMap<string, LoadedModuleExport>;
  /** Environment of hooks (external `auth.env`, git, builders). Default `process.env`. */
  readonly env?: Readonly<Record<string, string | undefined>>;
  /** Called with every Event the runtime records (the Control Center keeps the recent ones). */
  readonly onEvent?: (subject: EventSubject, type: string, reason: string, message: string) => void;
  /** How long `start` waits for the first list of every informer. Default 120 000 ms. */
  readonly syncTimeoutMs?: number;
  /** the revisions and the per-CR choice (docs/reference/runtime.md §24.2). */
  readonly revisions?: RuntimeRevisions;
  /** Sharded operators (docs/reference/runtime.md §25): this replica's shard. Default: every CR. */
  readonly shard?: RuntimeShard;
  /** Who may read over the cross-read port, and the token this operator sends (docs/adr/0030). */
  readonly cross?: {
    readonly authorize: CrossAuthorize;
    readonly token?: () => Promise<string | undefined>;
  };
}

/** KatalogEntrySummary is one entry as `/katalog` shows it: no templates, no secrets. */
interface KatalogEntrySummary {
  readonly name: string;
  readonly apiTypes: {
    readonly group: string;
    readonly version: string;
    readonly kind: string;
    readonly plural: string;
  };
  readonly namespaced: boolean;
  readonly crossAccess: boolean;
  readonly synced: boolean;
  readonly workers: number;
  readonly activeWorkers: number;
  readonly queueDepth: number;
  readonly cachedObjects: number;
}

/**
 * OperatorRuntime is the operator's view of `@orkestra/reconciler`'s KatalogRuntime: the one seam
 * between process concerns (leader election, HTTP, reload) and the reconcile engine, so a new
 * runtime hook is wired in this file only.
 */
export interface OperatorRuntime {
  /** Starts informers and waits for their first list; then, when elected, workers. */
  start(): Promise<void>;
  /** Starts workers, resync and timers (on becoming leader). */
  startWorkers(): void;
  /** Stops taking work, waits up to `timeoutMs` for in-flight reconciles, flushes events, stops informers. */
  stop(timeoutMs: number): Promise<void>;
  /** True when every informer has completed its first list. */
  isReady(): boolean;
  /** The entries for `/katalog`. */
  summary(): KatalogEntrySummary[];
  /** Serves `/katalog/crds/<entry>/objects/<namespace>/<name>` from the caches; false when the path is not its own. */
  crossHandler: CrossHandler;
  /** Sets the scrape-time gauges: queue depth, workers, cache sizes. */
  collect(gauges: ScrapeGauges): void;
  /** The reconciler's runtime, for in-process reads of its caches (the Control Center). */
  readonly engine: KatalogRuntime;
  /**
   * Every CR of every entry (the rollout gate): from the primary caches, or on a sharded replica
   * that watches every entry across shards (the leader, `watchAllShards`) from that view (ADR 0058).
   */
  crs(): KubeObject[];
  /** Re-queues one CR (its revision changed), when this replica reconciles it. */
  enqueue(cr: KubeObject): void;
  /** Sharded replicas: watch every entry across shards (on becoming leader, for the rollout gate). No-op otherwise. */
  watchAllShards(): void;
  /** True when the CRs `crs()` lists are complete: the runtime is ready and, sharded, every watched kind has listed. */
  crsReady(): boolean;
  /** docs/reference/runtime.md §24: the runtime's Event recorder. */
  readonly events: KatalogRuntime['events'];
}

/**
 * createOperatorRuntime builds the KatalogRuntime for one Katalog with the operator's tuning and
 * wraps it in the small OperatorRuntime interface.
 *
 * @example
 * const runtime = createOperatorRuntime({ katalog, kubeConfig, logger, leaderElected: true, tuning });
 * await runtime.start();
 */
export function createOperatorRuntime(options: CreateOperatorRuntimeOptions): OperatorRuntime {
  const runtime: KatalogRuntime = createKatalogRuntime({
    katalog: options.katalog,
    kubeConfig: options.kubeConfig,
    ...(options.userAgent == null ? {} : { userAgent: options.userAgent }),
    logger: options.logger,
    leaderElected: options.leaderElected,
    ...(options.providers == null ? {} : { providers: options.providers }),
    ...(options.moduleHooks == null ? {} : { moduleHooks: options.moduleHooks }),
    ...(options.metrics == null ? {} : { observer: options.metrics }),
    ...(options.revisions == null ? {} : { revisions: options.revisions }),
    ...(options.shard == null ? {} : { shard: options.shard }),
    ...(options.source === undefined ? {} : { source: options.source }),
    ...(options.metricSamples == null ? {} : { metricSamples: options.metricSamples }),
    options: {
      ...options.tuning,
      ...(options.env == null ? {} : { env: options.env }),
      ...(options.syncTimeoutMs == null ? {} : { syncTimeoutMs: options.syncTimeoutMs }),
      ...(options.cross == null ? {} : { crossAuthorize: options.cross.authorize }),
      ...(options.cross?.token == null ? {} : { crossToken: options.cross.token }),
      // Protocol clients (`@orkestra/protocol-postgres`) resolve from the operator, like providers.
      importProtocol: (specifier: string) => import(specifier),
    },
  });
  const crdEntries = options.katalog.spec.crds;
  const onEvent = options.onEvent;
  if (onEvent != null) {
    // The recorder's record() is the one path of normal() and warning(); watch it here.
    const events = runtime.events;
    const record = events.record.bind(events);
    events.record = (subject, type, reason, message) => {
      const queued = record(subject, type, reason, message);
      if (queued) onEvent(subject, type, reason, message);
      return queued;
    };
  }

  return {
    start: () => runtime.start(),
    startWorkers: () => runtime.startWorkers(),
    stop: (timeoutMs) => runtime.stop({ timeoutMs }),
    isReady: () => runtime.isReady(),
    summary: () =>
      [...runtime.entries.values()].map((entry) => {
        const declared = crdEntries[entry.name];
        const dispatcher = entry.dispatcher.stats();
        const { group, version, kind, plural } = entry.controller.crd.apiTypes;
        return {
          name: entry.name,
          apiTypes: { group, version, kind, plural },
          namespaced: declared?.namespaced ?? true,
          crossAccess: declared?.crossAccess ?? false,
          synced: entry.informer.hasSynced(),
          workers: dispatcher.capacity,
          activeWorkers: dispatcher.inFlight,
          queueDepth: entry.queue.stats().depth,
          cachedObjects: entry.cache.size,
        };
      }),
    crossHandler: (request, response) => runtime.crossHandler(request, response),
    engine: runtime,
    crs: () => {
      const view = runtime.crossShard;
      if (view != null && view.entries().length === runtime.entries.size) return view.crs() as KubeObject[];
      return [...runtime.entries.values()].flatMap((entry) => entry.cache.list() as KubeObject[]);
    },
    enqueue: (cr) => {
      for (const entry of runtime.entries.values()) {
        const crd = entry.controller.crd;
        const key = keyOf(cr);
        // Another shard's CR is re-queued by that shard, which follows the rollout state (ADR 0058).
        if (crd.apiVersion === cr.apiVersion && crd.apiTypes.kind === cr.kind && entry.cache.get(key) != null)
          entry.controller.enqueueKey(key);
      }
    },
    watchAllShards: () => runtime.crossShard?.watchAll(),
    crsReady: () => runtime.isReady() && (runtime.crossShard?.hasSynced() ?? true),
    events: runtime.events,
    collect: (gauges) => {
      const snapshot = runtime.snapshot();
      for (const entry of snapshot.entries) {
        gauges.queue(entry.controller, {
          depth: entry.depth,
          activeWorkers: entry.activeWorkers,
          unfinishedWorkSeconds: entry.unfinishedWorkSeconds,
          longestRunningSeconds: entry.longestRunningSeconds,
        });
        if (entry.autoscale != null) options.metrics?.autoscaleState(entry.controller, entry.autoscale);
      }
      for (const cache of snapshot.caches) gauges.cacheObjects(cache.resource, cache.objects);
    },
  };
}
