/**
 * The reconcile pipeline of one CRD entry (docs/reference/runtime.md §7), steps 2–18 for one CR read from the
 * primary cache. Hooks (cross, git, external, docker) and providers are slots filled by
 * `PipelineHooks`; without them their context keys are empty maps.
 */
import {
  AlreadyExistsError,
  NotFoundError,
  appliedHash,
  compareToCache,
  kindFor,
  refOf,
  withAppliedHash,
} from '@orkestra/registry';
import type { KubeClient, KubeObject, ObjectRef, Owner } from '@orkestra/registry';
import type { TemplateContext, TemplateEngine } from '@orkestra/template';
import {
  ConditionReason,
  OrkestraAnnotation,
  OrkestraError,
  OrkestraFinalizer,
  OrkestraLabel,
  RESOURCE_KINDS,
  RESOURCE_LIST_KEYS,
  TerminalError,
  evaluateConditions,
  parseDuration,
  stringForm,
  toOrkestraError,
} from '@orkestra/types';
import type { Condition, EvaluateConditionsOptions, Logger } from '@orkestra/types';
import type { Clock } from '../clock.js';
import type { EventRecorder } from '../events/event-recorder.js';
import type { NamespaceGuard } from '../namespace-guard.js';
import { formatReasonMessage } from '../reason-message.js';
import { generationStamp, secretRotationState, tlsValidForMs } from '../secrets/rotation.js';
import { generateTlsMaterial } from '../secrets/tls.js';
import type { ChildStore, PrimaryStore } from './stores.js';
import type { CompiledCrd } from './compile-katalog.js';
import { buildDesiredSet, idOf } from './desired-set.js';
import { holdBack } from '../readiness/wait-for.js'; // issue-18
import { DriftLimiter } from './drift-limiter.js';
import type { DriftLimitTuning } from './drift-limiter.js';
import type { DesiredChild, DesiredSet } from './desired-set.js';
import { runLimited } from './run-limited.js';
import { StatusWriter } from './status-writer.js';
import type { StatusPatcher } from './status-patcher.js';
import type { InventoryRecord, ReadyOutcome } from './status-writer.js';
import { toWriteError } from './write-error.js';
import { errorForLog } from './log-error.js';
import {
  crContext,
  namespaceRestriction,
  normalizeCr,
  planMutation,
  validateCr,
  validationError,
} from './stages/admission.js';
import {
  buildInventory,
  inventoryOf,
  jobFinished,
  pruneCandidates,
  recordRef,
  sameRef,
} from './stages/inventory.js';

export { inventoryOf } from './stages/inventory.js';
import { finalizerMayJoinFirstWave, groupByWave } from './write-plan.js';
import { noopObserver } from './runtime-observer.js';
import type { ChildWriteOperation, RuntimeObserver } from './runtime-observer.js';

/** HookEffects is what a hook slot may ask of the run besides its context value. */
export interface HookEffects {
  /** Schedules a timed re-queue of this CR at a clock time (epoch ms); the earliest one wins. */
  requeueAt(atMs: number): void;
  /** Records a CR annotation that step 18 writes after a successful reconcile (only when it changed). */
  annotate(key: string, value: string): void;
  /** Sets `status.providers` for this run's status write (step 17), also after a failure or pending result. */
  recordProviders(records: Readonly<Record<string, unknown>>): void;
}

/** HookInput is what a hook slot receives: the CR (normalized, mutated), the context so far and the reconcile's signal. */
export interface HookInput {
  readonly crd: CompiledCrd;
  readonly cr: KubeObject;
  readonly context: TemplateContext;
  readonly signal: AbortSignal;
  readonly logger: Logger;
  readonly effects: HookEffects;
}

/** ProviderDeletion is how the providers step of the deletion path ended: undefined when every delete is done. */
export type ProviderDeletion = { readonly waiting: string; readonly requeueAfterMs: number } | undefined;

/**
 * PipelineHooks fills the hook slots of steps 9–12 and 16. Each returns the value of its context
 * key (`cross`, `git`, `external`, `docker`, `providers`); throwing fails the step with the
 * thrown OrkestraError's reason.
 */
export interface PipelineHooks {
  readonly cross?: (input: HookInput) => Promise<unknown> | unknown;
  readonly git?: (input: HookInput) => Promise<unknown>;
  readonly external?: (input: HookInput) => Promise<unknown>;
  readonly docker?: (input: HookInput) => Promise<unknown>;
  readonly providers?: (
    input: HookInput,
  ) => Promise<{ readonly outputs: unknown; readonly requeueAfterMs?: number }>;
  /** Step 5 of the deletion path (docs/reference/runtime.md §10.2); throws `ProviderDeleteFailed`. */
  readonly deleteProviders?: (input: HookInput) => Promise<ProviderDeletion>;
}

/** PipelineOptions is what a CRD entry's pipeline works with. */
export interface PipelineOptions {
  readonly katalogName: string;
  readonly crd: CompiledCrd;
  /** The entry's primary cache. */
  readonly primary: PrimaryStore;
  readonly children: ChildStore;
  readonly client: KubeClient;
  /** Status subresource writes with the cached resource version. */
  readonly patchStatus: StatusPatcher;
  readonly engine: TemplateEngine;
  /** `now()` is read as epoch milliseconds. */
  readonly clock: Clock;
  readonly random?: ((size: number) => Uint8Array) | undefined;
  readonly events: EventRecorder;
  readonly guard: NamespaceGuard;
  /** Concurrent child writes per CR. Default 8. */
  readonly maxConcurrentWrites?: number;
  readonly hooks?: PipelineHooks;
  /** Scope of a custom kind, from discovery. */
  readonly customScope: (apiVersion: string, kind: string) => boolean | undefined;
  /** Receives step durations, child, status and secret writes and validation results. Default: none. */
  readonly observer?: RuntimeObserver | undefined;
  /** Thresholds of the drift-correction limiter (`DriftLimiter`); defaults in `DRIFT_LIMIT_DEFAULTS`. */
  readonly driftLimit?: DriftLimitTuning | undefined;
  /** issue 21: the Katalog revision this pipeline runs, recorded as `status.katalogRevision` (docs/reference/runtime.md §23.2). */
  readonly revision?: string | undefined;
}

/** RunContext is one reconcile's id, logger and signal. */
export interface RunContext {
  readonly reconcileId: string;
  readonly logger: Logger;
  readonly signal: AbortSignal;
}

/** RunResult is how a pipeline run that did not throw ended. */
export interface RunResult {
  /** Timed re-queue (pending states, rotation, deletion waits). */
  readonly requeueAfterMs?: number;
  /** Whether the run wrote the CR's status or metadata (drives the own-write re-queue of docs/reference/runtime.md §4). */
  readonly wroteCr: boolean;
  /** What the run wrote, for the info log. */
  readonly writes: number;
}

/** Pending ends a run without an error: re-queue after a delay (docs/reference/runtime.md §8 "pending"); hooks throw it for DockerBuildPending and ProviderPending. */
export class Pending extends Error {
  override readonly name = 'Pending';
  readonly reason: ConditionReason;
  readonly requeueAfterMs: number;
  constructor(reason: ConditionReason, message: string, requeueAfterMs: number) {
    super(message);
    this.reason = reason;
    this.requeueAfterMs = requeueAfterMs;
  }
}

const DELETE_WAIT_MS = 3000;
const ANNOTATION_RETRY_MS = 1000;
const JOB_WAIT_MS = 5000;
const CLEANUP_JOB_TTL_SECONDS = 600;
/** CLEANUP_JOBS_FINISHED lists the finished onDelete jobs (`namespace/name`, comma-separated) on a CR being deleted. */
const CLEANUP_JOBS_FINISHED = 'orkestra.konductor.io/cleanup-jobs-finished';

interface RunState {
  wroteCr: boolean;
  writes: number;
  requeueAt: number[];
  warnings: string[] | undefined;
  desired: DesiredSet | undefined;
  context: TemplateContext | undefined;
  inventory: InventoryRecord[] | undefined;
  /** Step 18: CR annotations to write after a successful reconcile. */
  annotations: Map<string, string>;
  /** `status.providers` to write; undefined keeps the cached value. */
  providers: Readonly<Record<string, unknown>> | undefined;
  /** issue-18: children held back by `waitFor` (child id → ids not ready yet). */
  waiting: ReadonlyMap<string, readonly string[]> | undefined;
}

/**
 * CrdPipeline runs the reconcile pipeline of one CRD entry for one CR at a time (the dispatcher
 * guarantees one reconcile per key). Reads come from the caches; every write's result goes back
 * into them.
 */
export class CrdPipeline {
  readonly #o: PipelineOptions;
  readonly #status: StatusWriter;
  readonly #conditions: EvaluateConditionsOptions;
  readonly #maxWrites: number;
  readonly #observer: RuntimeObserver;
  /** Bounds corrections of drift made by another writer, per owner UID and child id. */
  readonly #drift: DriftLimiter;
  /** UIDs of CRs being deleted whose provider deletions have completed in this process. */
  readonly #providersDeleted = new Set<string>();
  /** UIDs of CRs whose finalizer this process removed; the cache may still hold them until DELETED arrives. */
  readonly #finalized = new Set<string>();

  constructor(options: PipelineOptions) {
    this.#o = options;
    this.#drift = new DriftLimiter({ ...options.driftLimit, clock: options.clock });
    this.#maxWrites = options.maxConcurrentWrites ?? 8;
    const observer = options.observer ?? noopObserver;
    this.#observer = observer;
    this.#conditions = {
      renderTemplate: (source, context) => options.engine.renderTemplate(source, context),
      now: () => new Date(options.clock.now()),
    };
    this.#status = new StatusWriter({
      crd: options.crd,
      patchStatus: options.patchStatus,
      primary: options.primary,
      children: options.children,
      engine: options.engine,
      conditions: this.#conditions,
      clock: options.clock,
      events: options.events,
      onResult: (result) => observer.statusWrite(options.crd.name, result),
      revision: options.revision,
    });
  }

  /** #stepTimer returns `mark(step)`, which reports the time since the previous mark as that step's duration. */
  /** forget drops what the pipeline remembers about a CR once the primary cache reports it gone. */
  forget(uid: string): void {
    this.#providersDeleted.delete(uid);
    this.#finalized.delete(uid);
  }

  #stepTimer(): (step: string) => void {
    let last = this.#o.clock.now();
    return (step) => {
      const now = this.#o.clock.now();
      this.#observer.reconcileStep(this.#o.crd.name, step, (now - last) / 1000);
      last = now;
    };
  }

  #childWritten(kind: string, operation: ChildWriteOperation): void {
    this.#observer.childWrite(this.#o.crd.name, kind, operation);
  }

  /** run reconciles one CR (a frozen cache object); throws an OrkestraError after writing status on failure. */
  async run(cached: KubeObject, ctx: RunContext): Promise<RunResult> {
    const state: RunState = {
      wroteCr: false,
      writes: 0,
      requeueAt: [],
      warnings: undefined,
      desired: undefined,
      context: undefined,
      inventory: undefined,
      annotations: new Map(),
      providers: undefined,
      waiting: undefined,
    };
    let cr = structuredClone(cached) as KubeObject;
    const mark = this.#stepTimer();
    if (cr.metadata['deletionTimestamp'] != null) return this.#deletion(cr, ctx, state);
    try {
      // Step 4: namespace guard on the CR's namespace.
      const restricted = namespaceRestriction(this.#o.crd, this.#o.guard, cr.metadata.namespace);
      if (restricted != null) throw restricted;
      // issue 19 (write-plan.ts): when the entry cleans up nothing itself, the finalizer may wait
      // for the desired set and join the first child writes; otherwise it is written first.
      const finalizerMayWait = this.#finalizerMayWait();
      if (!finalizerMayWait) cr = await this.#ensureFinalizers(cr, state);
      mark('finalizers');
      let view = normalizeCr(this.#o.crd, cr);
      ({ cr, view } = await this.#mutate(cr, view, state));
      mark('mutation');
      state.warnings = this.#validate(view);
      mark('validation');
      const context: Record<string, unknown> = {
        apiVersion: view.apiVersion,
        kind: view.kind,
        metadata: view.metadata,
        spec: view['spec'] ?? {},
        status: view['status'] ?? {},
        cross: {},
        git: {},
        external: {},
        docker: {},
        providers: recordedProviders(view),
      };
      state.context = context;
      await this.#hooks(view, context, ctx, state);
      mark('hooks');
      const desired = this.#buildDesired(view, context);
      mark('desired');
      state.desired = desired;
      const previous = inventoryOf(cr);
      // issue-18: children whose `waitFor` entries are not ready yet are held back (readiness/wait-for.ts).
      const held = holdBack(
        [...desired.groups.onCreate, ...desired.groups.onReconcile],
        (child) => this.#o.children.get(child.ref),
        {
          conditions: this.#conditions,
          completed: (child) => previous.some((p) => p.completed === true && sameRef(p, child.ref)),
        },
      );
      state.waiting = held.waiting;
      const applyNow = (group: readonly DesiredChild[]): DesiredChild[] =>
        group.filter((child) => !held.waiting.has(child.id));
      // issue 19: the deferred finalizer runs alongside the first wave when every child is owned.
      let finalizer: Promise<KubeObject> | undefined;
      if (finalizerMayWait && this.#missingFinalizers(cr).length > 0) {
        const children = [...desired.groups.onCreate, ...desired.groups.onReconcile];
        if (finalizerMayJoinFirstWave(this.#cleanup(), cr.metadata.uid ?? '', children)) {
          finalizer = this.#ensureFinalizers(cr, state);
          finalizer.catch(() => undefined); // awaited by the first wave below; never left unhandled
        } else cr = await this.#ensureFinalizers(cr, state);
      }
      await this.#applyGroup(cr, applyNow(desired.groups.onCreate), previous, state, finalizer);
      mark('onCreate');
      await this.#applyGroup(cr, applyNow(desired.groups.onReconcile), previous, state, finalizer);
      if (finalizer != null) cr = await finalizer;
      mark('onReconcile');
      const first = desired.blocked[0];
      if (first != null) {
        throw new TerminalError(
          formatReasonMessage(first.entry.katalogPath, first.reason, {
            kind: first.ref.kind,
            namespace: first.ref.namespace,
            name: first.ref.name,
          }),
          { code: ConditionReason.NamespaceRestricted, katalogPath: first.entry.katalogPath },
        );
      }
      const pruned = await this.#prune(cr, desired, previous, state);
      mark('prune');
      state.inventory = this.#inventory(cr, desired, previous, pruned);
      if (this.#o.hooks?.providers != null) {
        const result = await this.#o.hooks.providers({
          crd: this.#o.crd,
          cr: view,
          context,
          signal: ctx.signal,
          logger: ctx.logger,
          effects: this.#effects(state),
        });
        context['providers'] = result.outputs;
        if (result.requeueAfterMs != null) state.requeueAt.push(this.#o.clock.now() + result.requeueAfterMs);
      }
      mark('providers');
      const outcome: ReadyOutcome = { ready: true, reason: ConditionReason.ReconcileSucceeded, message: '' };
      await this.#writeStatus(cr, outcome, state, ctx);
      mark('status');
      await this.#writeAnnotations(cr, state, ctx);
      return this.#result(state);
    } catch (thrown) {
      if (thrown instanceof Pending) {
        await this.#writeStatus(
          cr,
          { ready: false, reason: thrown.reason, message: thrown.message },
          state,
          ctx,
        );
        return { requeueAfterMs: thrown.requeueAfterMs, wroteCr: state.wroteCr, writes: state.writes };
      }
      const error = toOrkestraError(thrown, { katalogPath: this.#o.crd.katalogPath });
      const message =
        error.katalogPath != null && !error.message.startsWith(error.katalogPath)
          ? formatReasonMessage(error.katalogPath, error.message)
          : error.message;
      if (state.inventory == null)
        state.inventory = this.#inventory(cr, state.desired, inventoryOf(cr), new Set());
      try {
        await this.#writeStatus(cr, { ready: false, reason: error.code, message }, state, ctx);
      } catch (statusError) {
        ctx.logger.warn({ err: describeError(statusError) }, 'status write after a failed reconcile failed');
      }
      throw error;
    }
  }

  #result(state: RunState): RunResult {
    const now = this.#o.clock.now();
    const at = state.requeueAt.length === 0 ? undefined : Math.min(...state.requeueAt);
    return {
      ...(at == null ? {} : { requeueAfterMs: Math.max(0, at - now) }),
      wroteCr: state.wroteCr,
      writes: state.writes,
    };
  }

  #effects(state: RunState): HookEffects {
    return {
      requeueAt: (atMs) => {
        state.requeueAt.push(atMs);
      },
      annotate: (key, value) => {
        state.annotations.set(key, value);
      },
      recordProviders: (records) => {
        state.providers = records;
      },
    };
  }

  /** #writeAnnotations is step 18: one metadata merge patch (with the cached resource version) of the annotations that changed. */
  async #writeAnnotations(cr: KubeObject, state: RunState, ctx: RunContext): Promise<void> {
    if (state.annotations.size === 0) return;
    const current = this.#o.primary.getByName(cr.metadata.namespace, cr.metadata.name ?? '') ?? cr;
    const existing = current.metadata.annotations ?? {};
    const changed: Record<string, string> = {};
    for (const [key, value] of state.annotations) if (existing[key] !== value) changed[key] = value;
    if (Object.keys(changed).length === 0) return;
    try {
      const patched = await this.#o.client.mergePatch(refOf(current), {
        metadata: { annotations: changed, resourceVersion: current.metadata.resourceVersion },
      });
      this.#o.primary.upsertFromWrite(patched);
      state.wroteCr = true;
      state.writes++;
    } catch (error) {
      ctx.logger.warn(
        { err: describeError(error), annotations: Object.keys(changed) },
        'writing CR annotations failed; retrying',
      );
      state.requeueAt.push(this.#o.clock.now() + ANNOTATION_RETRY_MS);
    }
  }

  async #writeStatus(cr: KubeObject, outcome: ReadyOutcome, state: RunState, ctx: RunContext): Promise<void> {
    const written = await this.#status.write(cr, {
      outcome,
      providers: state.providers,
      warnings: state.warnings,
      inventory: state.inventory,
      context: state.context,
      desired: state.desired,
      logger: ctx.logger,
      waiting: state.waiting, // issue-18
    });
    if (written) {
      state.wroteCr = true;
      state.writes++;
    }
  }

  // ---- step 5: finalizers -------------------------------------------------------------------

  /** #finalizerMayWait: the entry cleans up nothing but its owned children (issue 19, write-plan.ts). */
  #finalizerMayWait(): boolean {
    const cleanup = this.#cleanup();
    return cleanup.extraFinalizers.length === 0 && !cleanup.hasOnDelete && !cleanup.hasProviders;
  }

  #cleanup(): { extraFinalizers: readonly string[]; hasOnDelete: boolean; hasProviders: boolean } {
    const crd = this.#o.crd;
    return {
      extraFinalizers: crd.extraFinalizers,
      hasOnDelete: crd.entry.operatorBox.onDelete != null,
      hasProviders: crd.hooks.providers.length > 0,
    };
  }

  #missingFinalizers(cr: KubeObject): string[] {
    const wanted = [OrkestraFinalizer.Finalizer, ...this.#o.crd.extraFinalizers];
    const current = (cr.metadata['finalizers'] as string[] | undefined) ?? [];
    return wanted.filter((f) => !current.includes(f));
  }

  async #ensureFinalizers(cr: KubeObject, state: RunState): Promise<KubeObject> {
    const current = (cr.metadata['finalizers'] as string[] | undefined) ?? [];
    const missing = this.#missingFinalizers(cr);
    if (missing.length === 0) return cr;
    try {
      const patched = await this.#o.client.mergePatch(refOf(cr), {
        metadata: { finalizers: [...current, ...missing], resourceVersion: cr.metadata.resourceVersion },
      });
      this.#o.primary.upsertFromWrite(patched);
      state.wroteCr = true;
      state.writes++;
      return structuredClone(patched);
    } catch (error) {
      throw new OrkestraError(
        formatReasonMessage(
          this.#o.crd.katalogPath,
          `adding finalizers ${missing.join(', ')}: ${errorMessage(error)}`,
        ),
        { code: ConditionReason.FinalizerFailed, katalogPath: this.#o.crd.katalogPath, cause: error },
      );
    }
  }

  // ---- steps 6–8: normalize, mutation, validation ----------------------------------------------

  /** #mutate is step 7: the planned spec changes, written as one merge patch with the cached resource version. */
  async #mutate(
    cr: KubeObject,
    view: KubeObject,
    state: RunState,
  ): Promise<{ cr: KubeObject; view: KubeObject }> {
    const plan = planMutation(this.#o.crd, view, this.#conditions);
    if (plan == null) return { cr, view };
    try {
      const patched = await this.#o.client.mergePatch(refOf(cr), {
        metadata: { resourceVersion: cr.metadata.resourceVersion },
        spec: plan.changes,
      });
      this.#o.primary.upsertFromWrite(patched);
      state.wroteCr = true;
      state.writes++;
      const next = structuredClone(patched);
      return { cr: next, view: normalizeCr(this.#o.crd, next) };
    } catch (error) {
      throw new OrkestraError(
        formatReasonMessage(this.#o.crd.katalogPath, `mutation patch: ${errorMessage(error)}`),
        {
          code: ConditionReason.MutationFailed,
          katalogPath: `${this.#o.crd.katalogPath}.mutation`,
          cause: error,
        },
      );
    }
  }

  /** #validate is step 8: returns the warn-rule messages (undefined without warn rules); deny violations throw ValidationFailed. */
  #validate(view: KubeObject): string[] | undefined {
    if (this.#o.crd.validation.length === 0) return undefined;
    const outcome = validateCr(this.#o.crd, view, this.#conditions, () => this.#o.primary.list());
    const warned = outcome.warnings ?? [];
    this.#observer.validation(
      this.#o.crd.name,
      outcome.denied.length > 0 ? 'denied' : warned.length > 0 ? 'warned' : 'passed',
    );
    if (outcome.denied.length > 0) throw validationError(this.#o.crd, outcome.denied);
    return outcome.warnings;
  }

  // ---- steps 9–12: hook slots ------------------------------------------------------------------

  async #hooks(
    view: KubeObject,
    context: Record<string, unknown>,
    ctx: RunContext,
    state: RunState,
  ): Promise<void> {
    const hooks = this.#o.hooks;
    if (hooks == null) return;
    const effects = this.#effects(state);
    const input = (): HookInput => ({
      crd: this.#o.crd,
      cr: view,
      context,
      signal: ctx.signal,
      logger: ctx.logger,
      effects,
    });
    if (hooks.cross != null) context['cross'] = (await hooks.cross(input())) ?? {};
    if (hooks.git != null) context['git'] = (await hooks.git(input())) ?? {};
    if (hooks.external != null) context['external'] = (await hooks.external(input())) ?? {};
    if (hooks.docker != null) context['docker'] = (await hooks.docker(input())) ?? {};
  }

  // ---- step 13: desired set --------------------------------------------------------------------

  #buildDesired(view: KubeObject, context: TemplateContext): DesiredSet {
    return buildDesiredSet({
      crd: this.#o.crd,
      owner: this.#owner(view),
      context,
      conditions: this.#conditions,
      customScope: this.#o.customScope,
      blockedReason: (namespace) =>
        this.#o.guard.isBlocked(namespace) ? this.#o.guard.reason(namespace) : undefined,
    });
  }

  #owner(cr: KubeObject): Owner {
    const namespace = cr.metadata.namespace;
    return {
      apiVersion: cr.apiVersion,
      kind: cr.kind,
      name: cr.metadata.name ?? '',
      uid: cr.metadata.uid ?? '',
      crd: this.#o.crd.name,
      ...(namespace == null || namespace === '' ? {} : { namespace }),
    };
  }

  // ---- steps 14–15: writes in waves -------------------------------------------------------------

  async #applyGroup(
    cr: KubeObject,
    children: readonly DesiredChild[],
    previous: readonly InventoryRecord[],
    state: RunState,
    /** issue 19: the finalizer write that runs alongside the first wave; its failure comes first. */
    alongside?: Promise<unknown>,
  ): Promise<void> {
    // issue 19 (write-plan.ts): waves only where the API server needs an earlier write.
    const waves = groupByWave(children);
    for (const [index, list] of waves.entries()) {
      const writes = runLimited(
        list.map((child) => () => this.#writeChild(cr, child, previous, state)),
        this.#maxWrites,
      );
      const [results, finalizer] = await Promise.all([
        writes,
        index === 0 && alongside != null
          ? alongside.then(
              () => undefined,
              (error: unknown) => ({ error }),
            )
          : undefined,
      ]);
      if (finalizer != null) throw finalizer.error;
      const failures = results
        .map((r, i) => ({ r, child: list[i] }))
        .filter(
          (x): x is { r: PromiseRejectedResult; child: DesiredChild } =>
            x.r.status === 'rejected' && x.child != null,
        );
      if (failures.length > 0) {
        failures.sort((a, b) => order(a.child) - order(b.child) || a.child.entry.index - b.child.entry.index);
        const first = failures[0];
        if (first != null) throw toWriteError(first.r.reason, first.child.entry.katalogPath, first.child.ref);
      }
    }
  }

  async #writeChild(
    cr: KubeObject,
    child: DesiredChild,
    previous: readonly InventoryRecord[],
    state: RunState,
  ): Promise<void> {
    const module = kindFor(child.entry.listKey);
    if (module == null) return;
    const children = this.#o.children;
    const cached = children.get(child.ref);
    let manifest = child.manifest;
    const isSecret = child.ref.kind === 'Secret' && child.ref.apiVersion === 'v1';
    const rendered = child.rendered;
    if (
      child.ref.kind === 'Job' &&
      cached == null &&
      previous.some((p) => p.completed === true && sameRef(p, child.ref))
    ) {
      return; // a completed Job recorded in the inventory is not created again (docs/reference/katalog.md §5.2).
    }
    if (isSecret && rendered['once'] === true) {
      if (cached != null) {
        await this.#rotateIfDue(cr, child, cached, state);
        // In onReconcile a once Secret keeps its labels and annotations in sync, never its data
        // (docs/reference/katalog.md §7.2): `child.manifest` has no data, and apply mode skips it when it matches.
        if (child.entry.group === 'onReconcile') await this.#syncOnceMetadata(cr, child, state);
        return;
      }
      manifest = await this.#secretForCreate(child);
      if (child.entry.group === 'onReconcile') {
        // Stamp the hash of the data-less manifest, so the metadata sync finds the new Secret in sync.
        manifest = {
          ...manifest,
          metadata: {
            ...manifest.metadata,
            annotations: {
              ...manifest.metadata.annotations,
              [OrkestraAnnotation.AppliedHash]: appliedHash(child.manifest),
            },
          },
        };
      }
    }
    // Drift made by someone else: an existing child whose applied-hash already equals the desired
    // one. Against a writer that keeps reverting it, corrections are bounded (DriftLimiter); a
    // template change (different hash) is never held back.
    const ownerUid = cr.metadata.uid ?? '';
    const fought = child.mode === 'apply' && child.entry.forceConflict && cached != null;
    if (fought && this.#drift.tracks(ownerUid, child.id) && isDrift(cached, manifest)) {
      if (compareToCache(withAppliedHash(manifest), cached, module.rules) === 'match') {
        this.#drift.stable(ownerUid, child.id);
      } else {
        const decision = this.#drift.admit(ownerUid, child.id);
        if (!decision.allowed) {
          state.requeueAt.push(decision.retryAt);
          this.#observer.childWriteSkipped(this.#o.crd.name, child.ref.kind);
          if (decision.episodeStarted) this.#driftFight(cr, child);
          return;
        }
      }
    }
    const result = await module.ensure(manifest, {
      mode: child.mode,
      cache: children,
      client: this.#o.client,
      force: child.entry.forceConflict,
      onWritten: (object) => children.upsertFromWrite(object),
      onNotManaged: (live) =>
        this.#o.events.warning(
          cr,
          'ChildNotManaged',
          formatReasonMessage(
            child.entry.katalogPath,
            'exists and is not managed by Orkestra; left untouched',
            {
              kind: live.kind,
              namespace: live.metadata.namespace,
              name: live.metadata.name ?? '',
            },
          ),
        ),
    });
    if (
      result === 'updated' &&
      fought &&
      !this.#drift.tracks(ownerUid, child.id) &&
      isDrift(cached, manifest)
    ) {
      this.#drift.admit(ownerUid, child.id); // the first correction: always allowed, now counted
    }
    if (result === 'created' || result === 'updated') {
      state.writes++;
      this.#childWritten(child.ref.kind, child.mode === 'apply' ? 'apply' : 'create');
      if (isSecret && rendered['once'] === true && result === 'created')
        this.#observer.secretGenerated(this.#o.crd.name, 'created');
      this.#o.events.normal(
        cr,
        result === 'created' ? 'Created' : 'Updated',
        `${formatChild(child.ref)} (${child.entry.source}) was ${result}`,
      );
    } else {
      this.#observer.childWriteSkipped(this.#o.crd.name, child.ref.kind);
    }
    if (isSecret) this.#scheduleRotation(child, children.get(child.ref), state);
  }

  /** #driftFight emits `DriftFight` once per backoff episode: names the child, never field values. */
  #driftFight(cr: KubeObject, child: DesiredChild): void {
    this.#o.events.warning(
      cr,
      'DriftFight',
      formatReasonMessage(
        child.entry.katalogPath,
        'another writer keeps changing this child back; corrections now back off',
        {
          kind: child.ref.kind,
          namespace: child.ref.namespace,
          name: child.ref.name,
        },
      ),
    );
  }

  /** #syncOnceMetadata applies a once Secret's labels and annotations without `data` (docs/reference/runtime.md §9.3). */
  async #syncOnceMetadata(cr: KubeObject, child: DesiredChild, state: RunState): Promise<void> {
    const module = kindFor('secrets');
    if (module == null) return;
    const { data: _data, stringData: _stringData, ...metadataOnly } = child.manifest;
    const children = this.#o.children;
    const result = await module.ensure(metadataOnly as KubeObject, {
      mode: 'apply',
      cache: children,
      client: this.#o.client,
      force: child.entry.forceConflict,
      onWritten: (object) => children.upsertFromWrite(object),
    });
    if (result === 'unchanged') {
      this.#observer.childWriteSkipped(this.#o.crd.name, child.ref.kind);
      return;
    }
    state.writes++;
    this.#childWritten(child.ref.kind, 'apply');
    this.#o.events.normal(cr, 'Updated', `${formatChild(child.ref)} (${child.entry.source}) was updated`);
  }

  async #secretForCreate(child: DesiredChild): Promise<KubeObject> {
    const rendered = child.rendered;
    const rotateAfter = typeof rendered['rotateAfter'] === 'string' ? rendered['rotateAfter'] : undefined;
    const tls = rendered['tls'] as Record<string, unknown> | undefined;
    // Deferred `data` is rendered only now, when a create or rotation is attempted (docs/reference/runtime.md §9.2).
    let manifest = child.withData == null ? child.manifest : child.withData();
    if (tls != null) {
      const namespace = child.ref.namespace ?? 'default';
      const commonName = stringOrUndefined(tls['commonName']) ?? `${child.ref.name}.${namespace}.svc`;
      const dnsNames = Array.isArray(tls['dnsNames']) ? tls['dnsNames'].map((n) => stringForm(n)) : undefined;
      const validFor = stringOrUndefined(tls['validFor']);
      const material = await generateTlsMaterial(
        {
          commonName,
          dnsNames,
          validForMs: tlsValidForMs({ rotateAfter, tls: { validFor } }),
          organization: stringOrUndefined(tls['organization']),
        },
        { clock: this.#o.clock, random: this.#o.random },
      );
      manifest = {
        ...manifest,
        type: 'kubernetes.io/tls',
        data: Object.fromEntries(
          Object.entries(material).map(([k, v]) => [k, Buffer.from(v, 'utf8').toString('base64')]),
        ),
      };
    }
    if (rotateAfter != null || tls != null) {
      manifest = {
        ...manifest,
        metadata: {
          ...manifest.metadata,
          annotations: {
            ...manifest.metadata.annotations,
            ...generationStamp(new Date(this.#o.clock.now()), rotateAfter),
          },
        },
      };
    }
    return manifest;
  }

  #scheduleRotation(child: DesiredChild, secret: KubeObject | undefined, state: RunState): void {
    const entry = rotationEntry(child.rendered);
    if (entry.rotateAfter == null && entry.tls == null) return;
    const rotation = secretRotationState({ secret, entry, now: new Date(this.#o.clock.now()) });
    if (rotation.dueAt != null) state.requeueAt.push(rotation.dueAt.getTime());
  }

  /** #rotateIfDue regenerates a rotating Secret's data in place with its resource version (docs/reference/runtime.md §14.1). */
  async #rotateIfDue(
    cr: KubeObject,
    child: DesiredChild,
    cached: KubeObject,
    state: RunState,
  ): Promise<void> {
    const owner = cached.metadata.labels?.[OrkestraLabel.OwnerUid];
    if (owner != null && owner !== cr.metadata.uid) {
      throw new TerminalError(`${formatChild(child.ref)} belongs to the CR with UID ${owner}`, {
        code: ConditionReason.ChildOwnedByOther,
        katalogPath: child.entry.katalogPath,
      });
    }
    const entry = rotationEntry(child.rendered);
    if (entry.rotateAfter == null && entry.tls == null) return;
    const now = new Date(this.#o.clock.now());
    const rotation = secretRotationState({ secret: cached, entry, now });
    if (!rotation.due && !rotation.stampNeeded) {
      if (rotation.dueAt != null) state.requeueAt.push(rotation.dueAt.getTime());
      return;
    }
    const patch: Record<string, unknown> = {
      metadata: {
        resourceVersion: cached.metadata.resourceVersion,
        annotations: generationStamp(now, entry.rotateAfter),
      },
    };
    if (rotation.due) {
      const fresh = await this.#secretForCreate(child);
      patch['data'] = fresh['data'] ?? {};
      if (fresh['type'] != null) patch['type'] = fresh['type'];
    }
    const written = await this.#o.client.mergePatch(child.ref, patch);
    this.#o.children.upsertFromWrite(written);
    state.writes++;
    this.#childWritten(child.ref.kind, 'update');
    if (rotation.due) this.#observer.secretGenerated(this.#o.crd.name, 'rotated');
    if (rotation.due)
      this.#o.events.normal(
        cr,
        'SecretRotated',
        `${formatChild(child.ref)} (${child.entry.source}) was rotated`,
      );
    this.#scheduleRotation(child, written, state);
  }

  // ---- step 15: pruning (docs/reference/runtime.md §9.6) ------------------------------------------------------

  async #prune(
    cr: KubeObject,
    desired: DesiredSet,
    previous: readonly InventoryRecord[],
    state: RunState,
  ): Promise<Set<string>> {
    const pruned = new Set<string>();
    const uid = cr.metadata.uid ?? '';
    const candidates = pruneCandidates({ children: this.#o.children, ownerUid: uid, desired, previous });
    const tasks: (() => Promise<void>)[] = [];
    for (const [id, candidate] of candidates) {
      if (!candidate.apply || !candidate.prune || candidate.job) continue;
      const cached = this.#o.children.get(candidate.ref);
      if (cached == null && this.#o.children.watches(candidate.ref)) {
        pruned.add(id); // already gone
        continue;
      }
      if (cached == null) {
        // A kind no longer watched: confirm ownership with one GET before deleting.
        try {
          const live = await this.#o.client.get(candidate.ref);
          if (live.metadata.labels?.[OrkestraLabel.OwnerUid] !== uid) {
            pruned.add(id);
            continue;
          }
          if (live.metadata.uid != null) Object.assign(candidate, { uid: live.metadata.uid });
        } catch (error) {
          if (error instanceof NotFoundError) {
            pruned.add(id);
            continue;
          }
          throw toWriteError(error, this.#o.crd.katalogPath, candidate.ref, ConditionReason.PruneFailed);
        }
      } else if (cached.metadata.labels?.[OrkestraLabel.OwnerUid] !== uid) {
        continue; // never by name alone
      }
      tasks.push(async () => {
        try {
          await this.#o.client.delete(candidate.ref, {
            propagationPolicy: 'Background',
            ...(candidate.uid == null ? {} : { uid: candidate.uid }),
          });
          state.writes++;
          this.#childWritten(candidate.ref.kind, 'prune');
          this.#o.events.normal(cr, 'Pruned', `${formatChild(candidate.ref)} was pruned`);
        } catch (error) {
          if (!(error instanceof NotFoundError))
            throw toWriteError(error, this.#o.crd.katalogPath, candidate.ref, ConditionReason.PruneFailed);
        }
        pruned.add(id);
      });
    }
    const results = await runLimited(tasks, this.#maxWrites);
    for (const id of pruned) this.#drift.forget(cr.metadata.uid ?? '', id);
    const failed = results.find((r): r is PromiseRejectedResult => r.status === 'rejected');
    if (failed != null) throw failed.reason;
    return pruned;
  }

  // ---- inventory (docs/reference/katalog.md §13.1): stages/inventory.ts ---------------------

  #inventory(
    cr: KubeObject,
    desired: DesiredSet | undefined,
    previous: readonly InventoryRecord[],
    pruned: ReadonlySet<string>,
  ): InventoryRecord[] {
    return buildInventory({
      children: this.#o.children,
      ownerUid: cr.metadata.uid ?? '',
      desired,
      previous,
      pruned,
    });
  }

  // ---- deletion path (docs/reference/runtime.md §10.2) -------------------------------------------------------

  async #deletion(cr: KubeObject, ctx: RunContext, state: RunState): Promise<RunResult> {
    this.#drift.forget(cr.metadata.uid ?? '');
    const finalizers = (cr.metadata['finalizers'] as string[] | undefined) ?? [];
    if (!finalizers.includes(OrkestraFinalizer.Finalizer)) return { wroteCr: false, writes: 0 };
    // A pass queued before the DELETED event sees the cached CR that still lists the finalizer.
    if (this.#finalized.has(cr.metadata.uid ?? '')) return { wroteCr: false, writes: 0 };
    const crd = this.#o.crd;
    const deleting = async (reason: ConditionReason, message: string): Promise<void> => {
      await this.#status.writeDeleting(cr, { ready: false, reason, message }, ctx.logger).then((w) => {
        if (w) {
          state.wroteCr = true;
          state.writes++;
        }
      });
    };
    const current = (
      cr['status'] as { conditions?: { type: string; reason?: string }[] } | undefined
    )?.conditions?.find((c) => c.type === 'Ready');
    if (
      current?.reason !== ConditionReason.Deleting &&
      current?.reason !== ConditionReason.DeletionTimedOut
    ) {
      this.#o.events.normal(cr, 'Deleting', `${crd.katalogPath}: deletion started`);
    }
    const context = crContext(cr);
    const onDelete = crd.entry.operatorBox.onDelete;
    const gatePassed = onDelete == null || evaluateConditions(onDelete, context, this.#conditions).passed;
    try {
      let waiting: string | undefined;
      if (onDelete != null && gatePassed) {
        waiting = await this.#cleanupJobs(cr, context, state);
        if (waiting == null) waiting = await this.#orderedGroups(cr, context, state);
      }
      if (waiting != null) {
        const since = Date.parse(String(cr.metadata['deletionTimestamp']));
        const timeoutMs = onDelete == null ? Infinity : parseDurationSafe(onDelete.timeout);
        if (!Number.isNaN(since) && this.#o.clock.now() - since > timeoutMs) {
          const message = formatReasonMessage(
            `${crd.katalogPath}.operatorBox.onDelete`,
            `not complete after ${onDelete?.timeout ?? ''}: ${waiting}`,
          );
          if (current?.reason !== ConditionReason.DeletionTimedOut)
            this.#o.events.warning(cr, 'DeletionTimedOut', message);
          await deleting(ConditionReason.DeletionTimedOut, message);
          throw new OrkestraError(message, {
            code: ConditionReason.DeletionTimedOut,
            katalogPath: crd.katalogPath,
          });
        }
        await deleting(
          ConditionReason.Deleting,
          formatReasonMessage(`${crd.katalogPath}.operatorBox.onDelete`, waiting),
        );
        return {
          requeueAfterMs: waiting.startsWith('waiting for cleanup job') ? JOB_WAIT_MS : DELETE_WAIT_MS,
          wroteCr: state.wroteCr,
          writes: state.writes,
        };
      }
      const deleteProviders = this.#o.hooks?.deleteProviders;
      const uid = cr.metadata.uid ?? '';
      // Provider deletions run once per CR: later passes (waiting for explicit child deletes) skip
      // them instead of calling every provider's delete again (found by the parity test).
      if (deleteProviders != null && !this.#providersDeleted.has(uid)) {
        let providers: ProviderDeletion;
        try {
          providers = await deleteProviders({
            crd,
            cr,
            context: { ...context, providers: recordedProviders(cr) },
            signal: ctx.signal,
            logger: ctx.logger,
            effects: this.#effects(state),
          });
        } catch (error) {
          const failure = toOrkestraError(error, { katalogPath: crd.katalogPath });
          await deleting(failure.code as ConditionReason, failure.message);
          throw failure;
        }
        if (providers != null) {
          await deleting(ConditionReason.Deleting, formatReasonMessage(crd.katalogPath, providers.waiting));
          return { requeueAfterMs: providers.requeueAfterMs, wroteCr: state.wroteCr, writes: state.writes };
        }
        this.#providersDeleted.add(uid);
      }
      const explicit = await this.#explicitChildren(cr, state);
      if (explicit != null) {
        await deleting(ConditionReason.Deleting, formatReasonMessage(crd.katalogPath, explicit));
        return { requeueAfterMs: DELETE_WAIT_MS, wroteCr: state.wroteCr, writes: state.writes };
      }
      const ours = new Set<string>([OrkestraFinalizer.Finalizer, ...crd.extraFinalizers]);
      const patched = await this.#o.client.mergePatch(refOf(cr), {
        metadata: {
          finalizers: finalizers.filter((f) => !ours.has(f)),
          resourceVersion: cr.metadata.resourceVersion,
        },
      });
      // issue 17 (found by the parity test): with no finalizer left the API server removes the CR
      // at once, and its DELETED watch event can reach the cache before this response; upserting
      // the response then would bring back a ghost CR until the next relist. The uid stays in
      // #providersDeleted until the cache reports the CR gone (forget): a pass queued before the
      // DELETED event still sees the cached CR with its finalizer and must not delete again.
      const remaining = (patched.metadata['finalizers'] as readonly string[] | undefined) ?? [];
      if (remaining.length > 0) this.#o.primary.upsertFromWrite(patched);
      else this.#finalized.add(uid);
      state.writes++;
      this.#o.events.normal(cr, 'Finalized', `${crd.katalogPath}: finalizers removed`);
      return { wroteCr: false, writes: state.writes };
    } catch (error) {
      if (error instanceof OrkestraError) throw error;
      if (error instanceof NotFoundError) return { wroteCr: false, writes: state.writes };
      throw toOrkestraError(error, { katalogPath: crd.katalogPath });
    }
  }

  /**
   * #cleanupJobs creates onDelete jobs if absent and returns what is still running, or undefined
   * when all finished. Finished jobs are recorded in the CR's `cleanup-jobs-finished` annotation
   * as soon as they are seen, so a job that Kubernetes removes after its TTL is not created again.
   */
  async #cleanupJobs(cr: KubeObject, context: TemplateContext, state: RunState): Promise<string | undefined> {
    const running: string[] = [];
    const owner = this.#owner(cr);
    const recorded = new Set(
      (cr.metadata.annotations?.[CLEANUP_JOBS_FINISHED] ?? '').split(',').filter((s) => s !== ''),
    );
    const finishedNow: string[] = [];
    for (const job of this.#o.crd.onDeleteJobs) {
      const copies = job.compiled.expand(context, {
        include: (ctx, g) =>
          evaluateConditions(g as { when?: Condition[]; anyOf?: Condition[] }, ctx, this.#conditions).passed,
      });
      for (const copy of copies) {
        const module = kindFor('jobs');
        if (module == null) continue;
        const rendered = { ...copy.entry };
        const resolved = module.resolve({ entry: rendered, path: job.source }, owner);
        const { ownerReferences: _dropped, ...metadata } = resolved.manifest.metadata;
        const spec = { ...(resolved.manifest['spec'] as Record<string, unknown>) };
        if (spec['ttlSecondsAfterFinished'] == null)
          spec['ttlSecondsAfterFinished'] = CLEANUP_JOB_TTL_SECONDS;
        const manifest: KubeObject = { ...resolved.manifest, metadata, spec };
        const jobId = `${resolved.ref.namespace ?? ''}/${resolved.ref.name}`;
        if (recorded.has(jobId)) continue; // finished earlier, possibly already removed by its TTL
        let live = this.#o.children.get(resolved.ref);
        if (live == null) {
          try {
            live = await this.#o.client.create(manifest);
            this.#o.children.upsertFromWrite(live);
            state.writes++;
            this.#childWritten('Job', 'create');
            this.#o.events.normal(cr, 'Created', `${formatChild(resolved.ref)} (${job.source}) was created`);
          } catch (error) {
            if (error instanceof AlreadyExistsError) {
              live = await this.#o.client.get(resolved.ref);
            } else throw toWriteError(error, job.katalogPath, resolved.ref);
          }
        }
        const finished = jobFinished(live);
        if (finished != null) finishedNow.push(jobId);
        if (finished === 'failed') {
          this.#o.events.warning(
            cr,
            'DeleteHookFailed',
            formatReasonMessage(job.katalogPath, 'cleanup job failed', {
              kind: 'Job',
              namespace: resolved.ref.namespace,
              name: resolved.ref.name,
            }),
          );
        } else if (finished == null) {
          running.push(formatChild(resolved.ref));
        }
      }
    }
    if (finishedNow.length > 0) await this.#recordFinishedJobs(cr, [...recorded, ...finishedNow], state);
    return running.length === 0 ? undefined : `waiting for cleanup job ${running.join(', ')}`;
  }

  /** #recordFinishedJobs writes the finished cleanup jobs into the CR's annotation (merge patch with the resource version) and updates `cr` in place. */
  async #recordFinishedJobs(cr: KubeObject, jobs: readonly string[], state: RunState): Promise<void> {
    const value = [...new Set(jobs)].sort().join(',');
    const patched = await this.#o.client.mergePatch(refOf(cr), {
      metadata: {
        annotations: { [CLEANUP_JOBS_FINISHED]: value },
        resourceVersion: cr.metadata.resourceVersion,
      },
    });
    this.#o.primary.upsertFromWrite(patched);
    state.wroteCr = true;
    state.writes++;
    // Later steps of this run (status, finalizer removal) carry the new resource version.
    Object.assign(cr.metadata, {
      resourceVersion: patched.metadata.resourceVersion,
      annotations: patched.metadata.annotations,
    });
  }

  /** #orderedGroups deletes the first onDelete group that still has objects; undefined when every group is gone. */
  async #orderedGroups(
    cr: KubeObject,
    context: TemplateContext,
    state: RunState,
  ): Promise<string | undefined> {
    const onDelete = this.#o.crd.entry.operatorBox.onDelete;
    if (onDelete == null || !onDelete.ordered) return undefined;
    const owner = this.#owner(cr);
    for (const group of this.#o.crd.onDeleteGroups) {
      if (!evaluateConditions(group.group, context, this.#conditions).passed) continue;
      const remaining: { ref: ObjectRef; uid?: string; deleting: boolean }[] = [];
      for (const ref of group.refs) {
        const rendered = ref.value.render(context) as Record<string, unknown>;
        const target = deleteRefOf(ref.listKey, rendered, owner);
        if (target == null) continue;
        const live = await this.#observe(target);
        if (live == null) continue;
        const uid = live.metadata.uid;
        remaining.push({
          ref: target,
          ...(uid == null ? {} : { uid }),
          deleting: live.metadata['deletionTimestamp'] != null,
        });
      }
      if (remaining.length === 0) continue;
      for (const item of remaining) {
        if (item.deleting) continue;
        try {
          await this.#o.client.delete(item.ref, {
            propagationPolicy: group.group.propagation,
            ...(item.uid == null ? {} : { uid: item.uid }),
          });
          state.writes++;
          this.#childWritten(item.ref.kind, 'delete');
        } catch (error) {
          if (!(error instanceof NotFoundError))
            throw toOrkestraError(error, { katalogPath: group.katalogPath });
        }
      }
      return `waiting for group ${group.group.name} (${remaining.map((r) => formatChild(r.ref)).join(', ')}) to be deleted`;
    }
    return undefined;
  }

  // ---- issue 20: deterministic deletion ----------------------------------------------------
  // Every child of the inventory and the cache is deleted explicitly (not only those garbage
  // collection cannot reach), in reverse wave order, and the finalizer is released only once all
  // of them are gone: `kubectl delete` returns after the children are gone, whether or not the
  // garbage collector has discovered a just-installed kind yet. (issue-17-engine: this is the
  // deletion stage's "explicit children" step.)
  async #explicitChildren(cr: KubeObject, state: RunState): Promise<string | undefined> {
    const uid = cr.metadata.uid ?? '';
    const found = new Map<string, { ref: ObjectRef; uid?: string; deleting: boolean; wave: number }>();
    const consider = (object: KubeObject): void => {
      const source = object.metadata.annotations?.['orkestra.konductor.io/source'] ?? '';
      if (source.startsWith('onDelete.')) return;
      const ref = refOf(object);
      const objectUid = object.metadata.uid;
      found.set(idOf(ref), {
        ref,
        ...(objectUid == null ? {} : { uid: objectUid }),
        deleting: object.metadata['deletionTimestamp'] != null,
        wave: waveOfKind(ref.kind),
      });
    };
    for (const object of this.#o.children.listAllOwned(uid)) consider(object);
    for (const record of inventoryOf(cr)) {
      const ref = recordRef(record);
      if (found.has(idOf(ref)) || record.source.startsWith('onDelete.')) continue;
      if (this.#o.children.watches(ref)) {
        const live = this.#o.children.get(ref);
        if (live != null) consider(live);
      } else {
        // Not in any cache (e.g. a custom kind without an informer): a delete tells whether it is gone.
        found.set(idOf(ref), { ref, deleting: false, wave: waveOfKind(ref.kind) });
      }
    }
    if (found.size === 0) return undefined;
    const waves = [...new Set([...found.values()].map((f) => f.wave))].sort((a, b) => b - a);
    const wave = waves[0];
    const items = [...found.values()].filter((f) => f.wave === wave);
    const left: typeof items = [];
    for (const item of items) {
      if (item.deleting) {
        left.push(item); // has its own finalizers: wait until it is gone
        continue;
      }
      try {
        await this.#o.client.delete(item.ref, {
          propagationPolicy: 'Background',
          ...(item.uid == null ? {} : { uid: item.uid }),
        });
        state.writes++;
        this.#childWritten(item.ref.kind, 'delete');
        left.push(item);
      } catch (error) {
        if (!(error instanceof NotFoundError))
          throw toOrkestraError(error, { katalogPath: this.#o.crd.katalogPath });
      }
    }
    // Gone only when every wave is gone; the children's delete events re-queue the CR.
    if (left.length === 0 && waves.length === 1) return undefined;
    return `deleting ${(left.length > 0 ? left : items).map((i) => formatChild(i.ref)).join(', ')}`;
  }

  async #observe(ref: ObjectRef): Promise<KubeObject | undefined> {
    if (this.#o.children.watches(ref)) return this.#o.children.get(ref);
    try {
      return await this.#o.client.get(ref);
    } catch (error) {
      if (error instanceof NotFoundError) return undefined;
      throw error;
    }
  }
}

// ---- helpers -------------------------------------------------------------------------------------

/** recordedProviders is the `providers` context of resource templates: the outputs recorded in `status.providers`, with `ready` and `message` (docs/reference/katalog.md §14.3). */
function recordedProviders(cr: KubeObject): Record<string, Record<string, unknown>> {
  const recorded = (cr['status'] as { providers?: unknown } | undefined)?.providers;
  const out: Record<string, Record<string, unknown>> = {};
  if (recorded == null || typeof recorded !== 'object') return out;
  for (const [provider, declarations] of Object.entries(recorded as Record<string, unknown>)) {
    if (declarations == null || typeof declarations !== 'object') continue;
    const block: Record<string, unknown> = {};
    for (const [name, record] of Object.entries(declarations as Record<string, unknown>)) {
      if (record == null || typeof record !== 'object') continue;
      const r = record as { outputs?: unknown; ready?: unknown; message?: unknown };
      const outputs = r.outputs != null && typeof r.outputs === 'object' ? r.outputs : {};
      block[name] = {
        ...outputs,
        ready: r.ready === true,
        message: typeof r.message === 'string' ? r.message : '',
      };
    }
    out[provider] = block;
  }
  return out;
}

/** isDrift: the live child was last applied from this very manifest, so any difference was made by someone else. */
function isDrift(cached: KubeObject | undefined, manifest: KubeObject): boolean {
  const stamped = cached?.metadata.annotations?.[OrkestraAnnotation.AppliedHash];
  return stamped != null && stamped === appliedHash(manifest);
}

function formatChild(ref: ObjectRef): string {
  return ref.namespace == null ? `${ref.kind} ${ref.name}` : `${ref.kind} ${ref.namespace}/${ref.name}`;
}

function order(child: DesiredChild): number {
  const groupOffset = child.entry.group === 'onCreate' ? 0 : 100;
  return groupOffset + (RESOURCE_ORDER.get(child.entry.listKey) ?? 99);
}

/** Position of each list key in the fixed kind order (docs/reference/katalog.md §5.4), from @orkestra/types. */
const RESOURCE_ORDER = new Map<string, number>(RESOURCE_LIST_KEYS.map((key, i) => [key, i]));

/** Apply wave of each built-in kind (docs/reference/runtime.md §9.4), from @orkestra/types; custom kinds are wave 6. */
const KIND_WAVES = new Map<string, number>(
  RESOURCE_KINDS.flatMap((info) => (info.kind == null ? [] : [[info.kind, info.wave] as const])),
);

function waveOfKind(kind: string): number {
  return KIND_WAVES.get(kind) ?? 6;
}

function rotationEntry(rendered: Readonly<Record<string, unknown>>): {
  rotateAfter?: string;
  tls?: { validFor?: string };
} {
  const rotateAfter = stringOrUndefined(rendered['rotateAfter']);
  const tls = rendered['tls'] as Record<string, unknown> | undefined;
  const validFor = tls == null ? undefined : stringOrUndefined(tls['validFor']);
  return {
    ...(rotateAfter == null ? {} : { rotateAfter }),
    ...(tls == null ? {} : { tls: validFor == null ? {} : { validFor } }),
  };
}

function stringOrUndefined(value: unknown): string | undefined {
  return typeof value === 'string' && value !== '' ? value : undefined;
}

function deleteRefOf(
  listKey: string,
  rendered: Record<string, unknown>,
  owner: Owner,
): ObjectRef | undefined {
  if (listKey === 'custom') {
    const metadata = (rendered['metadata'] ?? {}) as Record<string, unknown>;
    const name = stringOrUndefined(metadata['name']);
    const apiVersion = stringOrUndefined(rendered['apiVersion']);
    const kind = stringOrUndefined(rendered['kind']);
    if (name == null || apiVersion == null || kind == null) return undefined;
    const namespace = stringOrUndefined(metadata['namespace']);
    return namespace == null ? { apiVersion, kind, name } : { apiVersion, kind, name, namespace };
  }
  const module = kindFor(listKey);
  if (module?.apiVersion == null || module.kind == null) return undefined;
  const name =
    stringOrUndefined(rendered['name']) ??
    (module.defaultNameSuffix == null ? undefined : `${owner.name}${module.defaultNameSuffix}`);
  if (name == null) return undefined;
  if (module.namespaced === false) return { apiVersion: module.apiVersion, kind: module.kind, name };
  const namespace = stringOrUndefined(rendered['namespace']) ?? owner.namespace ?? 'default';
  return { apiVersion: module.apiVersion, kind: module.kind, name, namespace };
}

function parseDurationSafe(text: string): number {
  try {
    return parseDuration(text);
  } catch {
    return 5 * 60_000;
  }
}

function errorMessage(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}

function describeError(error: unknown): Error {
  return errorForLog(error);
}
