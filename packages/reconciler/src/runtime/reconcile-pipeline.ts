/**
 * The reconcile pipeline of one CRD entry (docs/reference/runtime.md §7), steps 2–18 for one CR read from the
 * primary cache. `CrdPipeline` only orders the stages (runtime/stages/, docs/adr/0012-stages-and-hook-units.md):
 * admission, hooks, desired set, child writes (with secrets), prune and inventory, providers,
 * status, annotations — or the deletion path. Hooks (cross, git, external, docker, providers) are
 * slots filled by `PipelineHooks`, one per unit of the hook table (hooks/table.ts); without them
 * their context keys keep their initial values.
 */
import type { KubeClient, KubeObject } from '@orkestra/registry';
import type { TemplateEngine } from '@orkestra/template';
import { ConditionReason, OrkestraAnnotation, toOrkestraError } from '@orkestra/types';
import type { Logger } from '@orkestra/types';
import { conditionsOptions } from './conditions.js';
import type { Clock } from '../clock.js';
import type { EventRecorder } from '../events/event-recorder.js';
import { isPending } from '../hooks/hook-unit.js';
import type { HookInput, HookPending, ProviderDeletion } from '../hooks/hook-unit.js';
import type { HookSlots } from '../hooks/table.js';
import type { NamespaceGuard } from '../namespace-guard.js';
import { formatReasonMessage } from '../reason-message.js';
import type { CompiledCrd } from './compile-katalog.js';
import { DriftLimiter } from './drift-limiter.js';
import { DeclaredEvents } from './declared-events.js';
import { RUNTIME_TUNING_DEFAULTS } from './tuning.js';
import type { RuntimeTuning } from './tuning.js';
import { errorForLog } from './log-error.js';
import { noopObserver } from './runtime-observer.js';
import type { RuntimeObserver } from './runtime-observer.js';
import { namespaceRestriction, normalizeCr } from './stages/admission.js';
import {
  ensureFinalizers,
  finalizerMayWait,
  missingFinalizers,
  mutate,
  validate,
  cleanupOf,
} from './stages/admission-writes.js';
import { applyGroup } from './stages/child-writes.js';
import { runDeletion } from './stages/deletion.js';
import type { DeletionMemory } from './stages/deletion.js';
import { blockedError, fillCopies, desiredSet, heldBack } from './stages/desired.js';
import { renderCrMetadata, writeCrMetadata } from './stages/cr-metadata.js';
import { initialContext, phaseFills, runHooks } from './stages/hooks.js';
import { buildInventory, inventoryOf } from './stages/inventory.js';
import { prune } from './stages/prune.js';
import { requeueDelay } from './stages/requeue.js';
import { encodeSpec } from './rollback.js';
import { newRunState, recordChildEvents, requeueDelayMs, takeChildEvents } from './stages/run-state.js';
import type { ChildEvent, RunState, StageServices } from './stages/run-state.js';
import type { EnrichSources } from '../status/enrich-children.js';
import { StatusWriter } from './status-writer.js';
import { scaleWorkloads } from './workload-autoscale.js';
import type { ReadyOutcome } from './status-writer.js';
import type { ChildStore, PrimaryStore } from './stores.js';
import { finalizerMayJoinFirstWave } from './write-plan.js';

export type { HookInput, ProviderDeletion } from '../hooks/hook-unit.js';

/**
 * PipelineHooks fills the hook slots of steps 9–12 and 16, one per hook of the hook table
 * (`cross`, `git`, `external`, `docker`, `providers`). Each returns the value of its context key,
 * or `pending(...)` to end the run with a timed re-queue; throwing fails the step with the thrown
 * OrkestraError's reason.
 */
export interface PipelineHooks extends HookSlots {
  /** Step 5 of the deletion path (docs/reference/runtime.md §10.2); throws `ProviderDeleteFailed`. */
  readonly deleteProviders?: (input: HookInput) => Promise<ProviderDeletion>;
  /** The module hooks' `onDelete` steps on the deletion path, before provider deletions (ADR 0099); throws `HookFailed`. */
  readonly deleteModuleHooks?: (input: HookInput) => Promise<void>;
  /**
   * After every reconcile (success or failure): evaluates the entry's conditions with `notify:` and
   * queues the admitted messages (docs/reference/katalog.md §15.4). Never throws, never waits.
   */
  readonly notify?: ((context: Readonly<Record<string, unknown>>) => void) | undefined;
}

/** PipelineOptions is what a CRD entry's pipeline works with. */
export interface PipelineOptions {
  readonly katalogName: string;
  readonly crd: CompiledCrd;
  /** The entry's primary cache. */
  readonly primary: PrimaryStore;
  readonly children: ChildStore;
  /** The one API transport: child writes, finalizer and status patches (with the cached resource version). */
  readonly client: KubeClient;
  readonly engine: TemplateEngine;
  /** `now()` is read as epoch milliseconds. */
  readonly clock: Clock;
  readonly random?: ((size: number) => Uint8Array) | undefined;
  readonly events: EventRecorder;
  readonly guard: NamespaceGuard;
  /** `maxConcurrentWrites` (child writes per CR) and `driftLimit`; defaults in RUNTIME_TUNING_DEFAULTS. */
  readonly tuning?: Pick<RuntimeTuning, 'maxConcurrentWrites' | 'driftLimit'> | undefined;
  readonly hooks?: PipelineHooks;
  /** Scope of a custom kind, from discovery. */
  readonly customScope: (apiVersion: string, kind: string) => boolean | undefined;
  /** Receives step durations, child, status and secret writes and validation results. Default: none. */
  readonly observer?: RuntimeObserver | undefined;
  /** the Katalog revision this pipeline runs, recorded as `status.katalogRevision` (docs/reference/runtime.md §24.2). */
  readonly revision?: string | undefined;
  /** The caches an entry's `enrich` reads (docs/reference/katalog.md §3.5). Default: none (nothing is added). */
  readonly enrichSources?: EnrichSources | undefined;
}

/** RunContext is one reconcile's id, logger and signal. */
export interface RunContext {
  readonly reconcileId: string;
  readonly logger: Logger;
  readonly signal: AbortSignal;
  /**
   * Set when a retryable failure of this run uses the CR's last attempt (docs/reference/katalog.md §20.1):
   * the failure is then written as `RetriesExhausted`, naming the attempts.
   */
  readonly lastAttempt?: { readonly attempts: number } | undefined;
  /**
   * Set for the run of a rolled-back CR (docs/reference/katalog.md §20.4): the CR passed to `run`
   * carries the previous spec, success is written as Ready=False `RolledBack` with this message,
   * and the previous spec is not recorded again.
   */
  readonly rolledBack?: { readonly message: string } | undefined;
}

/** RunResult is how a pipeline run that did not throw ended. */
export interface RunResult {
  /** Timed re-queue (pending states, rotation, deletion waits). */
  readonly requeueAfterMs?: number;
  /** Whether the run wrote the CR's status or metadata (drives the own-write re-queue of docs/reference/runtime.md §4). */
  readonly wroteCr: boolean;
  /** What the run wrote, for the info log. */
  readonly writes: number;
  /** The entry's `requeue` after this success (docs/reference/katalog.md §20.2), when a rule applies. */
  readonly requeueMs?: number;
}

/**
 * CrdPipeline runs the reconcile pipeline of one CRD entry for one CR at a time (the dispatcher
 * guarantees one reconcile per key). Reads come from the caches; every write's result goes back
 * into them.
 */
export class CrdPipeline {
  readonly #o: PipelineOptions;
  readonly #s: StageServices;
  readonly #status: StatusWriter;
  /** What the deletion stage remembers until the primary cache reports a CR gone (`forget`). */
  readonly #deletions: DeletionMemory = {
    providersDeleted: new Set(),
    hooksDeleted: new Set(),
    finalized: new Set(),
  };
  /** The entry's declared Events (docs/reference/katalog.md §20.5), when it has any. */
  readonly #declared: DeclaredEvents | undefined;

  constructor(options: PipelineOptions) {
    this.#o = options;
    const observer = options.observer ?? noopObserver;
    const conditions = conditionsOptions(options.engine, options.clock);
    this.#s = {
      crd: options.crd,
      primary: options.primary,
      children: options.children,
      client: options.client,
      clock: options.clock,
      random: options.random,
      events: options.events,
      guard: options.guard,
      conditions,
      observer,
      customScope: options.customScope,
      maxWrites: options.tuning?.maxConcurrentWrites ?? RUNTIME_TUNING_DEFAULTS.maxConcurrentWrites,
      drift: new DriftLimiter({ ...options.tuning?.driftLimit, clock: options.clock }),
    };
    const declared = options.crd.entry.events;
    this.#declared =
      declared == null || Object.keys(declared).length === 0
        ? undefined
        : new DeclaredEvents({
            events: declared,
            recorder: options.events,
            conditions,
            clock: options.clock,
          });
    this.#status = new StatusWriter({
      crd: options.crd,
      client: options.client,
      primary: options.primary,
      children: options.children,
      engine: options.engine,
      conditions,
      clock: options.clock,
      events: options.events,
      onResult: (result) => observer.statusWrite(options.crd.name, result),
      revision: options.revision,
      enrichSources: options.enrichSources,
    });
  }

  /** forget drops what the pipeline remembers about a CR once the primary cache reports it gone. */
  forget(uid: string): void {
    this.#deletions.providersDeleted.delete(uid);
    this.#deletions.hooksDeleted.delete(uid);
    this.#deletions.finalized.delete(uid);
    this.#declared?.forget(uid);
  }

  /** run reconciles one CR (a frozen cache object); throws an OrkestraError after writing status on failure. */
  async run(cached: KubeObject, ctx: RunContext): Promise<RunResult> {
    const state = newRunState();
    // The CR as the stages last wrote it (finalizers, mutation): the failure status is written on it.
    const current = { cr: structuredClone(cached) as KubeObject };
    if (current.cr.metadata['deletionTimestamp'] != null) {
      return runDeletion(
        this.#s,
        {
          status: this.#status,
          deleteProviders: this.#o.hooks?.deleteProviders,
          deleteModuleHooks: this.#o.hooks?.deleteModuleHooks,
          memory: this.#deletions,
        },
        current.cr,
        ctx,
        state,
      );
    }
    let end: RunResult | HookPending;
    try {
      end = await this.#stages(current, ctx, state);
    } catch (thrown) {
      const error = toOrkestraError(thrown, { katalogPath: this.#s.crd.katalogPath });
      const message =
        error.katalogPath != null && !error.message.startsWith(error.katalogPath)
          ? formatReasonMessage(error.katalogPath, error.message)
          : error.message;
      state.inventory ??= this.#inventory(current.cr, state, inventoryOf(current.cr), new Set());
      // katalog.md §20.1: the last allowed attempt failed; no retry follows until the spec or an input changes.
      const outcome =
        ctx.lastAttempt != null && error.retryable
          ? {
              ready: false,
              reason: ConditionReason.RetriesExhausted,
              message: `gave up after ${ctx.lastAttempt.attempts} attempts; last failure ${error.code}: ${message}`,
            }
          : { ready: false, reason: error.code, message };
      try {
        await this.#writeStatus(current.cr, outcome, state, ctx);
      } catch (statusError) {
        ctx.logger.warn({ err: errorForLog(statusError) }, 'status write after a failed reconcile failed');
      }
      this.#emit(current.cr, 'failure', state, ctx, message);
      throw error;
    }
    const result = isPending(end) ? await this.#pending(current.cr, end, state, ctx) : end;
    // katalog.md §20.5: a pending wait is not a failure (upstream: a requeue without an error is a success).
    if (ctx.rolledBack == null) this.#emit(current.cr, 'success', state, ctx);
    return result;
  }

  /** #stages runs steps 4–18 in order; a hook's pending outcome ends them early and is returned. */
  async #stages(
    current: { cr: KubeObject },
    ctx: RunContext,
    state: RunState,
  ): Promise<RunResult | HookPending> {
    const s = this.#s;
    const mark = this.#stepTimer();
    // Admission: step 4 namespace guard, 5 finalizers, 6 normalize, 7 mutation, 8 validation.
    const restricted = namespaceRestriction(s.crd, s.guard, current.cr.metadata.namespace);
    if (restricted != null) throw restricted;
    // ADR 0011 (write-plan.ts): when the entry cleans up nothing itself, the finalizer may wait
    // for the desired set and join the first child writes; otherwise it is written first.
    const mayWait = finalizerMayWait(s.crd);
    if (!mayWait) current.cr = await ensureFinalizers(s, current.cr, state);
    mark('finalizers');
    // Step 7: the `mutation` phase of the hook loop (mutation.external, ADR 0114), then the rules,
    // which read its answers as `external`.
    const normalized = normalizeCr(s.crd, current.cr);
    const calls = initialContext(normalized);
    state.context = calls;
    const waitingMutationCall = await runHooks(s, this.#o.hooks, 'mutation', normalized, calls, ctx, state);
    if (waitingMutationCall != null) return waitingMutationCall;
    const answers = calls['external'];
    const mutated = await mutate(
      s,
      current.cr,
      normalized,
      state,
      answers != null && typeof answers === 'object' ? (answers as Record<string, unknown>) : undefined,
    );
    current.cr = mutated.cr;
    const view = mutated.view;
    mark('mutation');
    // Step 8: the `validation` phase of the hook loop (validation.external), then the rules; the
    // context over the mutated CR keeps the mutation phase's answers.
    const context = initialContext(view);
    phaseFills('mutation', calls, context);
    state.context = context;
    const waitingCall = await runHooks(s, this.#o.hooks, 'validation', view, context, ctx, state);
    if (waitingCall != null) return waitingCall;
    state.warnings = validate(s, view, context);
    mark('validation');
    // Hooks, steps 9–12: the `context` phase of the hook loop.
    const waitingHook = await runHooks(s, this.#o.hooks, 'context', view, context, ctx, state);
    if (waitingHook != null) return waitingHook;
    mark('hooks');
    // Desired set, step 13.
    // ADR 0017, 0115: Secrets and ConfigMaps with `copyFrom` take their source's data; a missing source waits.
    const copied = await fillCopies(s, desiredSet(s, view, context));
    if (isPending(copied)) return copied;
    // Workload autoscale (katalog.md §18.4): replicas decided from the live children and the context.
    const scaled = scaleWorkloads(copied, {
      context,
      conditions: s.conditions,
      live: (child) => s.children.get(child.ref),
      now: s.clock.now(),
    });
    const desired = scaled.desired;
    if (scaled.status != null) state.serviceStatus = { ...state.serviceStatus, autoscale: scaled.status };
    state.requeueAt.push(...scaled.recheckAt);
    renderCrMetadata(s, context, state);
    mark('desired');
    state.desired = desired;
    const previous = inventoryOf(current.cr);
    const now = heldBack(s, desired, previous);
    state.waiting = now.waiting;
    // Child writes, steps 14–15. ADR 0011: the deferred finalizer runs alongside the first wave
    // when every child is owned.
    let finalizer: Promise<KubeObject> | undefined;
    if (mayWait && missingFinalizers(s.crd, current.cr).length > 0) {
      const children = [...desired.groups.onCreate, ...desired.groups.onReconcile];
      if (finalizerMayJoinFirstWave(cleanupOf(s.crd), current.cr.metadata.uid ?? '', children)) {
        finalizer = ensureFinalizers(s, current.cr, state);
        finalizer.catch(() => undefined); // awaited by the first wave below; never left unhandled
      } else current.cr = await ensureFinalizers(s, current.cr, state);
    }
    // What was written is recorded as Events by the status step, also when a later write fails (ADR 0100).
    await applyGroup(s, current.cr, now.onCreate, previous, state, finalizer);
    mark('onCreate');
    await applyGroup(s, current.cr, now.onReconcile, previous, state, finalizer);
    if (finalizer != null) current.cr = await finalizer;
    mark('onReconcile');
    const blocked = blockedError(desired);
    if (blocked != null) throw blocked;
    // Prune and inventory, step 15.
    const pruned = await prune(s, current.cr, desired, previous, state);
    mark('prune');
    state.inventory = this.#inventory(current.cr, state, previous, pruned);
    // Providers, step 16: the `after-writes` phase of the same hook loop.
    const waitingProvider = await runHooks(s, this.#o.hooks, 'after-writes', view, context, ctx, state);
    if (waitingProvider != null) return waitingProvider;
    mark('providers');
    // Status, step 17; the CR's labels and annotations, step 18.
    const outcome: ReadyOutcome =
      ctx.rolledBack == null
        ? { ready: true, reason: ConditionReason.ReconcileSucceeded, message: '' }
        : { ready: false, reason: ConditionReason.RolledBack, message: ctx.rolledBack.message };
    await this.#writeStatus(current.cr, outcome, state, ctx);
    mark('status');
    // katalog.md §20.4: the last spec that reconciled, kept on the CR for a rollback (written when it changed).
    if (s.crd.entry.rollback != null && ctx.rolledBack == null)
      state.annotations.set(OrkestraAnnotation.PreviousSpec, encodeSpec(current.cr['spec']));
    await writeCrMetadata(s, current.cr, state, ctx);
    const requeueMs = requeueDelay(s.crd.entry.requeue, context, s.conditions, ctx.logger);
    return { ...this.#result(state), ...(requeueMs == null ? {} : { requeueMs }) };
  }

  /** #pending ends a run on a pending outcome: Ready=False with its reason, re-queued after its delay. */
  async #pending(
    cr: KubeObject,
    outcome: Pick<HookPending, 'reason' | 'message' | 'requeueAfterMs'>,
    state: RunState,
    ctx: RunContext,
  ): Promise<RunResult> {
    await this.#writeStatus(
      cr,
      { ready: false, reason: outcome.reason, message: outcome.message },
      state,
      ctx,
    );
    return { requeueAfterMs: outcome.requeueAfterMs, wroteCr: state.wroteCr, writes: state.writes };
  }

  /**
   * #emit records the entry's declared Events for this run's outcome (docs/reference/katalog.md §20.5)
   * and hands the context to the entry's team notifications (§15.4).
   */
  #emit(
    cr: KubeObject,
    outcome: 'success' | 'failure',
    state: RunState,
    ctx: RunContext,
    lastError = '',
  ): void {
    const notify = this.#o.hooks?.notify;
    if (this.#declared == null && notify == null) return;
    const context = state.context ?? initialContext(cr);
    this.#declared?.after(cr, outcome, context, ctx.logger, lastError);
    // Team notifications (docs/reference/katalog.md §15.4): queued, never awaited, never thrown.
    notify?.(context);
  }

  /** #stepTimer returns `mark(step)`, which reports the time since the previous mark as that step's duration. */
  #stepTimer(): (step: string) => void {
    let last = this.#o.clock.now();
    return (step) => {
      const now = this.#o.clock.now();
      this.#s.observer.reconcileStep(this.#o.crd.name, step, (now - last) / 1000);
      last = now;
    };
  }

  #result(state: RunState): RunResult {
    const requeueAfterMs = requeueDelayMs(state.requeueAt, this.#o.clock.now());
    return {
      ...(requeueAfterMs == null ? {} : { requeueAfterMs }),
      wroteCr: state.wroteCr,
      writes: state.writes,
    };
  }

  /** #inventory is the inventory of docs/reference/katalog.md §13.1 (stages/inventory.ts). */
  #inventory(
    cr: KubeObject,
    state: RunState,
    previous: Parameters<typeof buildInventory>[0]['previous'],
    pruned: ReadonlySet<string>,
  ): ReturnType<typeof buildInventory> {
    return buildInventory({
      children: this.#s.children,
      ownerUid: cr.metadata.uid ?? '',
      desired: state.desired,
      previous,
      pruned,
    });
  }

  /** writeRolledBack shows a rolled-back CR that is not reconciled (katalog.md §20.4): Ready=False `RolledBack`, nothing else. */
  async writeRolledBack(
    cr: KubeObject,
    ctx: RunContext & { readonly rolledBack: { readonly message: string } },
  ): Promise<void> {
    const state = newRunState();
    await this.#writeStatus(
      cr,
      { ready: false, reason: ConditionReason.RolledBack, message: ctx.rolledBack.message },
      state,
      ctx,
    );
  }

  /**
   * runRollback is the run of a CR rolled back with `onRollback` children (katalog.md §20.4, upstream's
   * declarative rollback): they are rendered over the CR's context plus `previous` (`metadata`,
   * and `spec` the last spec that reconciled), applied, and kept in the inventory; nothing else
   * runs (no hooks, no prune, no providers), and the CR shows Ready=False `RolledBack`. A failed
   * write fails the run (retried as any failure); the CR stays rolled back until its spec changes.
   */
  async runRollback(
    cr: KubeObject,
    ctx: RunContext & { readonly rolledBack: { readonly message: string; readonly previous: unknown } },
  ): Promise<RunResult> {
    const s = this.#s;
    const state = newRunState();
    const current = { cr: structuredClone(cr) as KubeObject };
    const group = s.crd.onRollback ?? {
      name: 'onReconcile' as const,
      gate: { when: [], anyOf: [] },
      entries: [],
    };
    const none = { name: 'onCreate' as const, gate: { when: [], anyOf: [] }, entries: [] };
    const context = {
      ...initialContext(current.cr),
      previous: { metadata: current.cr.metadata, spec: ctx.rolledBack.previous ?? {} },
    };
    state.context = context;
    const previous = inventoryOf(current.cr);
    try {
      const desired = await fillCopies(
        s,
        desiredSet({ ...s, crd: { ...s.crd, groups: [none, group] } }, current.cr, context),
      );
      if (isPending(desired)) return await this.#pending(current.cr, desired, state, ctx);
      state.desired = desired;
      await applyGroup(s, current.cr, desired.groups.onReconcile, previous, state);
      const blocked = blockedError(desired);
      if (blocked != null) throw blocked;
      state.inventory = this.#inventory(current.cr, state, previous, new Set());
    } catch (thrown) {
      const error = toOrkestraError(thrown, { katalogPath: s.crd.katalogPath });
      state.inventory ??= this.#inventory(current.cr, state, previous, new Set());
      try {
        await this.#writeStatus(
          current.cr,
          { ready: false, reason: error.code, message: error.message },
          state,
          ctx,
        );
      } catch (statusError) {
        ctx.logger.warn({ err: errorForLog(statusError) }, 'status write after a failed rollback failed');
      }
      throw error;
    }
    await this.#writeStatus(
      current.cr,
      { ready: false, reason: ConditionReason.RolledBack, message: ctx.rolledBack.message },
      state,
      ctx,
    );
    return this.#result(state);
  }

  /**
   * #writeStatus is step 17. It also records the run's child-write Events (docs/reference/runtime.md
   * §12): the status writer folds them into a Ready=True transition's Event (ADR 0100); any it did
   * not record (it failed before its Events) are recorded here on their own.
   */
  async #writeStatus(cr: KubeObject, outcome: ReadyOutcome, state: RunState, ctx: RunContext): Promise<void> {
    const childEvents = takeChildEvents(state);
    try {
      await this.#sendStatus(cr, outcome, state, ctx, childEvents);
    } finally {
      recordChildEvents(this.#s, cr, childEvents);
    }
  }

  async #sendStatus(
    cr: KubeObject,
    outcome: ReadyOutcome,
    state: RunState,
    ctx: RunContext,
    childEvents: ChildEvent[],
  ): Promise<void> {
    const written = await this.#status.write(cr, {
      childEvents,
      outcome,
      providers: state.providers,
      warnings: state.warnings,
      crossUnavailable: state.crossUnavailable,
      serviceStatus: state.serviceStatus,
      inventory: state.inventory,
      context: state.context,
      desired: state.desired,
      logger: ctx.logger,
      waiting: state.waiting,
    });
    if (written) {
      state.wroteCr = true;
      state.writes++;
    }
  }
}
