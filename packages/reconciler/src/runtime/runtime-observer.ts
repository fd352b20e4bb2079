/**
 * What the runtime reports while it runs (docs/reference/runtime.md §18.2): one method per event and the label
 * values they carry. The runtime is the emitter, so this is the one definition: the operator's
 * `MetricsSink` extends `RuntimeObserver` and hands itself over unchanged. Gauges that are cheaper
 * to read than to track come from `KatalogRuntime.snapshot()` at scrape time instead.
 */
import type { RelistReason } from '../informer.js';
import type { ExternalCallMetricResult } from '../hooks/external.js';

/** ObservedReconcileResult is the `result` label of `controller_runtime_reconcile_total` the runtime reports. */
export const ObservedReconcileResult = {
  Success: 'success',
  Error: 'error',
  RequeueAfter: 'requeue_after',
} as const;
export type ObservedReconcileResult = (typeof ObservedReconcileResult)[keyof typeof ObservedReconcileResult];

/** ChildWriteOperation is the `operation` label of `orkestra_child_writes_total`. */
export const ChildWriteOperation = {
  Create: 'create',
  Apply: 'apply',
  Update: 'update',
  Delete: 'delete',
  Prune: 'prune',
} as const;
export type ChildWriteOperation = (typeof ChildWriteOperation)[keyof typeof ChildWriteOperation];

/** StatusWriteResult is the `result` label of `orkestra_status_writes_total`. */
export const StatusWriteResult = { Written: 'written', Skipped: 'skipped', Conflict: 'conflict' } as const;
export type StatusWriteResult = (typeof StatusWriteResult)[keyof typeof StatusWriteResult];

/** ValidationResult is the `result` label of `orkestra_validation_total`. */
export const ValidationResult = { Passed: 'passed', Denied: 'denied', Warned: 'warned' } as const;
export type ValidationResult = (typeof ValidationResult)[keyof typeof ValidationResult];

/** SecretGenerationReason is the `reason` label of `orkestra_secret_generations_total`. */
export const SecretGenerationReason = { Created: 'created', Rotated: 'rotated' } as const;
export type SecretGenerationReason = (typeof SecretGenerationReason)[keyof typeof SecretGenerationReason];

/** GateName is the `gate` label of `orkestra_reconcile_gated_total` (docs/reference/katalog.md §20.3). */
export const GateName = { Enqueue: 'enqueue', Reconcile: 'reconcile' } as const;
export type GateName = (typeof GateName)[keyof typeof GateName];

/**
 * GatedReason is the `reason` label of `orkestra_reconcile_gated_total`: `not_met` (the gate's
 * sentinels and conditions did not pass), `fail_closed` (they could not be evaluated and the
 * gate's `failPolicy` is `closed`), `external_failed` (one of the gate's external calls failed
 * and its `failPolicy` is `closed`) or `awaiting_external` (an enqueue gate held an event until
 * the first answer of its calls, then decides it again; docs/reference/katalog.md §20.3).
 */
export const GatedReason = {
  NotMet: 'not_met',
  FailClosed: 'fail_closed',
  ExternalFailed: 'external_failed',
  AwaitingExternal: 'awaiting_external',
} as const;
export type GatedReason = (typeof GatedReason)[keyof typeof GatedReason];

/**
 * RuntimeObserver receives the runtime's counters and histograms as events. `controller` is always
 * the CRD entry name and no argument carries a CR name, URL, repository or image, so label
 * cardinality stays bounded. The operator's `MetricsSink` extends this interface with the events
 * only the operator process reports. Implementations must not throw.
 */
export interface RuntimeObserver {
  /** A reconcile ended; `terminal` marks a terminal error (result `error`). */
  reconcileFinished(
    controller: string,
    result: ObservedReconcileResult,
    seconds: number,
    options?: { readonly terminal?: boolean },
  ): void;
  /** A reconcile hit the reconcile timeout (also reported as an `error` result). */
  reconcileTimedOut(controller: string): void;
  /** A reconcile threw something that is not an Orkestra error (also reported as an `error` result). */
  reconcilePanicked(controller: string): void;
  /** One pipeline step took `seconds`. */
  reconcileStep(controller: string, step: string, seconds: number): void;
  /** The worker capacity of an entry is `workers` (reported when its workers start). */
  maxConcurrentReconciles(controller: string, workers: number): void;
  /** A key was added to the queue (including adds that only deduplicated). */
  queueAdd(controller: string): void;
  /** A key was re-added with backoff. */
  queueRetry(controller: string): void;
  /** An add was dropped by the maxDepth policy. */
  queueDropped(controller: string): void;
  /** A pre-reconcile gate held a CR's event (`enqueue`) or reconcile (`reconcile`), and why. */
  reconcileGated(controller: string, gate: GateName, reason: GatedReason): void;
  /** A worker took a key that waited `seconds` in the queue. */
  queueWait(controller: string, seconds: number): void;
  /** A worker finished a key after `seconds` of work. */
  queueWork(controller: string, seconds: number): void;
  /** A Kubernetes API request ended; `code` is the HTTP status or `<error>`. */
  restRequest(method: string, code: string, host: string, seconds: number): void;
  /** An informer relisted (`resource` is `plural.group`, or `plural` for the core group). */
  informerRelist(resource: string, reason: RelistReason): void;
  /** An informer re-opened its watch. */
  informerWatchRestart(resource: string): void;
  /** An informer received a watch event or bookmark at `epochSeconds`. */
  informerEvent(resource: string, epochSeconds: number): void;
  /** A child was written. */
  childWrite(controller: string, kind: string, operation: ChildWriteOperation): void;
  /** A child write was skipped because the cache already matched. */
  childWriteSkipped(controller: string, kind: string): void;
  /** A status write was decided: sent, skipped (unchanged) or refused with a conflict. */
  statusWrite(controller: string, result: StatusWriteResult): void;
  /** A Kubernetes Event was queued for writing. */
  event(controller: string, type: string, reason: string): void;
  /** A Kubernetes Event was dropped because the buffer was full. */
  eventDropped(): void;
  /** The validation rules of an entry ran for one CR. */
  validation(controller: string, result: ValidationResult): void;
  /** Secret data was generated. */
  secretGenerated(controller: string, reason: SecretGenerationReason): void;
  /**
   * A team notification was sent, failed, or dropped because the queue was full
   * (docs/reference/katalog.md §15.4); `channel` is `email` or `webhook`.
   */
  notification(channel: 'email' | 'webhook', result: 'sent' | 'failed' | 'dropped'): void;
  /**
   * An external call of an entry ended (docs/reference/runtime.md §18.2): `call` is its Katalog
   * name, `result` `success`, `error`, `timeout`, or `cached` (answered from `cacheFor`, 0 s).
   */
  externalCall(controller: string, call: string, result: ExternalCallMetricResult, seconds: number): void;
}

const noop = (): void => undefined;

/** noopObserver is the RuntimeObserver that ignores everything (the runtime's default). */
export const noopObserver: RuntimeObserver = Object.freeze({
  reconcileFinished: noop,
  reconcileTimedOut: noop,
  reconcilePanicked: noop,
  reconcileStep: noop,
  maxConcurrentReconciles: noop,
  queueAdd: noop,
  queueRetry: noop,
  queueDropped: noop,
  reconcileGated: noop,
  queueWait: noop,
  queueWork: noop,
  restRequest: noop,
  informerRelist: noop,
  informerWatchRestart: noop,
  informerEvent: noop,
  childWrite: noop,
  childWriteSkipped: noop,
  statusWrite: noop,
  event: noop,
  eventDropped: noop,
  validation: noop,
  externalCall: noop,
  secretGenerated: noop,
  notification: noop,
});

/**
 * completeObserver fills the methods a partial observer leaves out with no-ops and guards every
 * call, so an observer that throws cannot break a reconcile.
 *
 * @example
 * const observer = completeObserver({ childWrite: (controller, kind, op) => counts.push(`${kind} ${op}`) });
 */
export function completeObserver(partial: Partial<RuntimeObserver> | undefined): RuntimeObserver {
  if (partial == null) return noopObserver;
  const out: Record<string, unknown> = {};
  for (const name of Object.keys(noopObserver) as (keyof RuntimeObserver)[]) {
    const method = partial[name] as ((...args: unknown[]) => void) | undefined;
    out[name] =
      method == null
        ? noop
        : (...args: unknown[]): void => {
            try {
              method.apply(partial, args);
            } catch {
              // Metrics must never break the runtime.
            }
          };
  }
  return out as unknown as RuntimeObserver;
}

/** resourceLabel is the `resource` label of informer and cache metrics: `plural.group`, or `plural` for the core group. */
export function resourceLabel(resource: { readonly group: string; readonly plural: string }): string {
  return resource.group === '' ? resource.plural : `${resource.plural}.${resource.group}`;
}

/** EntrySnapshot is one entry's queue and worker readings (the operator's `QueueGauges` plus capacity). */
export interface EntrySnapshot {
  /** The CRD entry name (`controller` label). */
  readonly controller: string;
  /** Ready keys waiting for a worker (`workqueue_depth`). */
  readonly depth: number;
  /** Reconciles running now (`controller_runtime_active_workers`). */
  readonly activeWorkers: number;
  /** The worker capacity (`controller_runtime_max_concurrent_reconciles`). */
  readonly maxConcurrentReconciles: number;
  /** Summed age of running reconciles, seconds (`workqueue_unfinished_work_seconds`). */
  readonly unfinishedWorkSeconds: number;
  /** Age of the oldest running reconcile, seconds (`workqueue_longest_running_processor_seconds`). */
  readonly longestRunningSeconds: number;
  /** Whether the entry's workers run (false while `dependsOn` holds them back or on a standby replica). */
  readonly workersStarted: boolean;
  /** The entry's current tunables, for `orkestra_autoscale_*`; present only for entries with `autoscale`. */
  readonly autoscale?: {
    readonly workers: number;
    readonly queueDepthLimit: number;
    readonly resyncSeconds: number;
  };
}

/** CacheSnapshot is one informer cache's size (`orkestra_cache_objects{resource}`). */
export interface CacheSnapshot {
  readonly resource: string;
  readonly objects: number;
}

/** RuntimeSnapshot is what the operator reads at scrape time for gauges. */
export interface RuntimeSnapshot {
  readonly entries: readonly EntrySnapshot[];
  /** Primary caches first, then child caches. */
  readonly caches: readonly CacheSnapshot[];
}
