/**
 * The offline driver of the one engine: the real `CrdPipeline`, the real hook slots
 * (`KatalogHooks`) and the real provider dispatch (`ProviderDispatch`), run against a
 * `MemoryCluster` instead of the API server and the informer caches. What cannot be computed
 * offline — cross reads, git checkouts, external calls, docker builds, provider calls — is
 * answered from `OfflineResults` (a render context or a scenario step). `ork render` and
 * `ork simulate` drive it; so does the parity test, which replays the same steps on a real
 * control plane.
 */
import { refOf } from '@orkestra/registry';
import type { KubeObject, ObjectRef } from '@orkestra/registry';
import { createTemplateEngine } from '@orkestra/template';
import type { TemplateEngine } from '@orkestra/template';
import { OrkestraError, toOrkestraError } from '@orkestra/types';
import type { EvaluateConditionsOptions, Katalog, Logger, Notification } from '@orkestra/types';
import type { Clock } from '../clock.js';
import { EventRecorder } from '../events/event-recorder.js';
import { CacheChangeType } from '../cache.js';
import { Cleanups } from '../runtime/cleanup.js';
import { PreReconcileGates, heldNotifySource } from '../runtime/gates.js';
import { createGateCalls } from '../runtime/gate-calls.js';
import { Rollbacks } from '../runtime/rollback.js';
import { noopObserver } from '../runtime/runtime-observer.js';
import type { CoreEvent } from '../events/event-recorder.js';
import type { CrossTarget } from '../hooks/cross.js';
import { ownValue } from '../hooks/hook-unit.js';
import type { HookServices } from '../hooks/hook-unit.js';
import { compileKatalog } from '../runtime/compile-katalog.js';
import type { CompiledCrd } from '../runtime/compile-katalog.js';
import { KatalogHooks, scriptedServices } from '../runtime/katalog-hooks.js';
import { KubeReadCache } from '../runtime/kube-reader.js';
import { ProviderDispatch } from '../runtime/provider-dispatch.js';
import type { CrdPipeline } from '../runtime/reconcile-pipeline.js';
import { conditionsOptions } from '../runtime/conditions.js';
import { assembleEntry } from '../runtime/entry.js';
import type { PipelineHooks, RunResult } from '../runtime/reconcile-pipeline.js';
import { MemoryCluster } from './memory-cluster.js';
import { scriptedFailure } from './results.js';
import { IntervalGate } from '../notify/gate.js';
import { notifyingConditions } from '../notify/notifier.js';
import { planNotifications } from '../notify/plan.js';
import type { DueNotification } from '../notify/plan.js';

export { createScriptedProviders } from '../hooks/providers/scripted.js';
export type { ProviderResultInput } from '../hooks/providers/scripted.js';
import type { ClusterWrite } from './memory-cluster.js';

/**
 * OfflineResults are the answers of everything the engine does not compute offline, under the
 * context key of the hook that needs them (`resultUnits`: `cross.<as>`, `git`, `external.<name>`,
 * `docker`, `providers.<provider>.<declaration>`). Each unit's `offline` services read its part;
 * a missing answer reads as that unit says (cross not found, git and external not called, docker
 * still building, provider pending).
 */
export type OfflineResults = Readonly<Record<string, unknown>>;

/**
 * OfflineFailures are scripted failures of deletion steps (ADR 0116): under the key of a hook with
 * a deletion step (`deletionStep` in the hook table), the message the step fails with, named as
 * that hook's results are (`hooks.<name>`, `remote`, `providers.<provider>.<declaration>`). A step
 * given none succeeds at once.
 */
export type OfflineFailures = Readonly<Record<string, unknown>>;

/** OfflineEngineOptions configures an OfflineEngine. */
export interface OfflineEngineOptions {
  readonly katalog: Katalog;
  /** Time of the run: conditions, `now`, timestamps, rotation. */
  readonly clock: Clock;
  /** Engine for template helpers (seeded random source for reproducible output). Default: one over `clock`. */
  readonly engine?: TemplateEngine;
  /** Random bytes for generated Secrets (TLS keys). Default: the runtime's default. */
  readonly random?: (size: number) => Uint8Array;
  /** The cluster to run against. Default: a new, empty MemoryCluster. */
  readonly cluster?: MemoryCluster;
  /**
   * Where in-process cross reads (`cross` without `endpoint`) are answered: `results` (default,
   * `results.cross.<as>`) or `cluster`, from the CRs of this Katalog's entries the cluster holds,
   * as the runtime answers them from its caches (`ork diff`). HTTP cross reads read as not found.
   */
  readonly crossReads?: 'results' | 'cluster';
  /** The Katalog revision the runs record as `status.katalogRevision` (docs/reference/runtime.md §24.2). Default: not recorded. */
  readonly revision?: string;
  /**
   * The interval gate of team notifications (docs/reference/katalog.md §15.4); share one between
   * the engines of one simulated operator. Default: one of this engine's own, over `clock`.
   */
  readonly notificationGate?: IntervalGate;
}

/** OfflineRun is what one reconcile did. */
export interface OfflineRun {
  /** The CRD entry that served the CR. */
  readonly entry: string;
  /** Set when the run ended without throwing. */
  readonly result: RunResult | undefined;
  /** Set when the run failed (the status already says why). */
  readonly error: OrkestraError | undefined;
  /** The cluster writes of this run, in order. */
  readonly writes: readonly ClusterWrite[];
  /** Events recorded during this run. */
  readonly events: readonly CoreEvent[];
  /** Provider calls of this run, in order (the deletion path's retained declarations too). */
  readonly providerCalls: readonly ProviderCall[];
  /** Results the run needed and the context did not give (each once per engine). */
  readonly notes: readonly string[];
  /** The CR after the run; undefined once it is gone. */
  readonly cr: KubeObject | undefined;
  /** Set when the entry's reconcileGate held the run (docs/reference/katalog.md §20.3): only `Gated` was written. */
  readonly gated?: true;
  /** Set when the CR is rolled back (docs/reference/katalog.md §20.4): what the run applied instead. */
  readonly rolledBack?: 'onRollback' | 'previous-spec' | 'held';
  /** Team notifications this run would send (docs/reference/katalog.md §15.4); nothing is sent offline. */
  readonly notifications: readonly DueNotification[];
}

/**
 * ProviderCall is one provider call of an offline run; `retain` is a declaration the deletion path
 * kept. `onDelete` is a module's deletion step the deletion path reached (ADR 0109): `provider` is
 * `hooks` (`declaration` the hook's name) or `remote` (`declaration` `<module>#<export>`).
 */
export interface ProviderCall {
  readonly verb: 'reconcile' | 'delete' | 'retain' | 'onDelete';
  readonly provider: string;
  readonly declaration: string;
  /** How many of the run's cluster writes came before this call (to merge calls and writes in order). */
  readonly afterWrites: number;
}

/** OfflineEngineError is a CR the engine cannot run (no enabled CRD entry serves its kind). */
class OfflineEngineError extends OrkestraError {
  override readonly name = 'OfflineEngineError';
}

/** keyOf is a CR's queue key, as the controller's informer names it. */
const keyOf = (ref: ObjectRef): string => (ref.namespace == null ? ref.name : `${ref.namespace}/${ref.name}`);

const silentLogger: Logger = {
  debug: () => undefined,
  info: () => undefined,
  warn: () => undefined,
  error: () => undefined,
  child: () => silentLogger,
};

/**
 * OfflineEngine runs CRs of one Katalog through the real pipeline against an in-memory cluster.
 * One engine keeps its cluster and pipeline state (drift limiter, reported notes) across runs, so
 * a scenario is a sequence of `cluster` changes and `reconcile` calls.
 *
 * @example
 * const engine = new OfflineEngine({ katalog, clock });
 * const cr = engine.cluster.put(website);
 * const run = await engine.reconcile(refOf(cr));
 * run.writes.filter((w) => w.verb === 'apply');
 */
export class OfflineEngine {
  /** cluster is the in-memory cluster the engine reads and writes. */
  readonly cluster: MemoryCluster;
  readonly #clock: Clock;
  readonly #crds: ReadonlyMap<string, CompiledCrd>;
  readonly #pipelines = new Map<string, CrdPipeline>();
  /** Each entry's `cleanup` (docs/reference/katalog.md §20.6), decided around a run as the controller does. */
  readonly #cleanups = new Map<string, Cleanups | undefined>();
  /** Each entry's `preReconcile` gates and `rollback` (katalog.md §20.3, §20.4), decided as the controller does. */
  readonly #gates = new Map<string, PreReconcileGates | undefined>();
  /** Keys an enqueue gate passed once its calls were answered (katalog.md §20.3), until `requeued` takes them. */
  readonly #requeued = new Set<string>();
  readonly #rollbacks = new Map<string, Rollbacks | undefined>();
  readonly #events: CoreEvent[] = [];
  readonly #recorder: EventRecorder;
  readonly #engine: TemplateEngine;
  readonly #random: ((size: number) => Uint8Array) | undefined;
  readonly #katalogName: string;
  readonly #crossReads: 'results' | 'cluster';
  readonly #revision: string | undefined;
  readonly #seenNotes = new Set<string>();
  #notes: string[] = [];
  #providerCalls: ProviderCall[] = [];
  #notifications: DueNotification[] = [];
  readonly #notificationGate: IntervalGate;
  readonly #notification: Notification | undefined;
  #writesBefore = 0;
  #results: OfflineResults = {};
  #deletionFailures: OfflineFailures = {};

  constructor(options: OfflineEngineOptions) {
    this.#clock = options.clock;
    this.cluster = options.cluster ?? new MemoryCluster({ clock: options.clock });
    this.#engine = options.engine ?? createTemplateEngine({ clock: options.clock });
    this.#random = options.random;
    this.#katalogName = options.katalog.metadata.name;
    this.#crossReads = options.crossReads ?? 'results';
    this.#revision = options.revision;
    this.#notificationGate = options.notificationGate ?? new IntervalGate({ clock: options.clock });
    this.#notification = options.katalog.spec.notification;
    this.#crds = compileKatalog(options.katalog, { engine: this.#engine }).crds;
    this.#recorder = new EventRecorder({
      clock: options.clock,
      // A simulation shows every Event a run records: no per-object rate limit (ADR 0042).
      burst: Number.MAX_SAFE_INTEGER,
      writer: {
        create: async (_namespace, event) => {
          this.#events.push(event);
        },
      },
    });
  }

  /** results are the answers the next runs use; set them before a run (a scenario step's `context`). */
  get results(): OfflineResults {
    return this.#results;
  }

  set results(value: OfflineResults) {
    this.#results = value;
  }

  /** deletionFailures are the deletion steps the next runs fail (ADR 0116); set them before a run. */
  get deletionFailures(): OfflineFailures {
    return this.#deletionFailures;
  }

  set deletionFailures(value: OfflineFailures) {
    this.#deletionFailures = value;
  }

  /** entryFor returns the name of the enabled CRD entry serving an apiVersion and kind. */
  entryFor(apiVersion: string, kind: string): string | undefined {
    for (const [name, crd] of this.#crds) {
      if (crd.apiVersion === apiVersion && crd.apiTypes.kind === kind) return name;
    }
    return undefined;
  }

  /**
   * admit is an informer event for the stored CR `ref` (`old`: its previous version; none: created
   * or listed): the entry's enqueueGate decides whether its key is queued (false: held), and the
   * event's sentinels are kept for the reconcileGate of the next `reconcile`, as the controller's
   * informer subscription does (docs/reference/katalog.md §20.3). True without gates.
   */
  admit(ref: ObjectRef, old?: KubeObject): boolean {
    const entry = this.entryFor(ref.apiVersion, ref.kind);
    const object = this.cluster.get(ref);
    const gates = entry == null ? undefined : this.#gatesOf(entry);
    if (gates == null || object == null) return true;
    return gates.admit({
      type: old == null ? CacheChangeType.Add : CacheChangeType.Update,
      key: keyOf(ref),
      object,
      ...(old == null ? {} : { old }),
    });
  }

  /**
   * requeued tells whether an event the enqueueGate held while its calls were answered has since
   * passed it (the runtime queues the key then), and forgets it. It waits for the calls under way.
   */
  async requeued(ref: ObjectRef): Promise<boolean> {
    const entry = this.entryFor(ref.apiVersion, ref.kind);
    await (entry == null ? undefined : this.#gatesOf(entry))?.idle();
    return this.#requeued.delete(keyOf(ref));
  }

  /**
   * reconcile runs the pipeline once for the stored CR `ref` (the deletion path when it is being
   * deleted). `lastAttempt` says a retryable failure of this run uses the CR's last attempt
   * (docs/reference/katalog.md §20.1), written as `RetriesExhausted`.
   */
  async reconcile(
    ref: ObjectRef,
    options: { readonly lastAttempt?: { readonly attempts: number } | undefined } = {},
  ): Promise<OfflineRun> {
    const entry = this.entryFor(ref.apiVersion, ref.kind);
    if (entry == null) {
      throw new OfflineEngineError(`no enabled CRD entry serves ${ref.apiVersion} ${ref.kind}`, {
        code: 'InternalError',
      });
    }
    const cached = this.cluster.get(ref);
    if (cached == null)
      throw new OfflineEngineError(`${ref.kind} ${ref.name} is not in the cluster`, {
        code: 'InternalError',
      });
    const pipeline = this.#pipeline(entry);
    const writesBefore = this.cluster.writes.length;
    this.#writesBefore = writesBefore;
    const eventsBefore = this.#events.length;
    this.#notes = [];
    this.#providerCalls = [];
    this.#notifications = [];
    let result: RunResult | undefined;
    let error: OrkestraError | undefined;
    const key = keyOf(ref);
    const done = (extra: Partial<OfflineRun> = {}): OfflineRun => ({
      entry,
      result,
      error,
      writes: this.cluster.writes.slice(writesBefore),
      events: this.#events.slice(eventsBefore),
      notes: this.#notes,
      providerCalls: this.#providerCalls,
      notifications: this.#notifications,
      cr: this.cluster.get(ref),
      ...extra,
    });
    // katalog.md §20.3: the reconcile gate, with the sentinels of the events `admit` kept since the last run.
    const gates = this.#gatesOf(entry);
    if (gates != null && !(await gates.check(key, cached, silentLogger))) {
      await this.#recorder.flush(1000);
      return done({ result: { wroteCr: this.cluster.writes.length > writesBefore, writes: 0 }, gated: true });
    }
    // katalog.md §20.6: a CR already due for cleanup is deleted instead of reconciled.
    const cleanups = this.#cleanupsOf(entry);
    if (
      cleanups != null &&
      (await cleanups.check(cached, silentLogger, { record: false })).deleted === true
    ) {
      await this.#recorder.flush(1000);
      return done({ result: { wroteCr: true, writes: 1 } });
    }
    // katalog.md §20.4: a rolled-back CR runs its onRollback children, the previous spec, or nothing.
    const rollbacks = this.#rollbacksOf(entry);
    const rolledBack = await rollbacks?.before(key, cached, silentLogger);
    const run = { reconcileId: 'offline', logger: silentLogger, signal: new AbortController().signal };
    try {
      const current = this.cluster.get(ref) ?? cached;
      if (rolledBack?.previous !== undefined)
        result = await pipeline.runRollback(current, {
          ...run,
          rolledBack: { message: rolledBack.message, previous: rolledBack.previous },
        });
      else if (rolledBack != null && rolledBack.spec === undefined) {
        await pipeline.writeRolledBack(current, { ...run, rolledBack });
        result = { wroteCr: this.cluster.writes.length > writesBefore, writes: 0 };
      } else
        result = await pipeline.run(rolledBack == null ? cached : { ...current, spec: rolledBack.spec }, {
          ...run,
          ...(rolledBack == null ? {} : { rolledBack: { message: rolledBack.message } }),
          lastAttempt: options.lastAttempt,
        });
    } catch (thrown) {
      error = toOrkestraError(thrown);
    }
    if (error == null) rollbacks?.succeeded(key);
    else rollbacks?.failed(key);
    const latest = cleanups == null || error != null ? undefined : this.cluster.get(ref);
    if (latest != null && result != null) {
      // katalog.md §20.6: the terminal state is recorded and the CR re-queued for when it falls due.
      const cleanup = await cleanups?.check(latest, silentLogger);
      if (cleanup?.dueInMs != null)
        result = {
          ...result,
          requeueAfterMs: Math.min(result.requeueAfterMs ?? cleanup.dueInMs, cleanup.dueInMs),
        };
    }
    await this.#recorder.flush(1000);
    return done(
      rolledBack == null
        ? {}
        : {
            rolledBack:
              rolledBack.previous !== undefined
                ? 'onRollback'
                : rolledBack.spec === undefined
                  ? 'held'
                  : 'previous-spec',
          },
    );
  }

  #gatesOf(entry: string): PreReconcileGates | undefined {
    if (this.#gates.has(entry)) return this.#gates.get(entry);
    const crd = this.#crds.get(entry);
    const preReconcile = crd?.entry.preReconcile;
    const conditions = conditionsOptions(this.#engine, this.#clock);
    const notify =
      crd == null || preReconcile?.reconcileGate == null
        ? undefined
        : this.#notify(crd, conditions, heldNotifySource(preReconcile.reconcileGate));
    const made =
      crd == null || preReconcile == null
        ? undefined
        : new PreReconcileGates({
            controller: crd.name,
            preReconcile,
            conditions,
            observer: noopObserver,
            client: this.cluster.client,
            primary: this.cluster.primaryStore(crd.apiVersion, crd.apiTypes.kind),
            apiVersion: crd.apiVersion,
            clock: this.#clock,
            logger: silentLogger,
            // The gates' calls are answered from the scripted `external.<name>` results (katalog.md §20.3).
            calls: createGateCalls({ crd, engine: this.#engine, services: this.#services(crd, conditions) }),
            requeue: (key) => this.#requeued.add(key),
            gated: (_gate, _verdict, context) => notify?.(context),
          });
    this.#gates.set(entry, made);
    return made;
  }

  #rollbacksOf(entry: string): Rollbacks | undefined {
    if (this.#rollbacks.has(entry)) return this.#rollbacks.get(entry);
    const crd = this.#crds.get(entry);
    const rollback = crd?.entry.rollback;
    const made =
      crd == null || rollback == null
        ? undefined
        : new Rollbacks({
            rollback,
            clock: this.#clock,
            client: this.cluster.client,
            primary: this.cluster.primaryStore(crd.apiVersion, crd.apiTypes.kind),
            events: this.#recorder,
          });
    this.#rollbacks.set(entry, made);
    return made;
  }

  #cleanupsOf(entry: string): Cleanups | undefined {
    if (this.#cleanups.has(entry)) return this.#cleanups.get(entry);
    const crd = this.#crds.get(entry);
    const cleanup = crd?.entry.cleanup;
    const made =
      crd == null || cleanup == null
        ? undefined
        : new Cleanups({
            cleanup,
            clock: this.#clock,
            client: this.cluster.client,
            primary: this.cluster.primaryStore(crd.apiVersion, crd.apiTypes.kind),
            events: this.#recorder,
            conditions: conditionsOptions(this.#engine, this.#clock),
          });
    this.#cleanups.set(entry, made);
    return made;
  }

  #call(verb: ProviderCall['verb'], provider: string, declaration: string): void {
    this.#providerCalls.push({
      verb,
      provider,
      declaration,
      afterWrites: this.cluster.writes.length - this.#writesBefore,
    });
  }

  #note(text: string): void {
    if (this.#seenNotes.has(text)) return;
    this.#seenNotes.add(text);
    this.#notes.push(text);
  }

  #pipeline(entry: string): CrdPipeline {
    const existing = this.#pipelines.get(entry);
    if (existing != null) return existing;
    const crd = this.#crds.get(entry);
    if (crd == null)
      throw new OfflineEngineError(`CRD entry ${entry} is not enabled`, { code: 'InternalError' });
    const pipeline = assembleEntry(
      crd,
      {
        katalogName: this.#katalogName,
        primary: this.cluster.primaryStore(crd.apiVersion, crd.apiTypes.kind),
        children: this.cluster.childStore,
        client: this.cluster.client,
        engine: this.#engine,
        clock: this.#clock,
        ...(this.#random == null ? {} : { random: this.#random }),
        events: this.#recorder,
        hooks: this.#hooks(crd, conditionsOptions(this.#engine, this.#clock)),
        customScope: () => undefined,
      },
      { revision: this.#revision },
    );
    this.#pipelines.set(entry, pipeline);
    return pipeline;
  }

  /** #hooks builds the entry's slots exactly as the runtime does, over each unit's scripted services. */
  #hooks(crd: CompiledCrd, conditions: EvaluateConditionsOptions): PipelineHooks {
    const fromCluster = this.#crossReads === 'cluster';
    const services = this.#services(crd, conditions);
    // `crossReads: cluster` answers in-process reads from the cluster's CRs, as the runtime's caches do.
    const hooks = new KatalogHooks(fromCluster ? { ...services, crossResult: undefined } : services).hooksFor(
      crd,
    );
    const notify = this.#notify(crd, conditions);
    return notify == null ? hooks : { ...hooks, notify };
  }

  /** #services are each unit's scripted services for an entry. */
  #services(crd: CompiledCrd, conditions: EvaluateConditionsOptions): HookServices {
    const fromCluster = this.#crossReads === 'cluster';
    return scriptedServices(
      { conditions, lookup: (name) => (fromCluster ? this.#crossTarget(name) : undefined) },
      (unit) => ({
        key: unit.key,
        given: () => ownValue(this.#results, unit.key),
        deletionFailure: (name, declaration) =>
          scriptedFailure(unit.results, ownValue(this.#deletionFailures, unit.key), name, declaration),
        note: (text) => this.#note(text),
        call: (verb, provider, declaration) => this.#call(verb, provider, declaration),
      }),
      {
        providerNames: crd.hooks.providers.map((d) => d.provider),
        dispatch: (providers) =>
          new ProviderDispatch({
            katalogName: this.#katalogName,
            providers,
            kube: new KubeReadCache({ client: this.cluster.client, clock: this.#clock }),
            clock: this.#clock,
            conditions,
            onRetained: (provider, declaration) => this.#call('retain', provider, declaration),
          }),
      },
    );
  }

  /**
   * #notify is the entry's after-reconcile notification step as the runtime's notifier runs it
   * (the same conditions, gate and rendering), recording the messages instead of sending them.
   */
  #notify(
    crd: CompiledCrd,
    conditions: EvaluateConditionsOptions,
    source: unknown = crd.entry,
  ): ((context: Readonly<Record<string, unknown>>) => void) | undefined {
    const notification = this.#notification;
    const found = notifyingConditions(source);
    if (notification == null || found.length === 0) return undefined;
    const plan = {
      katalogName: this.#katalogName,
      notification,
      gate: this.#notificationGate,
      conditions,
      render: (template: string, context: Readonly<Record<string, unknown>>) =>
        String(this.#engine.renderTemplate(template, context)),
    };
    const entry = { name: crd.name, kind: crd.apiTypes.kind };
    return (context) => {
      try {
        this.#notifications.push(...planNotifications(plan, entry, found, context));
      } catch (error) {
        // As the runtime's notifier: a notification never fails a reconcile.
        this.#note(`notification skipped: ${error instanceof Error ? error.message : String(error)}`);
      }
    };
  }

  /** #crossTarget is an entry of this Katalog as a cross-read target over the memory cluster's CRs. */
  #crossTarget(name: string): CrossTarget | undefined {
    const crd = this.#crds.get(name);
    if (crd == null) return undefined;
    const store = this.cluster.primaryStore(crd.apiVersion, crd.apiTypes.kind);
    return {
      namespaced: crd.entry.namespaced,
      cache: {
        getByName: (namespace, objectName) => store.getByName(namespace, objectName),
        listByNamespace: (namespace) => store.list().filter((o) => o.metadata.namespace === namespace),
        list: () => store.list(),
      },
    };
  }
}

/**
 * reconcileOnce runs one reconcile of `cr` offline: the CR and the `observed` objects (children
 * as a controller left them, other CRs) are put into a new MemoryCluster, the pipeline runs once
 * with `results` answering hooks and providers, and the run is returned with the cluster.
 *
 * @example
 * const { run, cluster } = await reconcileOnce(katalog, cr, [], { providers: { aws: { assets: { outputs: { arn } } } } }, { clock });
 */
export async function reconcileOnce(
  katalog: Katalog,
  cr: KubeObject,
  observed: readonly KubeObject[],
  results: OfflineResults,
  options: Omit<OfflineEngineOptions, 'katalog'>,
): Promise<{ readonly run: OfflineRun; readonly cluster: MemoryCluster; readonly engine: OfflineEngine }> {
  const engine = new OfflineEngine({ ...options, katalog });
  const stored = engine.cluster.put(cr);
  for (const object of observed) engine.cluster.put(object);
  engine.results = results;
  const run = await engine.reconcile(refOf(stored));
  return { run, cluster: engine.cluster, engine };
}
