/**
 * Step 17 of the pipeline (docs/reference/runtime.md §11): build the CR's status with `buildStatus`, write it
 * through the status subresource only when it changed, and emit the Ready events of runtime.md §12.
 */
import { KubeApiError, KubeErrorCode, refOf } from '@orkestra/registry';
import type { KubeClient, KubeObject } from '@orkestra/registry';
import type { TemplateContext, TemplateEngine } from '@orkestra/template';
import { ConditionReason, ConditionType, OrkestraError, enrichRules } from '@orkestra/types';
import type { EvaluateConditionsOptions, Logger } from '@orkestra/types';
import type { Clock } from '../clock.js';
import type { EventRecorder } from '../events/event-recorder.js';
import { buildStatus } from '../status/build-status.js';
import { buildChildrenContext } from '../status/children-context.js';
import type { ChildState } from '../status/children-context.js';
import { activeEnrichTargets, enrichChild } from '../status/enrich-children.js';
import type { EnrichSources, EnrichTarget } from '../status/enrich-children.js';
import type { InventoryItem } from '../status/inventory.js';
import type { ChildStore, PrimaryStore } from './stores.js';
import type { CompiledCrd } from './compile-katalog.js';
import type { DesiredSet } from './desired-set.js';
import type { ChildEvent } from './stages/run-state.js';
import type { StatusWriteResult } from './runtime-observer.js';
import { errorForLog } from './log-error.js';
import { parseInventory } from '../status/inventory.js';
import { assessReadiness, readyOutcome } from '../status/readiness-status.js';

/** InventoryRecord is one `status.inventory` item. */
export type InventoryRecord = InventoryItem;

/** ReadyOutcome is what the Ready condition should say. */
export interface ReadyOutcome {
  readonly ready: boolean;
  readonly reason: string;
  readonly message: string;
}

/** StatusWriteInput is what one status write depends on. */
export interface StatusWriteInput {
  readonly outcome: ReadyOutcome;
  /** Warn-rule messages; undefined without warn rules or when validation did not run. */
  readonly warnings: readonly string[] | undefined;
  /** HTTP cross reads whose peer did not answer; undefined keeps the cached condition (ADR 0043). */
  readonly crossUnavailable?: readonly string[] | undefined;
  readonly inventory: readonly InventoryRecord[] | undefined;
  readonly context: TemplateContext | undefined;
  readonly desired: DesiredSet | undefined;
  readonly logger: Logger;
  /** `status.providers` records; undefined keeps the cached value. */
  readonly providers?: Readonly<Record<string, unknown>> | undefined;
  /** Fields a remote reconciler returned for `status` (docs/reference/katalog.md §15.3). Default none. */
  readonly serviceStatus?: Readonly<Record<string, unknown>> | undefined;
  /** Children held back by `waitFor` (child id → the ids they wait for). Default none. */
  readonly waiting?: ReadonlyMap<string, readonly string[]> | undefined;
  /**
   * The reconcile's child-write Events, not yet recorded. The writer takes them out of the array
   * as it records them — folded into the Ready=True transition's Event when this write makes one
   * (ADR 0100), else each on its own — so what is left was not recorded. Default none.
   */
  readonly childEvents?: ChildEvent[] | undefined;
}

/** StatusWriterOptions configures a StatusWriter. */
export interface StatusWriterOptions {
  readonly crd: CompiledCrd;
  /** The API transport; status goes through `patchStatus` with the cached resource version (docs/reference/runtime.md §11.4). */
  readonly client: Pick<KubeClient, 'patchStatus'>;
  readonly primary: PrimaryStore;
  readonly children: ChildStore;
  readonly engine: TemplateEngine;
  readonly conditions: EvaluateConditionsOptions;
  readonly clock: Clock;
  readonly events: EventRecorder;
  /** Called with each decision: `written`, `skipped` (unchanged) or `conflict` (stale resource version). Default: none. */
  readonly onResult?: ((result: StatusWriteResult) => void) | undefined;
  /** written as `status.katalogRevision` (docs/reference/runtime.md §24.2). Default: not written. */
  readonly revision?: string | undefined;
  /** The caches `enrich` reads (docs/reference/katalog.md §3.5); without them nothing is added. */
  readonly enrichSources?: EnrichSources | undefined;
}

/**
 * StatusWriter writes a CR's status: the Ready condition (with observedGeneration; the transition
 * time kept unless the status flips), ValidationWarning for entries with warn rules, the
 * inventory, and the declared fields evaluated with `children` from the cache. The result is
 * compared with the cached status; only a difference is sent, as a JSON merge patch carrying the
 * cached resource version. The returned object goes into the primary cache.
 */
export class StatusWriter {
  readonly #o: StatusWriterOptions;
  readonly #hasWarnRules: boolean;
  #subresourceMissing = false;

  constructor(options: StatusWriterOptions) {
    this.#o = options;
    this.#hasWarnRules = options.crd.validation.some((r) => r.rule.action === 'warn');
  }

  /** write builds and (when changed) writes the status; returns whether a request was sent. */
  async write(cr: KubeObject, input: StatusWriteInput): Promise<boolean> {
    const cachedStatus = cr['status'] as Record<string, unknown> | undefined;
    const context = input.context == null ? crContext(cr) : input.context;
    const children = buildChildrenContext(
      this.#childStates(input.desired, this.#enrichTargets(context, input.desired)),
    );
    // Synced is the reconcile's outcome (docs/adr/0009-synced-ready.md); Ready adds the children's readiness (readiness/).
    const now = new Date(this.#o.clock.now());
    const readiness = assessReadiness({
      desired: input.desired,
      get: (ref) => this.#o.children.get(ref),
      waiting: input.waiting,
      conditions: this.#o.conditions,
      previous: parseInventory(cachedStatus?.['inventory']),
      now,
    });
    const ready = readyOutcome(input.outcome, readiness.summary, this.#o.crd.readiness);
    const result = buildStatus({
      cachedStatus,
      generation: typeof cr.metadata['generation'] === 'number' ? cr.metadata['generation'] : undefined,
      ready: { status: ready.ready ? 'True' : 'False', reason: ready.reason, message: ready.message },
      synced: {
        status: input.outcome.ready ? 'True' : 'False',
        reason: input.outcome.reason,
        message: input.outcome.message,
      },
      validationWarnings: this.#hasWarnRules ? (input.warnings ?? 'unknown') : undefined,
      crossUnavailable: input.crossUnavailable,
      inventory: input.inventory == null ? undefined : readiness.annotate(input.inventory),
      providers: input.providers,
      katalogRevision: this.#o.revision,
      declaredFields: this.#o.crd.statusFields,
      serviceStatus: input.serviceStatus,
      failed: !input.outcome.ready,
      context: { ...context, children },
      now,
      onFieldError: (path, message) => this.#o.events.warning(cr, 'StatusFieldError', `${path}: ${message}`),
      engine: this.#o.engine,
    });
    if (!result.changed) {
      this.#events(cr, cachedStatus, input, ready);
      this.#o.onResult?.('skipped');
      return false;
    }
    // After the write: a status the API server refused (409) made no transition, so no Event;
    // the child Events are then recorded on their own by the pipeline.
    const sent = await this.#send(cr, result.patch, input.logger);
    this.#events(cr, cachedStatus, input, ready);
    return sent;
  }

  /** writeDeleting changes only the Ready condition (deletion path); returns whether a request was sent. */
  async writeDeleting(cr: KubeObject, outcome: ReadyOutcome, logger: Logger): Promise<boolean> {
    const cachedStatus = cr['status'] as Record<string, unknown> | undefined;
    const result = buildStatus({
      cachedStatus,
      ready: { status: 'False', reason: outcome.reason, message: outcome.message },
      synced: { status: 'False', reason: outcome.reason, message: outcome.message },
      validationWarnings: this.#hasWarnRules ? 'unknown' : undefined,
      now: new Date(this.#o.clock.now()),
    });
    if (!result.changed) {
      this.#o.onResult?.('skipped');
      return false;
    }
    return this.#send(cr, result.patch, logger);
  }

  async #send(cr: KubeObject, patch: Record<string, unknown>, logger: Logger): Promise<boolean> {
    if (this.#subresourceMissing) return false;
    try {
      const ref = {
        ...refOf(cr),
        apiVersion: this.#o.crd.apiVersion,
        kind: this.#o.crd.apiTypes.kind,
      };
      const written = await this.#o.client.patchStatus(ref, patch, {
        resourceVersion: cr.metadata.resourceVersion,
      });
      this.#o.primary.upsertFromWrite(written);
      this.#o.onResult?.('written');
      return true;
    } catch (error) {
      if (
        error instanceof KubeApiError &&
        error.reason === KubeErrorCode.NotFound &&
        this.#o.primary.get(keyOf(cr)) != null
      ) {
        this.#subresourceMissing = true;
        logger.warn(
          { err: errorForLog(error) },
          'status subresource missing; status writing disabled for this entry',
        );
        return false;
      }
      if (error instanceof KubeApiError && error.reason === KubeErrorCode.Conflict) {
        this.#o.onResult?.('conflict');
        throw new OrkestraError(`status write conflict: ${error.message}`, {
          code: ConditionReason.InternalError,
          retryable: true,
          cause: error,
        });
      }
      throw error;
    }
  }

  /**
   * #enrichTargets is what `enrich` adds this time (docs/reference/katalog.md §3.5): every plain
   * target, and each conditional one whose conditions hold over the CR and its children as the
   * cache has them (not enriched: no target reads another's additions).
   */
  #enrichTargets(context: TemplateContext, desired: DesiredSet | undefined): EnrichTarget[] {
    return activeEnrichTargets(
      enrichRules(this.#o.crd.entry.enrich),
      () => ({ ...context, children: buildChildrenContext(this.#childStates(desired, [])) }),
      this.#o.conditions,
    );
  }

  #childStates(desired: DesiredSet | undefined, targets: readonly EnrichTarget[]): ChildState[] {
    if (desired == null) return [];
    const sources = targets.length === 0 ? undefined : this.#o.enrichSources;
    return [...desired.groups.onCreate, ...desired.groups.onReconcile].map((child) => {
      const object = this.#o.children.get(child.ref);
      return {
        listKey: child.entry.listKey,
        object: object == null || sources == null ? object : enrichChild(object, targets, sources),
      };
    });
  }

  /**
   * #events emits ReconcileSucceeded when Ready becomes True, and a warning when it becomes False
   * or its reason changes. A failing reconcile also warns when its message changes; a child's
   * readiness progress (`1/2` → `2/2 replicas available`) does not: events only on readiness
   * transitions (docs/reference/runtime.md §7). A new CR's first Ready=False while its children are on their way is
   * not an Event (ADR 0020). The reconcile's `Created`/`Updated` child Events are recorded first,
   * or, when Ready becomes True, named in its one `ReconcileSucceeded` Event (ADR 0100: a new CR
   * whose children are ready on creation costs one Event). ValidationWarning is emitted when the
   * warnings change.
   */
  #events(
    cr: KubeObject,
    cachedStatus: Record<string, unknown> | undefined,
    input: StatusWriteInput,
    ready: ReadyOutcome,
  ): void {
    const conditions = Array.isArray(cachedStatus?.['conditions'])
      ? (cachedStatus['conditions'] as {
          type?: string;
          status?: string;
          reason?: string;
          message?: string;
        }[])
      : [];
    const previous = conditions.find((c) => c.type === ConditionType.Ready);
    const becameReady = ready.ready && previous?.status !== 'True';
    const children = input.childEvents?.splice(0) ?? [];
    if (becameReady) {
      const written = children.map((event) => event.message);
      this.#o.events.normal(cr, ConditionReason.ReconcileSucceeded, ['Ready', ...written].join('; '));
    } else {
      for (const event of children) this.#o.events.normal(cr, event.reason, event.message);
    }
    if (ready.ready) {
      // Recorded above when it became Ready; a CR that stays Ready records no Ready Event.
    } else if (previous == null && isProgress(ready.reason)) {
      // ADR 0020: a CR with no Ready condition yet that waits for its children is what every new
      // CR does; its status says so and its Created Event names the children. Not an Event.
    } else if (
      previous?.status !== 'False' ||
      previous.reason !== ready.reason ||
      (!READINESS_REASONS.has(ready.reason) && previous.message !== ready.message)
    ) {
      const message = ready.message === '' ? ready.reason : ready.message;
      // Children on their way (in progress, held back by waitFor) are normal; a failed child or step warns.
      if (isProgress(ready.reason)) this.#o.events.normal(cr, ready.reason, message);
      else this.#o.events.warning(cr, ready.reason, message);
    }
    if (this.#hasWarnRules && input.warnings != null && input.warnings.length > 0) {
      const previousWarning = conditions.find((c) => c.type === ConditionType.ValidationWarning);
      const message = input.warnings.join('; ');
      if (previousWarning?.status !== 'True' || previousWarning.message !== message) {
        this.#o.events.warning(cr, ConditionReason.ValidationWarning, message);
      }
    }
  }
}

/** READINESS_REASONS are the Ready=False reasons of a synced CR whose children are not ready yet. */
const READINESS_REASONS: ReadonlySet<string> = new Set([
  ConditionReason.ChildNotReady,
  ConditionReason.ChildFailed,
  ConditionReason.WaitingForChildren,
]);

function crContext(cr: KubeObject): TemplateContext {
  return {
    apiVersion: cr.apiVersion,
    kind: cr.kind,
    metadata: cr.metadata,
    spec: cr['spec'] ?? {},
    status: cr['status'] ?? {},
  };
}

function keyOf(cr: KubeObject): string {
  const ns = cr.metadata.namespace;
  return ns == null || ns === '' ? (cr.metadata.name ?? '') : `${ns}/${cr.metadata.name ?? ''}`;
}

/** isProgress is true for a Ready=False reason of children on their way (not failed). */
function isProgress(reason: string): boolean {
  return READINESS_REASONS.has(reason) && reason !== ConditionReason.ChildFailed;
}
