/**
 * The controller of one CRD entry: primary informer, workqueue, resizable dispatcher, resync, the
 * event-to-key wiring of docs/reference/runtime.md §4 and the pipeline.
 */
import type { EnrichSources } from '../status/enrich-children.js';
import { keyOf } from '../kube-object.js';
import type { KubeClient, KubeObject } from '@orkestra/registry';
import type { TemplateEngine } from '@orkestra/template';
import { parseDuration } from '@orkestra/types';
import type { Logger, TimeCondition } from '@orkestra/types';
import { CacheChangeType } from '../cache.js';
import type { CacheChange, ObjectCache } from '../cache.js';
import type { Clock } from '../clock.js';
import { Dispatcher } from '../dispatcher.js';
import type { ReconcileContext, ReconcileReport, ReconcileRequest, ReconcileResult } from '../dispatcher.js';
import type { EventRecorder } from '../events/event-recorder.js';
import { Informer } from '../informer.js';
import type { ListWatchClient } from '../list-watch-client.js';
import type { NamespaceGuard } from '../namespace-guard.js';
import { Resync } from '../resync.js';
import { Priority, WorkQueue } from '../work-queue.js';
import { ExhaustedRetries } from './retries.js';
import { PreReconcileGates } from './gates.js';
import { conditionsOptions } from './conditions.js';
import { Rollbacks } from './rollback.js';
import { Cleanups } from './cleanup.js';
import { queueDropPolicy } from './queue-behaviour.js';
import type { RolledBackRun } from './rollback.js';
import type { ChildCaches } from './child-caches.js';
import type { CompiledCrd } from './compile-katalog.js';
import type { GateCalls } from './gate-calls.js';
import type { CrdPipeline } from './reconcile-pipeline.js';
import { assembleEntry, entryGuard } from './entry.js';
import type { EntryParts } from './entry.js';
import type { PipelineHooks } from './reconcile-pipeline.js';
import { resolveTuning } from './tuning.js';
import type { RuntimeTuning } from './tuning.js';
import { errorForLog, isPanic, panicCause } from './log-error.js';
import { noopObserver, resourceLabel } from './runtime-observer.js';
import type { RuntimeObserver } from './runtime-observer.js';
import { collectTimeConditions, nextTimeConditionChange } from './time-conditions.js';
import { readsOwnWrites } from './own-writes.js';
import { isDraining, shardSelector } from './shard.js';
import type { RuntimeShard } from './shard.js';

/** OWN_WRITE_BACKOFF bounds the re-queue after a reconcile that wrote the CR's status or metadata (docs/reference/runtime.md §4). */
const OWN_WRITE_INITIAL_MS = 5;
const OWN_WRITE_MAX_MS = 1_000_000;

/** CrdControllerOptions configures a CrdController. */
export interface CrdControllerOptions {
  readonly katalogName: string;
  readonly crd: CompiledCrd;
  readonly listWatch: ListWatchClient;
  readonly client: KubeClient;
  readonly children: ChildCaches;
  readonly engine: TemplateEngine;
  readonly clock: Clock;
  readonly random?: (() => number) | undefined;
  readonly randomBytes?: ((size: number) => Uint8Array) | undefined;
  readonly logger: Logger;
  readonly events: EventRecorder;
  /**
   * The runtime's tuning (defaults in RUNTIME_TUNING_DEFAULTS). The entry uses
   * `maxConcurrentWrites`, `driftLimit`, `reconcileTimeoutMs`, `watchIdleTimeoutMs`, `resyncMs`
   * (overrides the entry's `resync`; 0 disables) and `namespace` (else the guard's pinned one, else all).
   */
  readonly tuning?: RuntimeTuning | undefined;
  readonly hooks?: PipelineHooks | undefined;
  /** The external calls of the entry's pre-reconcile gates (docs/reference/katalog.md §20.3); none when undefined. */
  readonly gateCalls?: GateCalls | undefined;
  /**
   * Plans the team notifications of a held reconcile (the reconcile gate's conditions with
   * `notify:`, evaluated on the gate's context; ADR 0070). Never awaited; never throws.
   */
  readonly gateNotify?: ((context: Readonly<Record<string, unknown>>) => void) | undefined;
  /**
   * Called for every change of a cached CR of this entry: informer events and the runtime's own
   * writes (whose watch echoes are ignored), e.g. to re-queue cross readers (docs/reference/runtime.md §4).
   */
  readonly onPrimaryChange?: ((change: CacheChange) => void) | undefined;
  readonly customScope: (apiVersion: string, kind: string) => boolean | undefined;
  /** The caches the entry's `enrich` reads (docs/reference/katalog.md §3.5). Default: none. */
  readonly enrichSources?: EnrichSources | undefined;
  /** Receives the entry's reconcile, queue, informer and pipeline events (docs/reference/runtime.md §18.2). Default: none. */
  readonly observer?: RuntimeObserver | undefined;
  /**
   * docs/reference/runtime.md §24: this entry's revision, and the previous revision's entry (its compiled CRD and hooks)
   * with the choice between them per CR (docs/reference/runtime.md §24.2). Default: one revision.
   */
  readonly revision?: ControllerRevisions | undefined;
  /** Sharded operators (ADR 0045): only this shard's CRs are watched, and a drained CR is handed over. */
  readonly shard?: RuntimeShard | undefined;
}

/** ControllerRevisions is the revision choice of one entry. */
export interface ControllerRevisions {
  readonly current: string;
  readonly previous?:
    { readonly revision: string; readonly crd: CompiledCrd; readonly hooks: PipelineHooks } | undefined;
  readonly assign?: ((cr: KubeObject) => 'current' | 'previous') | undefined;
}

/**
 * CrdController runs one CRD entry: a primary informer whose changes enqueue the CR's key, a
 * WorkQueue with a Dispatcher of `workers` capacity, Resync at the entry's interval, and the
 * pipeline as the reconcile function. A reconcile that wrote the CR's status or metadata re-queues
 * its key through a separate backoff (5 ms doubling to 1000 s) that a reconcile writing nothing
 * resets, so the watch echoes of its own writes (ignored by resource version) are not needed;
 * when nothing the entry evaluates can read those writes (own-writes.ts), it is not re-queued.
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
  /** docs/reference/runtime.md §24: the previous revision's pipeline, for CRs the rollout has not reached. */
  readonly #previous: CrdPipeline | undefined;
  readonly #assign: ((cr: KubeObject) => 'current' | 'previous') | undefined;
  readonly #logger: Logger;
  readonly #ownWrites = new Map<string, number>();
  /** Keys being reconciled, with the events held for them and their lanes (own-write echoes are dropped). */
  readonly #inFlight = new Map<string, HeldEvent[]>();
  readonly #onPrimaryChange: ((change: CacheChange) => void) | undefined;
  readonly #observer: RuntimeObserver;
  readonly #clock: Clock;
  /** Every time condition of the entry (docs/reference/katalog.md §8.5), for the timed re-queue of each reconcile. */
  readonly #timeConditions: readonly TimeCondition[];
  /** Whether a reconcile that wrote the CR must run again to reach a fixed point (own-writes.ts). */
  readonly #readsOwnWrites: boolean;
  #workersStarted = false;
  /** Whether the entry's CRD is gone (runtime.md §2.9). */
  #deactivated = false;
  #reconciles = 0;
  #lastSuccessAt: number | undefined;
  #successes = 0;
  /**
   * When each key's last successful reconcile caused by a change (taken from the normal or high
   * lane) finished, so a resync can skip it (docs/reference/runtime.md §16).
   */
  readonly #keySuccessAt = new Map<string, number>();
  /** Keys whose current or last reconcile was taken from the low lane. */
  readonly #lowLaneRuns = new Set<string>();
  #consecutiveFailures = 0;
  /** CRs whose retries are exhausted (docs/reference/katalog.md §20.1). */
  readonly #exhausted: ExhaustedRetries;
  /** The entry's `preReconcile` gates (docs/reference/katalog.md §20.3), when it has any. */
  readonly #gates: PreReconcileGates | undefined;
  /** The entry's `rollback` (docs/reference/katalog.md §20.4), when it has one. */
  readonly #rollbacks: Rollbacks | undefined;
  /** The entry's `cleanup` (docs/reference/katalog.md §20.6), when it has one. */
  readonly #cleanups: Cleanups | undefined;
  readonly #shard: RuntimeShard | undefined;

  constructor(options: CrdControllerOptions) {
    const { crd } = options;
    this.name = crd.name;
    this.crd = crd;
    this.#logger = options.logger.child({ controller: crd.name });
    const observer = options.observer ?? noopObserver;
    this.#observer = observer;
    this.#clock = options.clock;
    this.#timeConditions = collectTimeConditions(crd.entry);
    this.#readsOwnWrites = readsOwnWrites(crd);
    this.guard = entryGuard(crd);
    const tuning = resolveTuning(options.tuning);
    const namespace = tuning.namespace ?? (crd.entry.namespaced ? this.guard.pinnedNamespace : undefined);
    this.#shard = options.shard;
    const labelSelector = shardSelector(options.shard);
    this.queue = entryQueue({
      crd,
      clock: options.clock,
      engine: options.engine,
      observer,
      lowLaneRuns: this.#lowLaneRuns,
    });
    this.#exhausted = new ExhaustedRetries(this.queue);
    this.informer = primaryInformer({
      ...{ crd, listWatch: options.listWatch, clock: options.clock, random: options.random },
      ...{ namespace, labelSelector, watchIdleTimeoutMs: tuning.watchIdleTimeoutMs, observer },
      logger: this.#logger,
    });
    const parts: EntryParts = {
      observer,
      katalogName: options.katalogName,
      primary: this.informer.cache,
      children: options.children,
      client: options.client,
      engine: options.engine,
      clock: options.clock,
      random: options.randomBytes,
      events: options.events,
      tuning,
      ...(options.hooks == null ? {} : { hooks: options.hooks }),
      customScope: options.customScope,
      ...(options.enrichSources == null ? {} : { enrichSources: options.enrichSources }),
    };
    this.pipeline = assembleEntry(crd, parts, { guard: this.guard, revision: options.revision?.current });
    const previous = options.revision?.previous;
    this.#previous =
      previous == null
        ? undefined
        : assembleEntry(
            previous.crd,
            { ...parts, hooks: previous.hooks },
            { guard: this.guard, revision: previous.revision },
          );
    this.#assign = options.revision?.assign;
    const behaviours = entryBehaviours({
      ...{
        crd,
        clock: options.clock,
        client: options.client,
        events: options.events,
        engine: options.engine,
      },
      ...{ primary: this.informer.cache, observer, logger: this.#logger },
      ...{ gateCalls: options.gateCalls, gateNotify: options.gateNotify },
      requeue: (key) => {
        if (this.#workersStarted) this.queue.add(key, Priority.Normal);
      },
    });
    this.#rollbacks = behaviours.rollbacks;
    this.#cleanups = behaviours.cleanups;
    this.#gates = behaviours.gates;
    this.dispatcher = new Dispatcher({
      queue: this.queue,
      workers: crd.entry.workers,
      clock: options.clock,
      reconcile: (request, ctx) => this.#reconcile(request, ctx),
      reconcileTimeoutMs: tuning.reconcileTimeoutMs,
      onReconciled: (report) => this.#onReconciled(report),
    });
    this.resync = new Resync({
      intervalMs: tuning.resyncMs ?? parseDuration(crd.entry.resync),
      queue: this.queue,
      clock: options.clock,
      items: () => this.informer.cache.list().map((o) => ({ key: keyOf(o), uid: o.metadata.uid ?? '' })),
      ...(tuning.resyncSkipRecent ? { lastSuccessAt: (key: string) => this.#keySuccessAt.get(key) } : {}),
    });
    this.#onPrimaryChange = options.onPrimaryChange;
    this.informer.subscribe((change) => this.#onPrimary(change));
  }

  /** #onPrimary handles a change of one of the entry's CRs: forget a deleted one, then queue it unless gated or an echo. */
  #onPrimary(change: CacheChange): void {
    if (change.type === CacheChangeType.Delete) {
      this.#keySuccessAt.delete(change.key);
      this.#lowLaneRuns.delete(change.key);
      this.#exhausted.forget(change.key);
      this.#gates?.forget(change.key);
      this.#rollbacks?.forget(change.key);
      this.pipeline.forget(change.object.metadata.uid ?? '');
      this.#previous?.forget(change.object.metadata.uid ?? '');
    }
    this.#notify(change);
    if (!this.#workersStarted) return;
    // katalog.md §20.3: the enqueue gate decides before the key is queued (deletes always pass).
    if (this.#gates != null && !this.#gates.admit(change)) return;
    // docs/reference/runtime.md §4: an event for a CR being reconciled may be the echo of that reconcile's own
    // write arriving before the write's answer; decided when the reconcile ends.
    const version = change.object.metadata.resourceVersion;
    if (
      change.type !== CacheChangeType.Delete &&
      this.#deferIfInFlight(change.key, () => this.informer.cache.isOwnVersion(version))
    )
      return;
    this.queue.add(change.key, Priority.Normal);
  }

  /** cache is the primary cache (the entry's CRs). */
  get cache(): ObjectCache {
    return this.informer.cache;
  }

  /** stats summarizes the entry for readiness and `dependsOn` (docs/reference/katalog.md §21). */
  stats(): {
    readonly synced: boolean;
    readonly workersStarted: boolean;
    readonly reconciles: number;
    readonly lastSuccessAt: number | undefined;
    /** CRs in the primary cache. */
    readonly objects: number;
    /** Reconciles that ended without an error (success or timed re-queue). */
    readonly successes: number;
    /** Reconciles in a row that ended with an error, timeout or panic. */
    readonly consecutiveFailures: number;
    /** Whether the entry is deactivated because its CRD is gone (docs/reference/runtime.md §2.9). */
    readonly deactivated: boolean;
  } {
    return {
      synced: this.informer.hasSynced(),
      workersStarted: this.#workersStarted,
      reconciles: this.#reconciles,
      lastSuccessAt: this.#lastSuccessAt,
      objects: this.informer.cache.size,
      successes: this.#successes,
      consecutiveFailures: this.#consecutiveFailures,
      deactivated: this.#deactivated,
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

  /** startWorkers enqueues every cached CR at low priority, then starts the dispatcher and resync (docs/reference/runtime.md §2.8). */
  startWorkers(): void {
    if (this.#workersStarted) return;
    this.#workersStarted = true;
    this.#observer.maxConcurrentReconciles(this.name, this.dispatcher.capacity);
    for (const key of this.informer.cache.keys()) {
      const cr = this.informer.cache.get(key);
      if (this.#gates != null && cr != null && !this.#gates.admitListed(key, cr)) continue;
      this.queue.add(key, Priority.Low);
    }
    this.dispatcher.start();
    this.resync.start();
  }

  /**
   * deactivate suspends the entry while its CRD is gone (docs/reference/runtime.md §2.9): the
   * informer neither lists nor watches, and its cache is emptied (each CR reported deleted, so what
   * is kept per CR is forgotten). The workers stay; they have nothing to reconcile.
   */
  deactivate(): void {
    this.#deactivated = true;
    this.informer.suspend();
  }

  /** reactivate lists and watches the entry's CRs again once its CRD exists again (runtime.md §2.9). */
  reactivate(): void {
    this.#deactivated = false;
    this.informer.resume();
  }

  /** enqueueKey adds a CR's key (cross readers, git poller, docker builds); ignored before workers start. */
  enqueueKey(key: string): void {
    if (!this.#workersStarted) return;
    if (this.informer.cache.get(key) == null) return;
    this.#inputChanged(key);
    this.queue.add(key, Priority.Normal);
  }

  /** enqueueAll adds every cached CR's key in the low lane (a watched shared object changed, runtime.md §4.1); ignored before workers start. */
  enqueueAll(): void {
    if (!this.#workersStarted) return;
    for (const key of this.informer.cache.keys()) {
      this.#inputChanged(key);
      this.queue.add(key, Priority.Low);
    }
  }

  /** #inputChanged restarts the retries of a CR whose retries were exhausted (a watched input changed, katalog.md §20.1). */
  #inputChanged(key: string): void {
    this.#exhausted.inputChanged(key);
  }

  /**
   * enqueueOwner adds the key of the CR with this UID, when cached (child events, docs/reference/runtime.md §4).
   * `isOwnWrite`, when given, tells whether the event is the echo of the runtime's own write; an
   * event for a CR being reconciled is then held until the reconcile ends and dropped if it was.
   * `priority` is the lane: `high` for a child whose readiness state changed (ADR 0014), so the
   * owner's Ready follows it ahead of a backlog of progress events (runtime.md §5.3). Default `normal`.
   */
  enqueueOwner(uid: string, isOwnWrite?: () => boolean, priority: Priority = Priority.Normal): void {
    if (!this.#workersStarted) return;
    const key = this.informer.cache.keyOfUid(uid);
    if (key == null) return;
    if (isOwnWrite != null && this.#deferIfInFlight(key, isOwnWrite, priority)) return;
    if (isOwnWrite == null || !isOwnWrite()) this.#inputChanged(key);
    this.queue.add(key, priority);
  }

  /** #deferIfInFlight holds an event for a key being reconciled; true when held. */
  #deferIfInFlight(key: string, isOwnWrite: () => boolean, priority: Priority = Priority.Normal): boolean {
    const held = this.#inFlight.get(key);
    if (held == null) return false;
    held.push({ isOwnWrite, priority });
    return true;
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
    // ADR 0045: a drained CR is handed over here, where no other reconcile of its key can run
    // (also when its retries are exhausted: the new shard starts them afresh).
    if (this.#shard != null && isDraining(cached)) {
      await this.#shard.onDrain(cached);
      logger.info({}, 'handed over to another shard');
      return {};
    }
    // katalog.md §20.3: the reconcile gate; a gated-out reconcile writes nothing but its Gated condition.
    if (this.#gates != null && !(await this.#gates.check(key, cached, logger))) return {};
    // katalog.md §20.6: a CR in its terminal state for `deleteAfter` is deleted instead of reconciled.
    // Nothing is written here, so the run below reads the same version of the CR.
    if (
      this.#cleanups != null &&
      (await this.#cleanups.check(cached, logger, { record: false })).deleted === true
    )
      return {};
    // katalog.md §20.4: a rolled-back CR is not reconciled normally until its spec changes.
    const rolledBack = await this.#rollbacks?.before(key, cached, logger);
    // katalog.md §20.1: retries exhausted; only a new generation (or a watched input, #inputChanged) retries.
    if (
      this.#exhausted.holds(key, cached.metadata['generation'], cached.metadata['deletionTimestamp'] != null)
    ) {
      logger.debug({}, 'retries exhausted; waiting for a change of the spec or a watched input');
      return {};
    }
    const started = this.#clock.now();
    this.#reconciles++;
    this.#inFlight.set(key, []);
    try {
      return await this.#run(key, cached, request, ctx, logger, started, rolledBack);
    } finally {
      // Events held during the run: re-queue unless every one was the echo of an own write, in
      // the highest lane among the others (a held readiness transition keeps its priority).
      const held = this.#inFlight.get(key) ?? [];
      this.#inFlight.delete(key);
      const others = held.filter((event) => !event.isOwnWrite());
      if (others.length > 0)
        this.queue.add(
          key,
          others.some((e) => e.priority === Priority.High) ? Priority.High : Priority.Normal,
        );
      const after = this.informer.cache.get(key);
      if (after != null && after.metadata.resourceVersion !== cached.metadata.resourceVersion) {
        this.#notify({ type: CacheChangeType.Update, key, object: after, old: cached });
      }
    }
  }

  #notify(change: CacheChange): void {
    if (this.#onPrimaryChange == null) return;
    try {
      this.#onPrimaryChange(change);
    } catch (error) {
      this.#logger.warn({ err: errorForLog(error) }, 'primary change handler failed');
    }
  }

  async #run(
    key: string,
    cached: NonNullable<ReturnType<ObjectCache['get']>>,
    request: ReconcileRequest,
    ctx: ReconcileContext,
    logger: Logger,
    started: number,
    rolledBack?: RolledBackRun,
  ): Promise<ReconcileResult> {
    try {
      if (rolledBack?.previous !== undefined) {
        // katalog.md §20.4: upstream's declarative rollback, the `onRollback` children over `.previous`.
        const result = await this.pipeline.runRollback(cached, {
          reconcileId: ctx.reconcileId,
          logger,
          signal: ctx.signal,
          rolledBack: { message: rolledBack.message, previous: rolledBack.previous },
        });
        return result.requeueAfterMs == null ? {} : { requeueAfterMs: result.requeueAfterMs };
      }
      if (rolledBack != null && rolledBack.spec === undefined) {
        await this.pipeline.writeRolledBack(cached, {
          reconcileId: ctx.reconcileId,
          logger,
          signal: ctx.signal,
          rolledBack,
        });
        return {};
      }
      // the revision the rollout assigns this CR (docs/reference/runtime.md §24.2).
      const pipeline =
        this.#previous != null && this.#assign?.(cached) === 'previous' ? this.#previous : this.pipeline;
      const result = await pipeline.run(rolledBack == null ? cached : { ...cached, spec: rolledBack.spec }, {
        ...(rolledBack == null ? {} : { rolledBack: { message: rolledBack.message } }),
        reconcileId: ctx.reconcileId,
        logger,
        signal: ctx.signal,
        lastAttempt: this.queue.isLastAttempt(key) ? { attempts: this.queue.maxAttempts } : undefined,
      });
      let requeueAfterMs = result.requeueAfterMs;
      // katalog.md §20.6: the reconcile may have written the terminal state; delete now or at the time it falls due.
      const latest = this.#cleanups == null ? undefined : this.informer.cache.get(key);
      if (latest != null) {
        const cleanup = await this.#cleanups?.check(latest, logger);
        if (cleanup?.deleted === true) return {};
        if (cleanup?.dueInMs != null)
          requeueAfterMs =
            requeueAfterMs == null ? cleanup.dueInMs : Math.min(requeueAfterMs, cleanup.dueInMs);
      }
      // The next time a time condition of the entry can change (docs/reference/katalog.md §8.5); the earliest timer wins.
      const timeChange = this.#nextTimeChange();
      if (timeChange != null)
        requeueAfterMs = requeueAfterMs == null ? timeChange : Math.min(requeueAfterMs, timeChange);
      // docs/reference/runtime.md §4 (own-writes.ts): re-run after an own write only when the entry can read it back.
      if (result.wroteCr && this.#readsOwnWrites) {
        const failures = this.#ownWrites.get(key) ?? 0;
        this.#ownWrites.set(key, failures + 1);
        const delay = Math.min(OWN_WRITE_INITIAL_MS * 2 ** failures, OWN_WRITE_MAX_MS);
        requeueAfterMs = requeueAfterMs == null ? delay : Math.min(requeueAfterMs, delay);
      } else {
        this.#ownWrites.delete(key);
      }
      this.#lastSuccessAt = this.#clock.now();
      const fields = { durationMs: this.#clock.now() - started, writes: result.writes };
      if (result.writes > 0) logger.info(fields, 'reconciled');
      else logger.debug(fields, 'reconciled (no change)');
      return {
        ...(requeueAfterMs == null ? {} : { requeueAfterMs }),
        ...(result.requeueMs == null ? {} : { requeueMs: result.requeueMs }),
      };
    } catch (error) {
      const fields = { durationMs: this.#clock.now() - started, err: errorForLog(error) };
      if (isPanic(error)) {
        // An unexpected exception (docs/reference/runtime.md §6): logged with its stack, retried and counted as a
        // panic, which the dispatcher recognizes by the exception not being an Orkestra error.
        const cause = panicCause(error);
        logger.error(
          { ...fields, stack: cause instanceof Error ? cause.stack : undefined },
          'reconcile panicked',
        );
        throw cause;
      }
      logger.info(fields, 'reconcile failed');
      throw error;
    }
  }

  /** #nextTimeChange is the delay until a time condition of the entry can change, if any. */
  #nextTimeChange(): number | undefined {
    if (this.#timeConditions.length === 0) return undefined;
    const now = this.#clock.now();
    const at = nextTimeConditionChange(this.#timeConditions, now);
    return at == null ? undefined : Math.max(1, at - now);
  }

  #onReconciled(report: ReconcileReport): void {
    if (report.retriesExhausted === true)
      this.#exhausted.exhausted(report.key, this.informer.cache.get(report.key)?.metadata['generation']);
    const seconds = report.durationMs / 1000;
    const observer = this.#observer;
    if (report.outcome === 'success' || report.outcome === 'requeue_after')
      this.#rollbacks?.succeeded(report.key);
    else this.#rollbacks?.failed(report.key);
    if (report.outcome === 'success' || report.outcome === 'requeue_after') {
      if (!this.#lowLaneRuns.has(report.key)) this.#keySuccessAt.set(report.key, this.#clock.now());
      this.#successes++;
      this.#consecutiveFailures = 0;
      observer.reconcileFinished(this.name, report.outcome, seconds);
    } else {
      this.#consecutiveFailures++;
      observer.reconcileFinished(this.name, 'error', seconds, { terminal: report.outcome === 'terminal' });
      if (report.outcome === 'timeout') observer.reconcileTimedOut(this.name);
      if (report.outcome === 'panic') observer.reconcilePanicked(this.name);
    }
    observer.queueWork(this.name, seconds);
  }
}

/** HeldEvent is an event for a key being reconciled: whether it echoes an own write, and its lane. */
interface HeldEvent {
  readonly isOwnWrite: () => boolean;
  readonly priority: Priority;
}

/**
 * entryQueue is the entry's work queue (docs/reference/runtime.md §5): its `queue` settings, the
 * optional conditional drop policy (`queue.behaviour`, docs/reference/katalog.md §20.7), and the
 * queue metrics; a key taken from the low lane is remembered in `lowLaneRuns`.
 */
function entryQueue(o: {
  readonly crd: CompiledCrd;
  readonly clock: Clock;
  readonly engine: TemplateEngine;
  readonly observer: RuntimeObserver;
  /** Keys whose current or last reconcile was taken from the low lane (the controller's set). */
  readonly lowLaneRuns: Set<string>;
}): WorkQueue {
  const { crd, observer, lowLaneRuns } = o;
  return new WorkQueue({
    clock: o.clock,
    maxDepth: crd.entry.queue.maxDepth,
    initialBackoffMs: parseDuration(crd.entry.queue.retryBackoff.initial),
    maxBackoffMs: parseDuration(crd.entry.queue.retryBackoff.max),
    backoffMultiplier: crd.entry.queue.retryBackoff.multiplier,
    maxAttempts: crd.entry.queue.retryBackoff.maxAttempts,
    ...(crd.entry.queue.behaviour == null
      ? {}
      : { dropPolicy: queueDropPolicy(crd.entry.queue.behaviour, conditionsOptions(o.engine, o.clock)) }),
    onAdd: () => observer.queueAdd(crd.name),
    onRetry: () => observer.queueRetry(crd.name),
    onDrop: () => observer.queueDropped(crd.name),
    onTake: (key, queuedMs, priority) => {
      observer.queueWait(crd.name, queuedMs / 1000);
      // runtime.md §16: a reconcile taken from the low lane (a resync, the start-up list) does not postpone a resync.
      if (priority === Priority.Low) lowLaneRuns.add(key);
      else lowLaneRuns.delete(key);
    },
  });
}

/** primaryInformer lists and watches the entry's CRs (docs/reference/runtime.md §3), with the informer metrics. */
function primaryInformer(o: {
  readonly crd: CompiledCrd;
  readonly listWatch: ListWatchClient;
  readonly clock: Clock;
  readonly random: (() => number) | undefined;
  /** The one namespace watched, if any (used only for a namespaced entry). */
  readonly namespace: string | undefined;
  /** A shard's label selector, if sharded. */
  readonly labelSelector: string | undefined;
  readonly watchIdleTimeoutMs: number;
  readonly observer: RuntimeObserver;
  readonly logger: Logger;
}): Informer {
  const { crd, namespace, labelSelector, observer } = o;
  return new Informer({
    client: o.listWatch,
    resource: {
      group: crd.apiTypes.group,
      version: crd.apiTypes.version,
      plural: crd.apiTypes.plural,
      kind: crd.apiTypes.kind,
      namespaced: crd.entry.namespaced,
    },
    clock: o.clock,
    ...(crd.entry.namespaced && namespace != null ? { namespace } : {}),
    ...(labelSelector == null ? {} : { labelSelector }),
    ...(o.random == null ? {} : { random: o.random }),
    watchIdleTimeoutMs: o.watchIdleTimeoutMs,
    logger: { warn: (fields, message) => o.logger.warn({ ...fields }, message) },
    onRelist: (reason) => observer.informerRelist(resourceLabel(crd.apiTypes), reason),
    onWatchRestart: () => observer.informerWatchRestart(resourceLabel(crd.apiTypes)),
    onEvent: (atMs) => observer.informerEvent(resourceLabel(crd.apiTypes), atMs / 1000),
  });
}

/**
 * entryBehaviours are the entry's optional reconcile controls, each present only when declared:
 * `rollback` (docs/reference/katalog.md §20.4), `cleanup` (§20.6) and the `preReconcile` gates
 * (§20.3), which re-queue through `requeue` and notify a held reconcile through `gateNotify`.
 */
function entryBehaviours(o: {
  readonly crd: CompiledCrd;
  readonly clock: Clock;
  readonly client: KubeClient;
  readonly primary: ObjectCache;
  readonly events: EventRecorder;
  readonly engine: TemplateEngine;
  readonly observer: RuntimeObserver;
  readonly logger: Logger;
  readonly gateCalls: GateCalls | undefined;
  readonly gateNotify: ((context: Readonly<Record<string, unknown>>) => void) | undefined;
  readonly requeue: (key: string) => void;
}): {
  rollbacks: Rollbacks | undefined;
  cleanups: Cleanups | undefined;
  gates: PreReconcileGates | undefined;
} {
  const { crd, clock, client, primary, events } = o;
  const rollbacks =
    crd.entry.rollback == null
      ? undefined
      : new Rollbacks({ rollback: crd.entry.rollback, clock, client, primary, events });
  const cleanups =
    crd.entry.cleanup == null
      ? undefined
      : new Cleanups({
          ...{ cleanup: crd.entry.cleanup, clock, client, primary, events },
          conditions: conditionsOptions(o.engine, clock),
        });
  const preReconcile = crd.entry.preReconcile;
  const gates =
    preReconcile == null
      ? undefined
      : new PreReconcileGates({
          controller: crd.name,
          preReconcile,
          conditions: conditionsOptions(o.engine, clock),
          observer: o.observer,
          client,
          primary,
          apiVersion: crd.apiVersion,
          clock,
          logger: o.logger,
          calls: o.gateCalls,
          requeue: o.requeue,
          gated: (_gate, _verdict, context) => o.gateNotify?.(context),
        });
  return { rollbacks, cleanups, gates };
}
