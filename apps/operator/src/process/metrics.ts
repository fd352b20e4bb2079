import type { AutoscaleTarget, RuntimeObserver } from '@orkestra/reconciler';
import { Counter, Gauge, Histogram, Registry, collectDefaultMetrics } from 'prom-client';

/** RECONCILE_TIME_BUCKETS are controller-runtime's buckets for `controller_runtime_reconcile_time_seconds`. */
export const RECONCILE_TIME_BUCKETS: readonly number[] = [
  0.005, 0.01, 0.025, 0.05, 0.1, 0.15, 0.2, 0.25, 0.3, 0.35, 0.4, 0.45, 0.5, 0.6, 0.7, 0.8, 0.9, 1.0, 1.25,
  1.5, 1.75, 2.0, 2.5, 3.0, 3.5, 4.0, 4.5, 5, 6, 7, 8, 9, 10, 15, 20, 25, 30, 40, 50, 60,
];

/** WORKQUEUE_DURATION_BUCKETS are controller-runtime's workqueue buckets: 10 ns × 10^k for k = 0…11. */
export const WORKQUEUE_DURATION_BUCKETS: readonly number[] = Array.from({ length: 12 }, (_, k) =>
  Number(`1e${k - 8}`),
);

/** REST_CLIENT_DURATION_BUCKETS are client-go's buckets for `rest_client_request_duration_seconds`. */
const REST_CLIENT_DURATION_BUCKETS: readonly number[] = [
  0.005, 0.025, 0.1, 0.25, 0.5, 1.0, 2.0, 4.0, 8.0, 15.0, 30.0, 60.0,
];

/** BUILD_DURATION_BUCKETS are the buckets of `orkestra_docker_build_duration_seconds` (1 s to 1 h). */
const BUILD_DURATION_BUCKETS: readonly number[] = [1, 5, 10, 30, 60, 120, 300, 600, 1200, 1800, 3600];

/** AutoscaleDirection is the `direction` label of `orkestra_autoscale_decisions_total`. */
export const AutoscaleDirection = { Up: 'up', Down: 'down' } as const;
export type AutoscaleDirection = (typeof AutoscaleDirection)[keyof typeof AutoscaleDirection];

/** ProviderOperation is the `operation` label of the provider call metrics. */
export const ProviderOperation = { Reconcile: 'reconcile', Delete: 'delete' } as const;
export type ProviderOperation = (typeof ProviderOperation)[keyof typeof ProviderOperation];

/**
 * MetricsSink is how the operator records what happened: one method per event, named after what it
 * records. It is the reconciler's `RuntimeObserver` (reconciles, queue, REST requests, informers,
 * child and status writes, events, validation, secrets), so the runtime takes the sink as its
 * observer unchanged, plus the events only the operator process reports. `controller` is always the
 * CRD entry name; no argument may carry a CR name, URL, repository or image (docs/reference/runtime.md §18.2).
 */
export interface MetricsSink extends RuntimeObserver {
  /** This replica became leader (true) or stopped leading (false) for the Lease `name`. */
  leaderStatus(name: string, leading: boolean): void;
  /** An external call ended; `call` is its Katalog name, `result` e.g. `success`/`error`/`cached`. */
  externalCall(controller: string, call: string, result: string, seconds: number): void;
  /** A git operation ended (`clone`, `fetch`, `poll`, …). */
  gitOperation(controller: string, operation: string, result: string): void;
  /** An image build ended. */
  dockerBuild(controller: string, result: string, seconds: number): void;
  /** A provider call ended. */
  providerCall(
    controller: string,
    provider: string,
    kind: string,
    operation: ProviderOperation,
    result: string,
    seconds: number,
  ): void;
  /** The autoscaler's current settings for an entry. */
  autoscaleState(
    controller: string,
    state: {
      readonly workers?: number;
      readonly queueDepthLimit?: number;
      readonly resyncSeconds?: number;
      readonly overrideActive?: boolean;
    },
  ): void;
  /** The autoscaler changed a setting. */
  autoscaleDecision(controller: string, target: AutoscaleTarget, direction: AutoscaleDirection): void;
}

/** QueueGauges is one entry's work-queue and worker readings at scrape time. */
export interface QueueGauges {
  readonly depth: number;
  readonly activeWorkers: number;
  /** Summed age of running reconciles, seconds. */
  readonly unfinishedWorkSeconds: number;
  /** Age of the oldest running reconcile, seconds. */
  readonly longestRunningSeconds: number;
}

/** ScrapeGauges is what a collector sets when `/metrics` is scraped. */
export interface ScrapeGauges {
  /** workqueue_depth, controller_runtime_active_workers, workqueue_unfinished_work_seconds, workqueue_longest_running_processor_seconds. */
  queue(controller: string, readings: QueueGauges): void;
  /** orkestra_cache_objects. */
  cacheObjects(resource: string, count: number): void;
}

/** Collector is called at every scrape, before the text is produced. */
export type Collector = (gauges: ScrapeGauges) => void | Promise<void>;

/** CreateOperatorMetricsOptions configures createOperatorMetrics. */
export interface CreateOperatorMetricsOptions {
  /** The Katalog's name, for `orkestra_katalog_info`. */
  readonly katalogName: string;
  /** The Katalog's `metadata.version` (or the operator version), for `orkestra_katalog_info`. */
  readonly version: string;
  /** Also collect prom-client's default process and Node.js metrics. Default true. */
  readonly defaultMetrics?: boolean;
}

/** OperatorMetrics is the operator's metrics registry and the ways to feed it. */
export interface OperatorMetrics {
  /** The registry `/metrics` serves; scraping it runs the collectors first. */
  readonly registry: Registry;
  /** The push-side interface handed to the runtime. */
  readonly sink: MetricsSink;
  /** addCollector registers a function called at each scrape to set gauges; returns its removal. */
  addCollector(collector: Collector): () => void;
  /** katalogLoaded replaces the `orkestra_katalog_info` series after a hot reload. */
  katalogLoaded(version: string): void;
  /** the rollout's phase, step and CRs per assigned revision (docs/reference/runtime.md §18.2, §24). */
  rollout(readings: RolloutReadings): void;
  /** Sharded operators (docs/reference/runtime.md §25): this replica's shard and its sharder's counts (a claimer's on every joined replica, the whole sharder's on the leader; ADR 0103). */
  sharding(readings: ShardingReadings): void;
}

/** ShardingReadings is what the shard gauges show at a scrape. */
export interface ShardingReadings {
  readonly shard: string;
  /** Whether this replica holds its shard Lease (reconciles). */
  readonly held: boolean;
  /** The sharder's counts while this replica runs it; cumulative since it started. */
  readonly sharder?: {
    readonly live: readonly string[];
    readonly objects: number;
    readonly assigned: number;
    readonly drained: number;
    readonly undrained: number;
    readonly conflicts: number;
    readonly failures: number;
  };
}

/** RolloutReadings is what the rollout gauges show after a rollout tick. */
export interface RolloutReadings {
  readonly phase: string;
  readonly step: number;
  /** CRs by the revision they are assigned (`target` and `stable` revision names). */
  readonly crs: Readonly<Record<string, number>>;
  /** Gate failures and rollbacks since the last reading. */
  readonly gateFailures: number;
  readonly rolledBack: number;
}

/** Runs collectors before every exposition, so scrape-time gauges are fresh whoever asks. */
class CollectingRegistry extends Registry {
  readonly collectors = new Set<Collector>();
  readonly gauges: ScrapeGauges;
  readonly resetScrapeGauges: () => void;

  constructor(gauges: ScrapeGauges, reset: () => void) {
    super();
    this.gauges = gauges;
    this.resetScrapeGauges = reset;
  }

  async runCollectors(): Promise<void> {
    this.resetScrapeGauges();
    for (const collector of this.collectors) await collector(this.gauges);
  }

  override async metrics(): Promise<string> {
    await this.runCollectors();
    return super.metrics();
  }

  override async getMetricsAsJSON(): ReturnType<Registry['getMetricsAsJSON']> {
    await this.runCollectors();
    return super.getMetricsAsJSON();
  }
}

/**
 * createOperatorMetrics builds the registry of docs/reference/runtime.md §18.2 with exactly its metric names,
 * types and labels (controller-runtime's histogram buckets for reconcile and workqueue durations),
 * plus prom-client's default process metrics. Counters and histograms are fed through `sink`;
 * gauges that are cheaper to read than to track (queue depth, active workers, cache sizes) are
 * set by collectors at scrape time.
 *
 * @example
 * const metrics = createOperatorMetrics({ katalogName: 'shop', version: '1.2.0' });
 * metrics.sink.reconcileFinished('website', 'success', 0.012);
 * metrics.addCollector((g) => g.queue('website', { depth: 3, activeWorkers: 1, unfinishedWorkSeconds: 0, longestRunningSeconds: 0 }));
 * const text = await metrics.registry.metrics();
 */
export function createOperatorMetrics(options: CreateOperatorMetricsOptions): OperatorMetrics {
  const scrape = {
    queueDepth: undefined as Gauge<'controller' | 'name'> | undefined,
    activeWorkers: undefined as Gauge<'controller'> | undefined,
    unfinished: undefined as Gauge<'controller' | 'name'> | undefined,
    longest: undefined as Gauge<'controller' | 'name'> | undefined,
    cacheObjects: undefined as Gauge<'resource'> | undefined,
  };
  const gauges: ScrapeGauges = {
    queue: (controller, readings) => {
      const labels = { controller, name: controller };
      scrape.queueDepth?.set(labels, readings.depth);
      scrape.activeWorkers?.set({ controller }, readings.activeWorkers);
      scrape.unfinished?.set(labels, readings.unfinishedWorkSeconds);
      scrape.longest?.set(labels, readings.longestRunningSeconds);
    },
    cacheObjects: (resource, count) => scrape.cacheObjects?.set({ resource }, count),
  };
  const registry = new CollectingRegistry(gauges, () => {
    for (const gauge of Object.values(scrape)) gauge?.reset();
  });
  const registers = [registry];

  const counter = <L extends string>(name: string, help: string, labelNames: readonly L[]): Counter<L> =>
    new Counter<L>({ name, help, labelNames, registers });
  const gauge = <L extends string>(name: string, help: string, labelNames: readonly L[]): Gauge<L> =>
    new Gauge<L>({ name, help, labelNames, registers });
  const histogram = <L extends string>(
    name: string,
    help: string,
    labelNames: readonly L[],
    buckets: readonly number[],
  ): Histogram<L> => new Histogram<L>({ name, help, labelNames, buckets: [...buckets], registers });

  // controller-runtime; `result` is controller-runtime's set (success, error, requeue, requeue_after),
  // of which the runtime reports the `ObservedReconcileResult` subset.
  const reconcileTotal = counter(
    'controller_runtime_reconcile_total',
    'Total number of reconciliations per controller',
    ['controller', 'result'],
  );
  const reconcileErrors = counter(
    'controller_runtime_reconcile_errors_total',
    'Total number of reconciliation errors per controller',
    ['controller'],
  );
  const terminalErrors = counter(
    'controller_runtime_terminal_reconcile_errors_total',
    'Total number of terminal reconciliation errors per controller',
    ['controller'],
  );
  const panics = counter(
    'controller_runtime_reconcile_panics_total',
    'Total number of reconciliation panics per controller',
    ['controller'],
  );
  const timeouts = counter(
    'controller_runtime_reconcile_timeouts_total',
    'Total number of reconciliation timeouts per controller',
    ['controller'],
  );
  const reconcileTime = histogram(
    'controller_runtime_reconcile_time_seconds',
    'Length of time per reconciliation per controller',
    ['controller'],
    RECONCILE_TIME_BUCKETS,
  );
  scrape.activeWorkers = gauge(
    'controller_runtime_active_workers',
    'Number of currently used workers per controller',
    ['controller'],
  );
  const maxConcurrent = gauge(
    'controller_runtime_max_concurrent_reconciles',
    'Maximum number of concurrent reconciles per controller',
    ['controller'],
  );

  // workqueue
  const queueLabels = ['controller', 'name'] as const;
  scrape.queueDepth = gauge('workqueue_depth', 'Current depth of workqueue', queueLabels);
  const queueAdds = counter('workqueue_adds_total', 'Total number of adds handled by workqueue', queueLabels);
  const queueDuration = histogram(
    'workqueue_queue_duration_seconds',
    'How long in seconds an item stays in workqueue before being requested',
    queueLabels,
    WORKQUEUE_DURATION_BUCKETS,
  );
  const workDuration = histogram(
    'workqueue_work_duration_seconds',
    'How long in seconds processing an item from workqueue takes',
    queueLabels,
    WORKQUEUE_DURATION_BUCKETS,
  );
  const queueRetries = counter(
    'workqueue_retries_total',
    'Total number of retries handled by workqueue',
    queueLabels,
  );
  scrape.unfinished = gauge(
    'workqueue_unfinished_work_seconds',
    "How many seconds of work has been done that is in progress and hasn't been observed by work_duration",
    queueLabels,
  );
  scrape.longest = gauge(
    'workqueue_longest_running_processor_seconds',
    'How many seconds has the longest running processor for workqueue been running',
    queueLabels,
  );

  // client, leader election, identity
  const restRequests = counter(
    'rest_client_requests_total',
    'Number of HTTP requests, partitioned by status code, method, and host',
    ['code', 'method', 'host'],
  );
  const restDuration = histogram(
    'rest_client_request_duration_seconds',
    'Request latency in seconds, broken down by verb and host',
    ['verb', 'host'],
    REST_CLIENT_DURATION_BUCKETS,
  );
  const leader = gauge(
    'leader_election_master_status',
    'Gauge of if the reporting system is master of the relevant lease, 0 indicates backup, 1 indicates master',
    ['name'],
  );
  // Sharding (docs/reference/runtime.md §25)
  const shardHeld = gauge('orkestra_shard_lease_held', '1 while this replica holds its shard Lease', [
    'katalog',
    'shard',
  ]);
  const sharderLive = gauge('orkestra_sharder_live_shards', 'Shards the sharder counts as alive', [
    'katalog',
  ]);
  const sharderObjects = gauge('orkestra_sharder_objects', 'CRs in the sharder’s metadata cache', [
    'katalog',
  ]);
  const sharderPatches = counter('orkestra_sharder_patches_total', 'Shard label patches by outcome', [
    'katalog',
    'result',
  ]);
  const sharderSeen = new Map<string, number>();
  const katalogInfo = gauge('orkestra_katalog_info', 'The loaded Katalog (always 1)', ['katalog', 'version']);
  katalogInfo.set({ katalog: options.katalogName, version: options.version }, 1);
  // rollouts (docs/reference/runtime.md §24)
  const rolloutPhase = gauge('orkestra_rollout_phase', 'The rollout phase (1 for the current one)', [
    'katalog',
    'phase',
  ]);
  const rolloutStep = gauge('orkestra_rollout_step', 'The rollout step: 0 canary, i wave i', ['katalog']);
  const rolloutCrs = gauge('orkestra_rollout_crs', 'CRs by the Katalog revision the rollout assigns them', [
    'katalog',
    'revision',
  ]);
  const rolloutGateFailures = counter(
    'orkestra_rollout_gate_failures_total',
    'Rollout steps whose CRs were not Ready within readyTimeout',
    ['katalog'],
  );
  const rolloutRolledBack = counter(
    'orkestra_rollout_rolled_back_total',
    'CRs rolled back to the stable revision after a failed gate',
    ['katalog'],
  );

  // informers and cache
  scrape.cacheObjects = gauge('orkestra_cache_objects', 'Objects held in the informer cache', ['resource']);
  const relists = counter('orkestra_informer_relists_total', 'Informer relists by cause', [
    'resource',
    'reason',
  ]);
  const watchRestarts = counter('orkestra_informer_watch_restarts_total', 'Informer watch restarts', [
    'resource',
  ]);
  const lastEvent = gauge(
    'orkestra_informer_last_event_timestamp_seconds',
    'Unix time of the last watch event per resource',
    ['resource'],
  );
  const dropped = counter('orkestra_workqueue_dropped_total', 'Queue adds dropped by the maxDepth policy', [
    'controller',
  ]);

  // pipeline
  const stepDuration = histogram(
    'orkestra_reconcile_step_duration_seconds',
    'Duration of each reconcile pipeline step',
    ['controller', 'step'],
    RECONCILE_TIME_BUCKETS,
  );
  const childWrites = counter('orkestra_child_writes_total', 'Child object writes by operation', [
    'controller',
    'kind',
    'operation',
  ]);
  const childSkipped = counter(
    'orkestra_child_writes_skipped_total',
    'Child writes skipped because the cache already matched',
    ['controller', 'kind'],
  );
  const statusWrites = counter('orkestra_status_writes_total', 'CR status writes by result', [
    'controller',
    'result',
  ]);
  const events = counter('orkestra_events_total', 'Kubernetes Events emitted', [
    'controller',
    'type',
    'reason',
  ]);
  const eventsDropped = counter('orkestra_events_dropped_total', 'Kubernetes Events dropped', []);
  const validations = counter('orkestra_validation_total', 'Validation results', ['controller', 'result']);
  const gated = counter(
    'orkestra_reconcile_gated_total',
    'CR events and reconciles held by a preReconcile gate',
    ['controller', 'gate', 'reason'],
  );
  const secrets = counter('orkestra_secret_generations_total', 'Generated secret values', [
    'controller',
    'reason',
  ]);
  const notifications = counter(
    'orkestra_notifications_total',
    'Team notifications by channel (email, webhook) and result (sent, failed, dropped)',
    ['channel', 'result'],
  );
  const externalCalls = counter('orkestra_external_calls_total', 'External HTTP calls', [
    'controller',
    'call',
    'result',
  ]);
  const externalDuration = histogram(
    'orkestra_external_call_duration_seconds',
    'External HTTP call duration',
    ['controller', 'call'],
    RECONCILE_TIME_BUCKETS,
  );
  const gitOperations = counter('orkestra_git_operations_total', 'Git operations', [
    'controller',
    'operation',
    'result',
  ]);
  const dockerBuilds = counter('orkestra_docker_builds_total', 'Image builds', ['controller', 'result']);
  const dockerDuration = histogram(
    'orkestra_docker_build_duration_seconds',
    'Image build duration',
    ['controller'],
    BUILD_DURATION_BUCKETS,
  );
  const providerCalls = counter('orkestra_provider_calls_total', 'Provider calls', [
    'controller',
    'provider',
    'kind',
    'operation',
    'result',
  ]);
  const providerDuration = histogram(
    'orkestra_provider_call_duration_seconds',
    'Provider call duration',
    ['controller', 'provider', 'kind', 'operation'],
    RECONCILE_TIME_BUCKETS,
  );

  // autoscaler
  const autoscaleWorkers = gauge('orkestra_autoscale_workers', 'Workers chosen by the autoscaler', [
    'controller',
  ]);
  const autoscaleDepth = gauge(
    'orkestra_autoscale_queue_depth_limit',
    'Queue maxDepth chosen by the autoscaler',
    ['controller'],
  );
  const autoscaleResync = gauge(
    'orkestra_autoscale_resync_seconds',
    'Resync period chosen by the autoscaler',
    ['controller'],
  );
  const autoscaleOverride = gauge(
    'orkestra_autoscale_override_active',
    '1 while an annotation override pins the autoscaler',
    ['controller'],
  );
  const autoscaleDecisions = counter('orkestra_autoscale_decisions_total', 'Autoscaler changes', [
    'controller',
    'target',
    'direction',
  ]);

  if (options.defaultMetrics ?? true) collectDefaultMetrics({ register: registry });

  const sink: MetricsSink = {
    reconcileFinished: (controller, result, seconds, extra) => {
      reconcileTotal.inc({ controller, result });
      reconcileTime.observe({ controller }, seconds);
      if (result === 'error') {
        reconcileErrors.inc({ controller });
        if (extra?.terminal === true) terminalErrors.inc({ controller });
      }
    },
    reconcileTimedOut: (controller) => timeouts.inc({ controller }),
    reconcilePanicked: (controller) => panics.inc({ controller }),
    reconcileStep: (controller, step, seconds) => stepDuration.observe({ controller, step }, seconds),
    maxConcurrentReconciles: (controller, workers) => maxConcurrent.set({ controller }, workers),
    queueAdd: (controller) => queueAdds.inc({ controller, name: controller }),
    queueRetry: (controller) => queueRetries.inc({ controller, name: controller }),
    queueDropped: (controller) => dropped.inc({ controller }),
    reconcileGated: (controller, gate, reason) => gated.inc({ controller, gate, reason }),
    queueWait: (controller, seconds) => queueDuration.observe({ controller, name: controller }, seconds),
    queueWork: (controller, seconds) => workDuration.observe({ controller, name: controller }, seconds),
    restRequest: (method, code, host, seconds) => {
      restRequests.inc({ code, method, host });
      restDuration.observe({ verb: method, host }, seconds);
    },
    leaderStatus: (name, leading) => leader.set({ name }, leading ? 1 : 0),
    informerRelist: (resource, reason) => relists.inc({ resource, reason }),
    informerWatchRestart: (resource) => watchRestarts.inc({ resource }),
    informerEvent: (resource, epochSeconds) => lastEvent.set({ resource }, epochSeconds),
    childWrite: (controller, kind, operation) => childWrites.inc({ controller, kind, operation }),
    childWriteSkipped: (controller, kind) => childSkipped.inc({ controller, kind }),
    statusWrite: (controller, result) => statusWrites.inc({ controller, result }),
    event: (controller, type, reason) => events.inc({ controller, type, reason }),
    eventDropped: () => eventsDropped.inc(),
    validation: (controller, result) => validations.inc({ controller, result }),
    secretGenerated: (controller, reason) => secrets.inc({ controller, reason }),
    notification: (channel, result) => notifications.inc({ channel, result }),
    externalCall: (controller, call, result, seconds) => {
      externalCalls.inc({ controller, call, result });
      externalDuration.observe({ controller, call }, seconds);
    },
    gitOperation: (controller, operation, result) => gitOperations.inc({ controller, operation, result }),
    dockerBuild: (controller, result, seconds) => {
      dockerBuilds.inc({ controller, result });
      dockerDuration.observe({ controller }, seconds);
    },
    providerCall: (controller, provider, kind, operation, result, seconds) => {
      providerCalls.inc({ controller, provider, kind, operation, result });
      providerDuration.observe({ controller, provider, kind, operation }, seconds);
    },
    autoscaleState: (controller, state) => {
      if (state.workers != null) autoscaleWorkers.set({ controller }, state.workers);
      if (state.queueDepthLimit != null) autoscaleDepth.set({ controller }, state.queueDepthLimit);
      if (state.resyncSeconds != null) autoscaleResync.set({ controller }, state.resyncSeconds);
      if (state.overrideActive != null) autoscaleOverride.set({ controller }, state.overrideActive ? 1 : 0);
    },
    autoscaleDecision: (controller, target, direction) =>
      autoscaleDecisions.inc({ controller, target, direction }),
  };

  return {
    registry,
    sink,
    addCollector: (collector) => {
      registry.collectors.add(collector);
      return () => {
        registry.collectors.delete(collector);
      };
    },
    katalogLoaded: (version) => {
      katalogInfo.reset();
      katalogInfo.set({ katalog: options.katalogName, version }, 1);
    },
    sharding: (readings) => {
      const katalog = options.katalogName;
      shardHeld.reset();
      shardHeld.set({ katalog, shard: readings.shard }, readings.held ? 1 : 0);
      const sharder = readings.sharder;
      sharderLive.reset();
      sharderObjects.reset();
      if (sharder == null) return;
      sharderLive.set({ katalog }, sharder.live.length);
      sharderObjects.set({ katalog }, sharder.objects);
      // The sharder's counts restart with it (a new leader): count increases only.
      for (const result of ['assigned', 'drained', 'undrained', 'conflicts', 'failures'] as const) {
        const value = sharder[result];
        const seen = sharderSeen.get(result) ?? 0;
        const delta = value >= seen ? value - seen : value;
        if (delta > 0) sharderPatches.inc({ katalog, result }, delta);
        sharderSeen.set(result, value);
      }
    },
    rollout: (readings) => {
      const katalog = options.katalogName;
      rolloutPhase.reset();
      rolloutPhase.set({ katalog, phase: readings.phase }, 1);
      rolloutStep.set({ katalog }, readings.step);
      rolloutCrs.reset();
      for (const [revision, count] of Object.entries(readings.crs))
        rolloutCrs.set({ katalog, revision }, count);
      if (readings.gateFailures > 0) rolloutGateFailures.inc({ katalog }, readings.gateFailures);
      if (readings.rolledBack > 0) rolloutRolledBack.inc({ katalog }, readings.rolledBack);
    },
  };
}

/** MetricSampleRow is one series as the Live API's `/api/v1/query` reads it (runtime.md §18.6, ADR 0083). */
export interface MetricSampleRow {
  readonly name: string;
  readonly labels: Readonly<Record<string, string>>;
  readonly value: number;
}

/**
 * metricSamples reads every series of `registry` as `/metrics` would expose it — a histogram as its
 * `_bucket` (with `le`), `_sum` and `_count` series — running the scrape collectors first. In memory:
 * no API request.
 */
export async function metricSamples(registry: Registry): Promise<readonly MetricSampleRow[]> {
  const rows: MetricSampleRow[] = [];
  for (const family of await registry.getMetricsAsJSON()) {
    for (const value of family.values) {
      const labels: Record<string, string> = {};
      for (const [key, label] of Object.entries(value.labels)) {
        if (label != null) labels[key] = key === 'le' && label === Infinity ? '+Inf' : String(label);
      }
      const name = (value as { metricName?: string }).metricName ?? family.name;
      rows.push({ name, labels, value: value.value });
    }
  }
  return rows;
}
