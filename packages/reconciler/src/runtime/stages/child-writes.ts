/**
 * The child-writes stage (docs/reference/runtime.md §9, steps 14–15): a group's children in write
 * waves (write-plan.ts), each child through its kind's `ensure`, with the `once` Secret rules
 * (secrets.ts), completed Jobs left alone and the drift-correction limiter. The first failure in
 * the fixed kind order is the one reported.
 */
import { appliedHash, compareToCache, kindFor, withAppliedHash } from '@orkestra/registry';
import type { KindModule, KubeObject } from '@orkestra/registry';
import { OrkestraAnnotation, OrkestraLabel, RESOURCE_LIST_KEYS } from '@orkestra/types';
import { formatReasonMessage } from '../../reason-message.js';
import type { DesiredChild } from '../desired-set.js';
import { runLimited } from '../run-limited.js';
import type { InventoryRecord } from '../status-writer.js';
import { toWriteError } from '../write-error.js';
import { groupByWave } from '../write-plan.js';
import { sameRef } from './inventory.js';
import { childWritten, formatChild } from './run-state.js';
import type { RunState, StageServices } from './run-state.js';
import { rotateIfDue, scheduleRotation, secretForCreate } from './secrets.js';

/**
 * applyGroup writes one group's children wave by wave. `alongside` is the deferred finalizer write
 * of ADR 0011, which runs with the first wave; its failure is reported before any child's.
 */
export async function applyGroup(
  services: StageServices,
  cr: KubeObject,
  children: readonly DesiredChild[],
  previous: readonly InventoryRecord[],
  state: RunState,
  alongside?: Promise<unknown>,
): Promise<void> {
  // ADR 0011 (write-plan.ts): waves only where the API server needs an earlier write.
  const waves = groupByWave(children);
  for (const [index, list] of waves.entries()) {
    const writes = runLimited(
      list.map((child) => () => writeChild(services, cr, child, previous, state)),
      services.maxWrites,
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
    const failed = firstFailure(list, results);
    if (failed != null) throw toWriteError(failed.reason, failed.child.entry.katalogPath, failed.child.ref);
  }
}

/** firstFailure is the failed write reported for a wave: the first in the fixed kind order, then entry order. */
export function firstFailure(
  list: readonly DesiredChild[],
  results: readonly PromiseSettledResult<unknown>[],
): { readonly child: DesiredChild; readonly reason: unknown } | undefined {
  const failures = results
    .map((r, i) => ({ r, child: list[i] }))
    .filter(
      (x): x is { r: PromiseRejectedResult; child: DesiredChild } =>
        x.r.status === 'rejected' && x.child != null,
    );
  failures.sort(
    (a, b) => writeOrder(a.child) - writeOrder(b.child) || a.child.entry.index - b.child.entry.index,
  );
  const first = failures[0];
  return first == null ? undefined : { child: first.child, reason: first.r.reason };
}

/** writeOrder is a child's place in the fixed order: onCreate before onReconcile, then the kind order (docs/reference/katalog.md §5.4). */
export function writeOrder(child: DesiredChild): number {
  const groupOffset = child.entry.group === 'onCreate' ? 0 : 100;
  return groupOffset + (RESOURCE_ORDER.get(child.entry.listKey) ?? 99);
}

/** Position of each list key in the fixed kind order (docs/reference/katalog.md §5.4), from @orkestra/types. */
const RESOURCE_ORDER = new Map<string, number>(RESOURCE_LIST_KEYS.map((key, i) => [key, i]));

/** isDrift: the live child was last applied from this very manifest, so any difference was made by someone else. */
export function isDrift(cached: KubeObject | undefined, manifest: KubeObject): boolean {
  const stamped = cached?.metadata.annotations?.[OrkestraAnnotation.AppliedHash];
  return stamped != null && stamped === appliedHash(manifest);
}

async function writeChild(
  services: StageServices,
  cr: KubeObject,
  child: DesiredChild,
  previous: readonly InventoryRecord[],
  state: RunState,
): Promise<void> {
  const module = kindFor(child.entry.listKey);
  if (module == null) return;
  const children = services.children;
  const cached = children.get(child.ref);
  let manifest = child.manifest;
  const once = module.createdOnce?.(child.rendered) === true;
  if (
    module.finished != null &&
    cached == null &&
    previous.some((p) => p.completed === true && sameRef(p, child.ref))
  ) {
    return; // a completed Job recorded in the inventory is not created again (docs/reference/katalog.md §5.2).
  }
  if (once) {
    if (cached != null) {
      await rotateIfDue(services, cr, child, cached, state);
      // In onReconcile a once Secret keeps its labels and annotations in sync, never its data
      // (docs/reference/katalog.md §7.2): `child.manifest` has no data, and apply mode skips it when it matches.
      if (child.entry.group === 'onReconcile') await syncOnceMetadata(services, cr, module, child, state);
      return;
    }
    manifest = await secretForCreate(services, child);
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
  if (child.scale != null && cached != null && child.mode === 'create' && ownedBy(cached, cr)) {
    await scaleInPlace(services, child, cached, child.scale, state);
    return;
  }
  // Drift made by someone else: an existing child whose applied-hash already equals the desired
  // one. Against a writer that keeps reverting it, corrections are bounded (DriftLimiter); a
  // template change (different hash) is never held back.
  const drift = services.drift;
  const ownerUid = cr.metadata.uid ?? '';
  const fought = child.mode === 'apply' && child.entry.forceConflict && cached != null;
  if (fought && drift.tracks(ownerUid, child.id) && isDrift(cached, manifest)) {
    if (compareToCache(withAppliedHash(manifest), cached, module.rules) === 'match') {
      drift.stable(ownerUid, child.id);
    } else {
      const decision = drift.admit(ownerUid, child.id);
      if (!decision.allowed) {
        state.requeueAt.push(decision.retryAt);
        services.observer.childWriteSkipped(services.crd.name, child.ref.kind);
        if (decision.episodeStarted) driftFight(services, cr, child);
        return;
      }
    }
  }
  const result = await module.ensure(manifest, {
    mode: child.mode,
    cache: children,
    client: services.client,
    force: child.entry.forceConflict,
    onWritten: (object) => children.upsertFromWrite(object),
    onNotManaged: (live) =>
      services.events.warning(
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
  if (result === 'updated' && fought && !drift.tracks(ownerUid, child.id) && isDrift(cached, manifest)) {
    drift.admit(ownerUid, child.id); // the first correction: always allowed, now counted
  }
  if (result === 'created' || result === 'updated') {
    childWritten(services, state, child.ref.kind, child.mode === 'apply' ? 'apply' : 'create');
    if (once && result === 'created') services.observer.secretGenerated(services.crd.name, 'created');
    state.childChanges.push({
      reason: result === 'created' ? 'Created' : 'Updated',
      child: `${formatChild(child.ref)} (${child.entry.source})`,
    });
  } else {
    services.observer.childWriteSkipped(services.crd.name, child.ref.kind);
  }
  if (once) scheduleRotation(services, child, children.get(child.ref), state);
}

/** ownedBy: the child carries the CR's owner-uid label (anything else is left to `ensure`, which reports it). */
function ownedBy(child: KubeObject, cr: KubeObject): boolean {
  const owner = child.metadata.labels?.[OrkestraLabel.OwnerUid];
  return owner != null && owner === cr.metadata.uid;
}

/**
 * scaleInPlace writes workload autoscale's decision on a child created once
 * (docs/reference/katalog.md §18.4): one merge patch of `spec.replicas` and the change time,
 * conditional on the cached resourceVersion — the rest of the child is not re-applied.
 */
async function scaleInPlace(
  services: StageServices,
  child: DesiredChild,
  cached: KubeObject,
  scale: NonNullable<DesiredChild['scale']>,
  state: RunState,
): Promise<void> {
  const written = await services.client.mergePatch(child.ref, {
    metadata: {
      resourceVersion: cached.metadata.resourceVersion,
      annotations: { [OrkestraAnnotation.AutoscaledAt]: scale.at },
    },
    spec: { replicas: scale.replicas },
  });
  services.children.upsertFromWrite(written);
  childWritten(services, state, child.ref.kind, 'update');
  state.childChanges.push({ reason: 'Updated', child: `${formatChild(child.ref)} (${child.entry.source})` });
}

/** driftFight emits `DriftFight` once per backoff episode: names the child, never field values. */
function driftFight(services: StageServices, cr: KubeObject, child: DesiredChild): void {
  services.events.warning(
    cr,
    'DriftFight',
    formatReasonMessage(
      child.entry.katalogPath,
      'another writer keeps changing this child back; corrections now back off',
      { kind: child.ref.kind, namespace: child.ref.namespace, name: child.ref.name },
    ),
  );
}

/** syncOnceMetadata applies a once Secret's labels and annotations without `data` (docs/reference/runtime.md §9.3). */
async function syncOnceMetadata(
  services: StageServices,
  cr: KubeObject,
  module: KindModule,
  child: DesiredChild,
  state: RunState,
): Promise<void> {
  const { data: _data, stringData: _stringData, ...metadataOnly } = child.manifest;
  const children = services.children;
  const result = await module.ensure(metadataOnly as KubeObject, {
    mode: 'apply',
    cache: children,
    client: services.client,
    force: child.entry.forceConflict,
    onWritten: (object) => children.upsertFromWrite(object),
  });
  if (result === 'unchanged') {
    services.observer.childWriteSkipped(services.crd.name, child.ref.kind);
    return;
  }
  childWritten(services, state, child.ref.kind, 'apply');
  state.childChanges.push({ reason: 'Updated', child: `${formatChild(child.ref)} (${child.entry.source})` });
}
