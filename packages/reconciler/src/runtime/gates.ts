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
import type { GateCallAnswer, GateCalls } from './gate-calls.js';

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
 * evaluateGate decides one gate for a CR and the sentinels of an event: a failed external call of
 * the gate (`answer.failed`) decides first (it passes under `failPolicy: open`, `failedOpen` says
 * why, and holds under `closed`); else it passes when one of its `sentinels` is true, else when its
 * `when`/`anyOf` pass (a gate with neither passes). Conditions that cannot be evaluated are decided
 * by `failPolicy` the same way. The context is the CR (`apiVersion`, `kind`, `metadata`, `spec`,
 * `status`), `sentinels` and the calls' results as `external`.
 */
export function evaluateGate(
  gate: PreReconcileGate,
  cr: KubeObject,
  sentinels: Sentinels,
  conditions: EvaluateConditionsOptions,
  answer?: GateCallAnswer,
): GateVerdict {
  if (answer?.failed != null) {
    if (gate.failPolicy === 'open') return { passed: true, failedOpen: answer.failed };
    return {
      passed: false,
      reason: GatedReason.ExternalFailed,
      message: `external call failed (failPolicy: closed): ${answer.failed}`,
    };
  }
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
  const context = { ...gateContext(cr, sentinels), ...(answer == null ? {} : { external: answer.external }) };
  const result = evaluateConditions(gate, context, conditions);
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

/**
 * heldNotifySource is what the notification planner reads when a reconcile gate holds a CR
 * (ADR 0070): the gate's conditions that carry `notify:`, each negated, so that a condition
 * notifies when it fails — when it is what held the CR — through the same planner, queue and
 * interval gate as any other `notify:`.
 */
export function heldNotifySource(gate: PreReconcileGate): unknown {
  const flip = (c: Record<string, unknown>) =>
    c['notify'] == null ? c : { ...c, negate: c['negate'] !== true };
  return {
    when: gate.when.map((c) => flip(c as unknown as Record<string, unknown>)),
    anyOf: gate.anyOf.map((c) => flip(c as unknown as Record<string, unknown>)),
  };
}

/**
 * gateContext is the template context of a gate (before its calls' results are added): the object's
 * top-level fields (a watched ConfigMap's `data` too, docs/reference/katalog.md §3.2), `spec` and
 * `status` defaulting to `{}`, and `sentinels`.
 */
function gateContext(cr: KubeObject, sentinels: Sentinels): Record<string, unknown> {
  return {
    ...cr,
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
  /** The gates' external calls; undefined when no gate makes one. */
  readonly calls?: GateCalls | undefined;
  /** Queues a CR's key (an enqueue gate that held an event while its calls were answered passes it later). */
  readonly requeue?: ((key: string) => void) | undefined;
  /**
   * Reports a held reconcile for notification (ADR 0070) with the gate's context: the CR,
   * `sentinels`, `external` and `gate: {name, reason, message}`. Never awaited.
   */
  readonly gated?:
    ((gate: GateName, verdict: HeldVerdict, context: Readonly<Record<string, unknown>>) => void) | undefined;
}

/** HeldVerdict is the verdict of a gate that held a CR. */
export type HeldVerdict = Extract<GateVerdict, { passed: false }>;

/**
 * PreReconcileGates holds an entry's gates and the sentinels of each CR's events until its next
 * reconcile: merged into one set (the default: the reconcile gate sees what changed since the last
 * reconcile), or kept one per event with `reconcileGate.eventAware` (the gate passes when one
 * event alone passes it).
 */
export class PreReconcileGates {
  readonly #o: PreReconcileGatesOptions;
  readonly #pending = new Map<string, Sentinels[]>();
  /** The enqueue gate's last answer per CR (its calls' results), decided with at informer time. */
  readonly #answers = new Map<string, GateCallAnswer>();
  /** The CRs whose enqueue-gate calls are being made; the value: call again when they end (a newer event). */
  readonly #calling = new Map<string, KubeObject | undefined>();
  /** The events an enqueue gate held per CR (merged), decided again when a newer answer arrives. */
  readonly #held = new Map<string, { readonly object: KubeObject; readonly sentinels: Sentinels }>();
  readonly #inFlight = new Set<Promise<void>>();

  constructor(options: PreReconcileGatesOptions) {
    this.#o = options;
  }

  /**
   * admit decides the enqueue gate for an informer event of a CR (true: queue its key) and keeps
   * the event's sentinels for the reconcile gate. A delete, and a CR being deleted, always pass.
   */
  admit(change: CacheChange): boolean {
    if (change.type === CacheChangeType.Delete) {
      this.forget(change.key);
      return true;
    }
    const sentinels = computeSentinels(change.old, change.object);
    const gate = this.#o.preReconcile.enqueueGate;
    if (gate != null && !isDeleting(change.object)) {
      const calls = this.#o.calls?.calls(GateName.Enqueue) === true;
      let answer: GateCallAnswer | undefined;
      if (calls) {
        // The informer never waits for a call: decide with the last answer, ask again, and decide
        // a held event again when the answer arrives (requeue).
        answer = this.#answers.get(change.key);
        this.#call(change.key, change.object);
        if (answer == null) {
          this.#hold(change.key, change.object, sentinels);
          this.#o.observer.reconcileGated(this.#o.controller, GateName.Enqueue, GatedReason.AwaitingExternal);
          return false;
        }
      }
      const verdict = evaluateGate(gate, change.object, sentinels, this.#o.conditions, answer);
      if (!verdict.passed) {
        if (calls) this.#hold(change.key, change.object, sentinels);
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
    this.#answers.delete(key);
    this.#held.delete(key);
  }

  #hold(key: string, object: KubeObject, sentinels: Sentinels): void {
    const held = this.#held.get(key);
    this.#held.set(key, {
      object,
      sentinels: held == null ? sentinels : mergeSentinels(held.sentinels, sentinels),
    });
  }

  /** #call makes the enqueue gate's calls for a CR (once at a time per CR; again after a newer event). */
  #call(key: string, object: KubeObject): void {
    const calls = this.#o.calls;
    if (calls == null) return;
    if (this.#calling.has(key)) {
      this.#calling.set(key, object);
      return;
    }
    this.#calling.set(key, undefined);
    const done = calls
      .run(GateName.Enqueue, object, gateContext(object, NO_CHANGE))
      .catch((error: unknown): GateCallAnswer => ({ external: {}, failed: String(error) }))
      .then((answer) => this.#answered(key, answer))
      .finally(() => this.#inFlight.delete(done));
    this.#inFlight.add(done);
  }

  /** idle resolves once no enqueue-gate call is under way (the offline engine, tests). */
  async idle(): Promise<void> {
    while (this.#inFlight.size > 0) await Promise.all(this.#inFlight);
  }

  /** #answered keeps a new answer and decides the CR's held events with it; queues the key when they pass. */
  #answered(key: string, answer: GateCallAnswer): void {
    const again = this.#calling.get(key);
    this.#calling.delete(key);
    if (this.#forgotten(key)) return;
    this.#answers.set(key, answer);
    if (again != null) this.#call(key, again);
    const held = this.#held.get(key);
    const gate = this.#o.preReconcile.enqueueGate;
    if (held == null || gate == null) return;
    const verdict = evaluateGate(gate, held.object, held.sentinels, this.#o.conditions, answer);
    if (!verdict.passed) return;
    if (verdict.failedOpen != null)
      this.#o.logger.warn({ key, why: verdict.failedOpen }, 'enqueueGate failed open');
    this.#held.delete(key);
    this.#remember(key, held.sentinels);
    this.#o.requeue?.(key);
  }

  /** #forgotten tells a CR deleted while its calls were made (no held event and no answer kept). */
  #forgotten(key: string): boolean {
    return !this.#held.has(key) && !this.#answers.has(key) && !this.#pending.has(key);
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
    const merged = gateContext(cr, events.reduce(mergeSentinels));
    const answer =
      this.#o.calls?.calls(GateName.Reconcile) === true
        ? await this.#o.calls.run(GateName.Reconcile, cr, merged)
        : undefined;
    let held: HeldVerdict | undefined;
    for (const sentinels of events) {
      const verdict = evaluateGate(gate, cr, sentinels, this.#o.conditions, answer);
      if (verdict.passed) {
        if (verdict.failedOpen != null) logger.warn({ why: verdict.failedOpen }, 'reconcileGate failed open');
        return true;
      }
      held ??= verdict;
    }
    if (held == null) return true;
    this.#o.observer.reconcileGated(this.#o.controller, GateName.Reconcile, held.reason);
    logger.debug({ why: held.message }, 'reconcileGate held the reconcile');
    this.#o.gated?.(GateName.Reconcile, held, {
      ...merged,
      ...(answer == null ? {} : { external: answer.external }),
      gate: { name: GateName.Reconcile, reason: held.reason, message: held.message },
    });
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
