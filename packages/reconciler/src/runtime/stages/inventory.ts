/**
 * The inventory stage (docs/reference/katalog.md §13.1): `status.inventory` from the previous inventory, what the
 * child store holds for the CR, this run's desired set and what pruning removed. Pure over the
 * ChildStore seam (informer caches at run time, the memory cluster offline).
 */
import { kindForObject, refOf } from '@orkestra/registry';
import type { KubeObject, ObjectRef } from '@orkestra/registry';
import { parseInventory } from '../../status/inventory.js';
import type { DesiredSet } from '../desired-set.js';
import { idOf } from '../desired-set.js';
import type { InventoryRecord } from '../status-writer.js';
import type { ChildStore } from '../stores.js';

/** BuildInventoryInput is what the inventory of one run depends on. */
export interface BuildInventoryInput {
  readonly children: ChildStore;
  readonly ownerUid: string;
  /** This run's desired set; undefined when the run failed before building it. */
  readonly desired: DesiredSet | undefined;
  /** `status.inventory` as the run found it. */
  readonly previous: readonly InventoryRecord[];
  /** Ids (`idOf`) of the children this run pruned. */
  readonly pruned: ReadonlySet<string>;
}

/**
 * buildInventory lists the CR's children, sorted by identity: previous records still present (or
 * completed Jobs), owned objects the store holds (not onDelete jobs), and this run's desired
 * children that exist, each with its mode, source, prune flag and Job completion.
 */
export function buildInventory(input: BuildInventoryInput): InventoryRecord[] {
  const { children, desired, previous, pruned } = input;
  const out = new Map<string, InventoryRecord>();
  const uid = input.ownerUid;
  const prevById = new Map(previous.map((p) => [idOf(recordRef(p)), p]));
  for (const record of previous) {
    const ref = recordRef(record);
    const id = idOf(ref);
    if (pruned.has(id)) continue;
    const live = children.get(ref);
    const watched = children.watches(ref);
    if (live == null && watched && record.completed !== true) continue; // gone
    out.set(
      id,
      live == null
        ? record
        : recordFor(ref, record.mode, record.source, record.prune === false, live, record.completed === true),
    );
  }
  for (const object of children.listAllOwned(uid)) {
    const ref = refOf(object);
    const id = idOf(ref);
    if (pruned.has(id) || out.has(id)) continue;
    const source = object.metadata.annotations?.['orkestra.konductor.io/source'] ?? '';
    if (source.startsWith('onDelete.')) continue;
    const mode = source.startsWith('onReconcile.') ? 'apply' : 'create';
    out.set(id, recordFor(ref, mode, source, false, object, false));
  }
  for (const child of [...(desired?.groups.onCreate ?? []), ...(desired?.groups.onReconcile ?? [])]) {
    const live = children.get(child.ref);
    const prev = prevById.get(child.id);
    if (live == null && prev?.completed !== true) {
      out.delete(child.id);
      continue;
    }
    out.set(
      child.id,
      recordFor(
        child.ref,
        child.mode,
        child.entry.source,
        !child.entry.prune,
        live,
        prev?.completed === true,
      ),
    );
  }
  return [...out.values()].sort((a, b) => inventoryKey(a).localeCompare(inventoryKey(b)));
}

/** PruneCandidate is a child the run did not desire: pruned when it was applied, prunable and not a Job. */
export interface PruneCandidate {
  readonly ref: ObjectRef;
  readonly uid?: string;
  readonly apply: boolean;
  readonly prune: boolean;
  readonly job: boolean;
}

/**
 * pruneCandidates lists, by id, the children of the previous inventory and of the child store
 * (by owner UID) that this run's desired set does not contain (docs/reference/runtime.md §9.6). The inventory's
 * mode and prune flag win; an unrecorded object counts as applied when its source is onReconcile.
 */
export function pruneCandidates(input: {
  readonly children: ChildStore;
  readonly ownerUid: string;
  readonly desired: DesiredSet;
  readonly previous: readonly InventoryRecord[];
}): Map<string, PruneCandidate> {
  const { children, desired, previous } = input;
  const candidates = new Map<string, PruneCandidate>();
  for (const record of previous) {
    const ref = recordRef(record);
    const id = idOf(ref);
    if (desired.ids.has(id)) continue;
    candidates.set(id, {
      ref,
      apply: record.mode === 'apply',
      prune: record.prune !== false,
      job: kindForObject(ref)?.neverPruned === true,
    });
  }
  for (const object of children.listAllOwned(input.ownerUid)) {
    const ref = refOf(object);
    const id = idOf(ref);
    if (desired.ids.has(id)) continue;
    const known = candidates.get(id);
    const source = object.metadata.annotations?.['orkestra.konductor.io/source'] ?? '';
    const objectUid = object.metadata.uid;
    candidates.set(id, {
      ref,
      ...(objectUid == null ? {} : { uid: objectUid }),
      apply: known?.apply ?? source.startsWith('onReconcile.'),
      prune: known?.prune ?? true,
      job: kindForObject(ref)?.neverPruned === true,
    });
  }
  return candidates;
}

/** sameRef tells whether an inventory record names this object. */
export function sameRef(record: InventoryRecord, ref: ObjectRef): boolean {
  return (
    record.apiVersion === ref.apiVersion &&
    record.kind === ref.kind &&
    record.name === ref.name &&
    (record.namespace ?? '') === (ref.namespace ?? '')
  );
}

/** recordRef is the ObjectRef an inventory record names. */
export function recordRef(record: InventoryRecord): ObjectRef {
  return record.namespace == null || record.namespace === ''
    ? { apiVersion: record.apiVersion, kind: record.kind, name: record.name }
    : { apiVersion: record.apiVersion, kind: record.kind, name: record.name, namespace: record.namespace };
}

/** recordFor is the inventory record of a child as written (the completion of a Job, KindModule.finished, is kept once seen). */
function recordFor(
  ref: ObjectRef,
  mode: 'create' | 'apply',
  source: string,
  noPrune: boolean,
  live: KubeObject | undefined,
  completedBefore: boolean,
): InventoryRecord {
  const completed = completedBefore || (live != null && kindForObject(ref)?.finished?.(live) === 'complete');
  return {
    apiVersion: ref.apiVersion,
    kind: ref.kind,
    ...(ref.namespace == null ? {} : { namespace: ref.namespace }),
    name: ref.name,
    mode,
    source,
    ...(noPrune ? { prune: false } : {}),
    ...(completed ? { completed: true } : {}),
  };
}

/** inventoryKey is the sort key of a record: `apiVersion/kind/namespace/name`. */
function inventoryKey(r: InventoryRecord): string {
  return `${r.apiVersion}/${r.kind}/${r.namespace ?? ''}/${r.name}`;
}

/** inventoryOf reads `status.inventory` of a CR, ignoring malformed items. */
export function inventoryOf(cr: KubeObject): InventoryRecord[] {
  return parseInventory((cr['status'] as { inventory?: unknown } | undefined)?.inventory);
}
