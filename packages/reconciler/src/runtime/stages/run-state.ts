/**
 * What the stages of one reconcile share (docs/reference/runtime.md §7): the entry's services
 * (`StageServices`, built once per pipeline) and the state of one run (`RunState`, built per CR).
 * Every stage module takes these two and nothing else of the pipeline.
 */
import type { KubeClient, KubeObject, ObjectRef, Owner } from '@orkestra/registry';
import type { TemplateContext } from '@orkestra/template';
import { OrkestraLabel } from '@orkestra/types';
import type { EvaluateConditionsOptions } from '@orkestra/types';
import type { Clock } from '../../clock.js';
import type { EventRecorder } from '../../events/event-recorder.js';
import type { NamespaceGuard } from '../../namespace-guard.js';
import type { CompiledCrd } from '../compile-katalog.js';
import type { DesiredSet } from '../desired-set.js';
import type { DriftLimiter } from '../drift-limiter.js';
import type { ChildWriteOperation, RuntimeObserver } from '../runtime-observer.js';
import type { InventoryRecord } from '../status-writer.js';
import type { ChildStore, PrimaryStore } from '../stores.js';

/** StageServices is what every stage of one CRD entry's pipeline works with. */
export interface StageServices {
  readonly crd: CompiledCrd;
  readonly primary: PrimaryStore;
  readonly children: ChildStore;
  readonly client: KubeClient;
  readonly clock: Clock;
  readonly random: ((size: number) => Uint8Array) | undefined;
  readonly events: EventRecorder;
  readonly guard: NamespaceGuard;
  readonly conditions: EvaluateConditionsOptions;
  readonly observer: RuntimeObserver;
  /** Scope of a custom kind, from discovery. */
  readonly customScope: (apiVersion: string, kind: string) => boolean | undefined;
  /** Concurrent child writes (and prunes) per CR. */
  readonly maxWrites: number;
  /** Bounds corrections of drift made by another writer, per owner UID and child id. */
  readonly drift: DriftLimiter;
}

/** RunState is what one reconcile accumulates across its stages. */
export interface RunState {
  wroteCr: boolean;
  writes: number;
  /** Timed re-queues (clock times, epoch ms); the earliest wins. */
  requeueAt: number[];
  warnings: string[] | undefined;
  /** HTTP cross reads whose peer did not answer; undefined when the cross hook did not run (ADR 0043). */
  crossUnavailable: string[] | undefined;
  /** The `status` a remote reconciler returned in this run (docs/reference/katalog.md §15.3). */
  serviceStatus: Record<string, unknown> | undefined;
  desired: DesiredSet | undefined;
  context: TemplateContext | undefined;
  inventory: InventoryRecord[] | undefined;
  /** Step 18: CR annotations to write after a successful reconcile (hooks' and the entry's `annotations`). */
  annotations: Map<string, string>;
  /** Step 18: CR labels to write after a successful reconcile (the entry's `labels`, ADR 0004). */
  labels: Map<string, string>;
  /** `status.providers` to write; undefined keeps the cached value. */
  providers: Readonly<Record<string, unknown>> | undefined;
  /** Children held back by `waitFor` (child id → ids not ready yet). */
  waiting: ReadonlyMap<string, readonly string[]> | undefined;
  /** Children this reconcile created or updated, reported as one Event per verb (takeChildEvents). */
  childChanges: ChildChange[];
}

/** ChildChange is one child write a reconcile reports: `Created` or `Updated`, and the child as the Event names it. */
export interface ChildChange {
  readonly reason: 'Created' | 'Updated';
  readonly child: string;
}

/**
 * requeueDelayMs is how long after `now` the reconcile asks to run again: the earliest of the due
 * times its stages recorded, or undefined when none did. A due time that has already passed (a
 * cached answer that expired while the reconcile ran) is 1 ms, never 0: 0 means "no requeue" to
 * the dispatcher, and dropping it would also drop every later due time the minimum stood for.
 */
export function requeueDelayMs(requeueAt: readonly number[], now: number): number | undefined {
  if (requeueAt.length === 0) return undefined;
  return Math.max(1, Math.min(...requeueAt) - now);
}

/** newRunState is the state a reconcile starts from. */
export function newRunState(): RunState {
  return {
    wroteCr: false,
    writes: 0,
    requeueAt: [],
    warnings: undefined,
    crossUnavailable: undefined,
    serviceStatus: undefined,
    desired: undefined,
    context: undefined,
    inventory: undefined,
    annotations: new Map(),
    labels: new Map(),
    providers: undefined,
    waiting: undefined,
    childChanges: [],
  };
}

/** ChildEvent is one Event a reconcile records about its child writes: `Created` or `Updated` and its message. */
export interface ChildEvent {
  readonly reason: 'Created' | 'Updated';
  readonly message: string;
}

/**
 * takeChildEvents turns the reconcile's child writes into one Event per reason and clears them
 * (docs/reference/runtime.md §12): `Created` "Secret ns/a (onReconcile[0]) was created" for one,
 * "3 children were created: Secret ns/a (…), …" for more. One Event per reconcile rather than per
 * child keeps a new CR's Events (and the API writes they cost) independent of its child count.
 * The status step records them, folded into a Ready=True transition's Event when there is one
 * (ADR 0100).
 */
export function takeChildEvents(state: RunState): ChildEvent[] {
  const changes = state.childChanges.splice(0);
  const events: ChildEvent[] = [];
  for (const reason of ['Created', 'Updated'] as const) {
    const children = changes.filter((c) => c.reason === reason).map((c) => c.child);
    if (children.length === 0) continue;
    const verb = reason === 'Created' ? 'created' : 'updated';
    const message =
      children.length === 1
        ? `${children[0] ?? ''} was ${verb}`
        : `${children.length} children were ${verb}: ${children.join(', ')}`;
    events.push({ reason, message });
  }
  return events;
}

/** recordChildEvents records child Events the status step did not fold into its own (ADR 0100). */
export function recordChildEvents(
  services: Pick<StageServices, 'events'>,
  cr: KubeObject,
  events: readonly ChildEvent[],
): void {
  for (const event of events) services.events.normal(cr, event.reason, event.message);
}

/** crWritten counts a write of the CR itself (metadata or status: the own-write re-queue of docs/reference/runtime.md §4). */
export function crWritten(state: RunState): void {
  state.wroteCr = true;
  state.writes++;
}

/** childWritten counts a child write and reports it to the observer. */
export function childWritten(
  services: StageServices,
  state: RunState,
  kind: string,
  operation: ChildWriteOperation,
): void {
  state.writes++;
  services.observer.childWrite(services.crd.name, kind, operation);
}

/** ownerOf is the owner a CR's children are built for (labels, owner references). */
export function ownerOf(crd: CompiledCrd, cr: KubeObject): Owner {
  const namespace = cr.metadata.namespace;
  const shard = cr.metadata.labels?.[OrkestraLabel.Shard];
  return {
    apiVersion: cr.apiVersion,
    kind: cr.kind,
    name: cr.metadata.name ?? '',
    uid: cr.metadata.uid ?? '',
    crd: crd.name,
    ...(namespace == null || namespace === '' ? {} : { namespace }),
    // Sharded operators (ADR 0045): children carry their CR's shard, so the owner's child informers select them.
    ...(shard == null || shard === '' ? {} : { shard }),
  };
}

/** formatChild names a child in events and messages: `Kind namespace/name` (never field values). */
export function formatChild(ref: ObjectRef): string {
  return ref.namespace == null ? `${ref.kind} ${ref.name}` : `${ref.kind} ${ref.namespace}/${ref.name}`;
}

/** stringOrUndefined is a non-empty string, else undefined. */
export function stringOrUndefined(value: unknown): string | undefined {
  return typeof value === 'string' && value !== '' ? value : undefined;
}

/** errorMessage is an error's message, or the thrown value as text. */
export function errorMessage(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}
