/**
 * Pre-reconcile gates (docs/reference/katalog.md §20.3, ADR 0047): `enqueueGate`, decided when an
 * event for a CR arrives (before its key is queued), and `reconcileGate`, decided when a worker
 * takes the key. Both read the CR and the sentinels of the events that led to it. A gated-out
 * event or reconcile writes nothing; it is counted (`orkestra_reconcile_gated_total{gate,reason}`)
 * and, for the reconcile gate, shown on the CR as `Gated=True` (one status write when the CR
 * becomes gated, none while it stays so; the next reconcile that runs removes it). A CR being
 * deleted is never gated: its finalizers must run.
 */
import type { KubeClient, KubeObject } from '@orkestra/registry';
import { ConditionReason, ConditionType, SENTINELS, evaluateConditions } from '@orkestra/types';
import type {
  EvaluateConditionsOptions,
  Logger,
  PreReconcile,
  PreReconcileGate,
  Sentinel,
} from '@orkestra/types';
import { CacheChangeType } from '../cache.js';
import type { CacheChange } from '../cache.js';
import type { PrimaryStore } from './stores.js';
import type { Clock } from '../clock.js';
import { formatRfc3339 } from '../secrets/rotation.js';
import { errorForLog } from './log-error.js';
import { GateName, GatedReason } from './runtime-observer.js';
import type { RuntimeObserver } from './runtime-observer.js';

/** Sentinels are the sentinel values of one event. */
export type Sentinels = Readonly<Record<Sentinel, boolean>>;

/** NO_CHANGE is the sentinels of a reconcile no event of the CR led to (a resync, a child, a retry). */
export const NO_CHANGE: Sentinels = Object.freeze(
  Object.fromEntries(SENTINELS.map((name) => [name, false])) as Record<Sentinel, boolean>,
);

/** How many events an `eventAware` gate keeps per CR until its next reconcile (older ones are merged). */
const MAX_EVENTS_PER_KEY = 32;

/**
 * computeSentinels compares a CR with its previous version. An object seen for the first time
 * (created, or listed at start) has every change sentinel true: everything about it is new;
 * `deletionStarted` is then true only when it is already being deleted.
 */
export function computeSentinels(old: KubeObject | undefined, current: KubeObject): Sentinels {
  const deleting = current.metadata['deletionTimestamp'] != null;
  if (old == null)
    return {
      generationChanged: true,
      labelsChanged: true,
      annotationsChanged: true,
      finalizersChanged: true,
      deletionStarted: deleting,
    };
  return {
    generationChanged: old.metadata['generation'] !== current.metadata['generation'],
    labelsChanged: !sameJson(old.metadata.labels, current.metadata.labels),
    annotationsChanged: !sameJson(old.metadata.annotations, current.metadata.annotations),
    finalizersChanged: !sameJson(old.metadata['finalizers'], current.metadata['finalizers']),
    deletionStarted: old.metadata['deletionTimestamp'] == null && deleting,
  };
}

/** mergeSentinels is the sentinels of two events taken as one: each true when it is in either. */
function mergeSentinels(a: Sentinels, b: Sentinels): Sentinels {
  return Object.fromEntries(SENTINELS.map((name) => [name, a[name] || b[name]])) as Record<Sentinel, boolean>;
}

/** GateVerdict is the decision of one gate. */
export type GateVerdict =
  | { readonly passed: true; readonly failedOpen?: string }
  | { readonly passed: false; readonly reason: GatedReason; readonly message: string };

/**
 * evaluateGate decides one gate for a CR and the sentinels of an event: it passes when one of its
 * `sentinels` is true, else when its `when`/`anyOf` pass (a gate with neither passes). Conditions
 * that cannot be evaluated pass the gate under `failPolicy: open` (`failedOpen` says why) and hold
 * it under `closed`. The context is the CR (`apiVersion`, `kind`, `metadata`, `spec`, `status`)
 * and `sentinels`.
 */
export function evaluateGate(
  gate: PreReconcileGate,
  cr: KubeObject,
  sentinels: Sentinels,
  conditions: EvaluateConditionsOptions,
): GateVerdict {
  if (gate.sentinels.some((name) => sentinels[name])) return { passed: true };
  const hasConditions = gate.when.length > 0 || gate.anyOf.length > 0;
  if (!hasConditions) {
    if (gate.sentinels.length === 0) return { passed: true };
    return {
      passed: false,
      reason: GatedReason.NotMet,
      message: `none of the sentinels ${gate.sentinels.join(', ')} is true`,
    };
  }
  const result = evaluateConditions(gate, gateContext(cr, sentinels), conditions);
  if (result.passed) return { passed: true };
  const failed = result.failed;
  const where = failed == null ? '' : failed.list === 'when' ? `when[${String(failed.index)}]` : 'anyOf';
  const message = `${where}: ${failed?.reason ?? 'not met'}`;
  if (failed?.error === true)
    return gate.failPolicy === 'open'
      ? { passed: true, failedOpen: message }
      : {
          passed: false,
          reason: GatedReason.FailClosed,
          message: `cannot be evaluated (failPolicy: closed): ${message}`,
        };
  return { passed: false, reason: GatedReason.NotMet, message };
}

function gateContext(cr: KubeObject, sentinels: Sentinels): Record<string, unknown> {
  return {
    apiVersion: cr.apiVersion,
    kind: cr.kind,
    metadata: cr.metadata,
    spec: cr['spec'] ?? {},
    status: cr['status'] ?? {},
    sentinels,
  };
}

/** PreReconcileGatesOptions configures the gates of one entry. */
export interface PreReconcileGatesOptions {
  readonly controller: string;
  readonly preReconcile: PreReconcile;
  readonly conditions: EvaluateConditionsOptions;
  readonly observer: RuntimeObserver;
  readonly client: Pick<KubeClient, 'patchStatus'>;
  readonly primary: Pick<PrimaryStore, 'upsertFromWrite'>;
  /** The CR's apiVersion (group/version) for the status write. */
  readonly apiVersion: string;
  readonly clock: Clock;
  readonly logger: Logger;
}

/**
 * PreReconcileGates holds an entry's gates and the sentinels of each CR's events until its next
 * reconcile: merged into one set (the default: the reconcile gate sees what changed since the last
 * reconcile), or kept one per event with `reconcileGate.eventAware` (the gate passes when one
 * event alone passes it).
 */
export class PreReconcileGates {
  readonly #o: PreReconcileGatesOptions;
  readonly #pending = new Map<string, Sentinels[]>();

  constructor(options: PreReconcileGatesOptions) {
    this.#o = options;
  }

  /**
   * admit decides the enqueue gate for an informer event of a CR (true: queue its key) and keeps
   * the event's sentinels for the reconcile gate. A delete, and a CR being deleted, always pass.
   */
  admit(change: CacheChange): boolean {
    if (change.type === CacheChangeType.Delete) {
      this.#pending.delete(change.key);
      return true;
    }
    const sentinels = computeSentinels(change.old, change.object);
    const gate = this.#o.preReconcile.enqueueGate;
    if (gate != null && !isDeleting(change.object)) {
      const verdict = evaluateGate(gate, change.object, sentinels, this.#o.conditions);
      if (!verdict.passed) {
        this.#o.observer.reconcileGated(this.#o.controller, GateName.Enqueue, verdict.reason);
        this.#o.logger.debug({ key: change.key, why: verdict.message }, 'enqueueGate held the event');
        return false;
      }
      if (verdict.failedOpen != null)
        this.#o.logger.warn({ key: change.key, why: verdict.failedOpen }, 'enqueueGate failed open');
    }
    this.#remember(change.key, sentinels);
    return true;
  }

  /** admitListed decides the enqueue gate for a CR listed when the workers start (seen for the first time). */
  admitListed(key: string, cr: KubeObject): boolean {
    return this.admit({ type: CacheChangeType.Add, key, object: cr });
  }

  /** forget drops what is kept for a deleted CR. */
  forget(key: string): void {
    this.#pending.delete(key);
  }

  /**
   * check decides the reconcile gate for a CR a worker took (true: reconcile it), with the
   * sentinels of the events since its last reconcile (none: a resync, a child event, a retry).
   * When it holds the CR, `Gated=True` is written unless the CR already shows the same.
   */
  async check(key: string, cr: KubeObject, logger: Logger): Promise<boolean> {
    const events = this.#pending.get(key) ?? [NO_CHANGE];
    this.#pending.delete(key);
    const gate = this.#o.preReconcile.reconcileGate;
    if (gate == null || isDeleting(cr)) return true;
    let held: Extract<GateVerdict, { passed: false }> | undefined;
    for (const sentinels of events) {
      const verdict = evaluateGate(gate, cr, sentinels, this.#o.conditions);
      if (verdict.passed) {
        if (verdict.failedOpen != null) logger.warn({ why: verdict.failedOpen }, 'reconcileGate failed open');
        return true;
      }
      held ??= verdict;
    }
    if (held == null) return true;
    this.#o.observer.reconcileGated(this.#o.controller, GateName.Reconcile, held.reason);
    logger.debug({ why: held.message }, 'reconcileGate held the reconcile');
    await this.#showGated(cr, `reconcileGate: ${held.message}`, logger);
    return false;
  }

  #remember(key: string, sentinels: Sentinels): void {
    const kept = this.#pending.get(key);
    if (kept == null) {
      this.#pending.set(key, [sentinels]);
      return;
    }
    const eventAware = this.#o.preReconcile.reconcileGate?.eventAware === true;
    const last = kept.length - 1;
    if (!eventAware) kept[0] = mergeSentinels(kept[0] ?? NO_CHANGE, sentinels);
    else if (kept.length < MAX_EVENTS_PER_KEY) kept.push(sentinels);
    else kept[last] = mergeSentinels(kept[last] ?? NO_CHANGE, sentinels);
  }

  /** #showGated writes `Gated=True` on the CR, unless it already shows the same message. */
  async #showGated(cr: KubeObject, message: string, logger: Logger): Promise<void> {
    const status = (cr['status'] as Record<string, unknown> | undefined) ?? {};
    const conditions = Array.isArray(status['conditions']) ? (status['conditions'] as unknown[]) : [];
    const previous = conditions.find((c) => typeOf(c) === ConditionType.Gated) as
      Record<string, unknown> | undefined;
    if (previous?.['status'] === 'True' && previous['message'] === message) return;
    const gated = {
      type: ConditionType.Gated,
      status: 'True',
      reason: ConditionReason.ReconcileGated,
      message,
      lastTransitionTime:
        previous?.['status'] === 'True' && typeof previous['lastTransitionTime'] === 'string'
          ? previous['lastTransitionTime']
          : formatRfc3339(new Date(this.#o.clock.now())),
    };
    const next = [...conditions.filter((c) => typeOf(c) !== ConditionType.Gated), gated];
    try {
      const written = await this.#o.client.patchStatus(
        {
          apiVersion: this.#o.apiVersion,
          kind: cr.kind,
          name: cr.metadata.name ?? '',
          ...(cr.metadata.namespace == null ? {} : { namespace: cr.metadata.namespace }),
        },
        { conditions: next },
        { resourceVersion: cr.metadata.resourceVersion },
      );
      this.#o.primary.upsertFromWrite(written);
    } catch (error) {
      // Best effort: the metric and the log already say the CR is gated; the next event retries.
      logger.warn({ err: errorForLog(error) }, 'writing the Gated condition failed');
    }
  }
}

function isDeleting(cr: KubeObject): boolean {
  return cr.metadata['deletionTimestamp'] != null;
}

function typeOf(condition: unknown): unknown {
  return condition != null && typeof condition === 'object'
    ? (condition as Record<string, unknown>)['type']
    : undefined;
}

function sameJson(a: unknown, b: unknown): boolean {
  return JSON.stringify(normalize(a)) === JSON.stringify(normalize(b));
}

/** normalize sorts map keys and treats an empty map or list as absent (the API server drops them). */
function normalize(value: unknown): unknown {
  if (Array.isArray(value)) return value.length === 0 ? undefined : value;
  if (value != null && typeof value === 'object') {
    const keys = Object.keys(value).sort();
    if (keys.length === 0) return undefined;
    return Object.fromEntries(keys.map((k) => [k, (value as Record<string, unknown>)[k]]));
  }
  return value;
}
