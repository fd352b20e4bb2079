/**
 * The controller of one CRD entry: primary informer, workqueue, resizable dispatcher, resync, the
 * event-to-key wiring of runtime.md §4 and the pipeline.
 */
import type { KubeClient } from '@orkestra/registry';
import type { TemplateEngine } from '@orkestra/template';
import { OrkestraError, parseDuration } from '@orkestra/types';
import type { Logger } from '@orkestra/types';
import type { ObjectCache } from '../cache.js';
import type { Clock } from '../clock.js';
import { Dispatcher } from '../dispatcher.js';
import type { ReconcileContext, ReconcileRequest, ReconcileResult } from '../dispatcher.js';
import type { EventRecorder } from '../events/event-recorder.js';
import { Informer } from '../informer.js';
import type { ListWatchClient } from '../list-watch-client.js';
import { createNamespaceGuard } from '../namespace-guard.js';
import type { NamespaceGuard } from '../namespace-guard.js';
import { Resync } from '../resync.js';
import { Priority, WorkQueue } from '../work-queue.js';
import type { ChildCaches } from './child-caches.js';
import type { CompiledCrd } from './compile-katalog.js';
import { CrdPipeline } from './reconcile-pipeline.js';
import type { PipelineHooks } from './reconcile-pipeline.js';
import type { StatusPatcher } from './status-patcher.js';

/** OWN_WRITE_BACKOFF bounds the re-queue after a reconcile that wrote the CR's status or metadata (runtime.md §4). */
const OWN_WRITE_INITIAL_MS = 5;
const OWN_WRITE_MAX_MS = 1_000_000;

/** CrdControllerOptions configures a CrdController. */
export interface CrdControllerOptions {
  readonly katalogName: string;
  readonly crd: CompiledCrd;
  readonly listWatch: ListWatchClient;
  readonly client: KubeClient;
  readonly patchStatus: StatusPatcher;
  readonly children: ChildCaches;
  readonly engine: TemplateEngine;
  readonly clock: Clock;
  readonly random?: (() => number) | undefined;
  readonly randomBytes?: ((size: number) => Uint8Array) | undefined;
  readonly logger: Logger;
  readonly events: EventRecorder;
  readonly maxConcurrentWrites?: number | undefined;
  readonly reconcileTimeoutMs?: number | undefined;
  readonly watchIdleTimeoutMs?: number | undefined;
  /** Overrides the entry's resync interval (ms); 0 disables. */
  readonly resyncMs?: number | undefined;
  /** Watch only this namespace (else the guard's pinned namespace, else all). */
  readonly namespace?: string | undefined;
  readonly hooks?: PipelineHooks | undefined;
  readonly customScope: (apiVersion: string, kind: string) => boolean | undefined;
}

/**
 * CrdController runs one CRD entry: a primary informer whose changes enqueue the CR's key, a
 * WorkQueue with a Dispatcher of `workers` capacity, Resync at the entry's interval, and the
 * pipeline as the reconcile function. A reconcile that wrote the CR's status or metadata re-queues
 * its key through a separate backoff (5 ms doubling to 1000 s) that a reconcile writing nothing
 * resets, so the watch echoes of its own writes (ignored by resource version) are not needed.
 *
 * @example
 * const controller = new CrdController({ ...options, crd });
 * controller.startInformer();
 * await controller.waitForSync();
 * controller.startWorkers();
 */
export class CrdController {
  readonly name: string;
  readonly crd: CompiledCrd;
  readonly queue: WorkQueue;
  readonly dispatcher: Dispatcher;
  readonly informer: Informer;
  readonly resync: Resync;
  readonly guard: NamespaceGuard;
  readonly pipeline: CrdPipeline;
  readonly #logger: Logger;
  readonly #ownWrites = new Map<string, number>();
  #workersStarted = false;
  #reconciles = 0;
  #lastSuccessAt: number | undefined;

  constructor(options: CrdControllerOptions) {
    const { crd } = options;
    this.name = crd.name;
    this.crd = crd;
    this.#logger = options.logger.child({ controller: crd.name });
    this.guard = createNamespaceGuard({
      restricted: crd.entry.restrictedNamespaces,
      allowed: crd.entry.allowedNamespaces,
    });
    const namespace = options.namespace ?? (crd.entry.namespaced ? this.guard.pinnedNamespace : undefined);
    this.queue = new WorkQueue({
      clock: options.clock,
      maxDepth: crd.entry.queue.maxDepth,
      initialBackoffMs: parseDuration(crd.entry.queue.retryBackoff.initial),
      maxBackoffMs: parseDuration(crd.entry.queue.retryBackoff.max),
    });
    this.informer = new Informer({
      client: options.listWatch,
      resource: {
        group: crd.apiTypes.group,
        version: crd.apiTypes.version,
        plural: crd.apiTypes.plural,
        kind: crd.apiTypes.kind,
        namespaced: crd.entry.namespaced,
      },
      clock: options.clock,
      ...(crd.entry.namespaced && namespace != null ? { namespace } : {}),
      ...(options.random == null ? {} : { random: options.random }),
      ...(options.watchIdleTimeoutMs == null ? {} : { watchIdleTimeoutMs: options.watchIdleTimeoutMs }),
      logger: { warn: (fields, message) => this.#logger.warn({ ...fields }, message) },
    });
    this.pipeline = new CrdPipeline({
      katalogName: options.katalogName,
      crd,
      primary: this.informer.cache,
      children: options.children,
      client: options.client,
      patchStatus: options.patchStatus,
      engine: options.engine,
      clock: options.clock,
      random: options.randomBytes,
      events: options.events,
      guard: this.guard,
      ...(options.maxConcurrentWrites == null ? {} : { maxConcurrentWrites: options.maxConcurrentWrites }),
      ...(options.hooks == null ? {} : { hooks: options.hooks }),
      customScope: options.customScope,
    });
    this.dispatcher = new Dispatcher({
      queue: this.queue,
      workers: crd.entry.workers,
      clock: options.clock,
      reconcile: (request, ctx) => this.#reconcile(request, ctx),
      ...(options.reconcileTimeoutMs == null ? {} : { reconcileTimeoutMs: options.reconcileTimeoutMs }),
    });
    this.resync = new Resync({
      intervalMs: options.resyncMs ?? parseDuration(crd.entry.resync),
      queue: this.queue,
      clock: options.clock,
      items: () =>
        this.informer.cache.list().map((o) => ({ key: keyOfObject(o), uid: o.metadata.uid ?? '' })),
    });
    this.informer.subscribe((change) => {
      if (!this.#workersStarted) return;
      this.queue.add(change.key, Priority.Normal);
    });
  }

  /** cache is the primary cache (the entry's CRs). */
  get cache(): ObjectCache {
    return this.informer.cache;
  }

  /** stats summarizes the entry for readiness and `dependsOn: healthy`. */
  stats(): {
    readonly synced: boolean;
    readonly workersStarted: boolean;
    readonly reconciles: number;
    readonly lastSuccessAt: number | undefined;
  } {
    return {
      synced: this.informer.hasSynced(),
      workersStarted: this.#workersStarted,
      reconciles: this.#reconciles,
      lastSuccessAt: this.#lastSuccessAt,
    };
  }

  /** startInformer starts the primary informer. */
  startInformer(): void {
    this.informer.start();
  }

  /** waitForSync resolves when the primary informer has listed once. */
  waitForSync(signal?: AbortSignal): Promise<void> {
    return this.informer.waitForSync(signal);
  }

  /** startWorkers enqueues every cached CR at low priority, then starts the dispatcher and resync (runtime.md §2.8). */
  startWorkers(): void {
    if (this.#workersStarted) return;
    this.#workersStarted = true;
    for (const key of this.informer.cache.keys()) this.queue.add(key, Priority.Low);
    this.dispatcher.start();
    this.resync.start();
  }

  /** enqueueOwner adds the key of the CR with this UID, when cached (child events, runtime.md §4). */
  enqueueOwner(uid: string): void {
    if (!this.#workersStarted) return;
    const key = this.informer.cache.keyOfUid(uid);
    if (key != null) this.queue.add(key, Priority.Normal);
  }

  /** stop stops taking work, waits up to `timeoutMs` for in-flight reconciles, and stops the informer. */
  async stop(options: { readonly timeoutMs?: number } = {}): Promise<void> {
    this.resync.stop();
    this.queue.shutDown();
    await this.dispatcher.stop(options);
    await this.informer.stop();
  }

  async #reconcile(request: ReconcileRequest, ctx: ReconcileContext): Promise<ReconcileResult> {
    const key = ctx.key;
    const logger = this.#logger.child({
      namespace: request.namespace,
      name: request.name,
      reconcileID: ctx.reconcileId,
    });
    const cached = this.informer.cache.get(key);
    if (cached == null) {
      this.#ownWrites.delete(key);
      return {};
    }
    const started = Date.now();
    this.#reconciles++;
    try {
      const result = await this.pipeline.run(cached, {
        reconcileId: ctx.reconcileId,
        logger,
        signal: ctx.signal,
      });
      let requeueAfterMs = result.requeueAfterMs;
      if (result.wroteCr) {
        const failures = this.#ownWrites.get(key) ?? 0;
        this.#ownWrites.set(key, failures + 1);
        const delay = Math.min(OWN_WRITE_INITIAL_MS * 2 ** failures, OWN_WRITE_MAX_MS);
        requeueAfterMs = requeueAfterMs == null ? delay : Math.min(requeueAfterMs, delay);
      } else {
        this.#ownWrites.delete(key);
      }
      this.#lastSuccessAt = Date.now();
      const fields = { durationMs: Date.now() - started, writes: result.writes };
      if (result.writes > 0) logger.info(fields, 'reconciled');
      else logger.debug(fields, 'reconciled (no change)');
      return requeueAfterMs == null ? {} : { requeueAfterMs };
    } catch (error) {
      const fields = {
        durationMs: Date.now() - started,
        err:
          error instanceof OrkestraError
            ? {
                type: error.name,
                code: error.code,
                message: error.message,
                ...(error.katalogPath == null ? {} : { katalogPath: error.katalogPath }),
              }
            : {
                type: error instanceof Error ? error.name : typeof error,
                message: error instanceof Error ? error.message : String(error),
              },
      };
      logger.info(fields, 'reconcile failed');
      throw error;
    }
  }
}

function keyOfObject(o: { metadata: { namespace?: string; name?: string } }): string {
  const ns = o.metadata.namespace;
  return ns == null || ns === '' ? (o.metadata.name ?? '') : `${ns}/${o.metadata.name ?? ''}`;
}
