/**
 * @orkestra/reconciler runs a Katalog against a cluster. This release ships the engine room:
 * informers and their read-only cache, the workqueue, the resizable dispatcher that runs
 * reconciles, and resync. The reconcile pipeline, status, finalizers, pruning, hooks and provider
 * dispatch are not built yet (see the README).
 *
 * Main exports: Informer, ObjectCache, KubeListWatchClient, WorkQueue, Dispatcher, Resync, and the
 * Clock seam (systemClock, ManualClock).
 *
 * @example
 * const queue = new WorkQueue({ maxDepth: 0 });
 * const informer = new Informer({ client: new KubeListWatchClient({ kubeConfig }), resource });
 * informer.subscribe((change) => queue.add(change.key));
 * const dispatcher = new Dispatcher({ queue, reconcile, workers: 4 });
 * informer.start();
 * await informer.waitForSync();
 * dispatcher.start();
 */
export { ManualClock, flushMacrotask, systemClock } from './clock.js';
export type { Clock, TimerHandle } from './clock.js';
export { Priority, WorkQueue } from './work-queue.js';
export type { WorkQueueOptions, WorkQueueStats } from './work-queue.js';
export { Dispatcher, MAX_WORKERS, MIN_WORKERS, ReconcileOutcome, requestFromKey } from './dispatcher.js';
export type {
  DispatcherOptions,
  DispatcherQueue,
  DispatcherStats,
  DispatcherStopResult,
  ReconcileContext,
  ReconcileReport,
  ReconcileRequest,
  ReconcileResult,
  Reconciler,
} from './dispatcher.js';
export {
  DispatcherStoppedError,
  ReconcileErrorClass,
  ReconcileTimeoutError,
  classifyReconcileError,
} from './reconcile-error.js';
export { Resync, phaseOf } from './resync.js';
export type { ResyncItem, ResyncOptions } from './resync.js';
export { CacheChangeType, LAST_APPLIED_ANNOTATION, OWNER_UID_LABEL, ObjectCache } from './cache.js';
export type { CacheChange, ObjectCacheOptions, WatchEventType } from './cache.js';
export { isNewerResourceVersion, keyOf } from './kube-object.js';
export { Informer, RelistReason, resourcePath } from './informer.js';
export type { InformerLogger, InformerOptions, InformerStats, ResourceRef } from './informer.js';
export { KubeApiError, KubeListWatchClient, parseRetryAfter } from './list-watch-client.js';
export type {
  KubeListWatchClientOptions,
  ListResponse,
  ListWatchClient,
  ListWatchRequestCounts,
  RawWatchEvent,
  WatchHandle,
  WatchHandlers,
} from './list-watch-client.js';
