/**
 * The copy of an entry's data from an existing object of its own kind (`copyFrom`,
 * docs/reference/katalog.md §7.2, ADR 0048 and 0115): which lists copy, what they read, and which of
 * their sources are watched. The loader, the runtime and `ork generate rbac` all read it from here.
 */
import { ConditionReason } from './conditions.js';
import type { CopyFrom } from './kinds/copy-from.js';
import { isTemplate } from './schema/primitives.js';
import type { CrdEntry, ResourceGroup } from './schema/katalog.js';
import type { WatchItem } from './schema/crd-parts.js';

/** CopyKind is a kind whose entries may copy a source of the same kind (`copyFrom`). */
export interface CopyKind {
  readonly listKey: 'secrets' | 'configMaps';
  readonly kind: 'Secret' | 'ConfigMap';
  /** The core API resource the source is read from (RBAC). */
  readonly resource: 'secrets' | 'configmaps';
  /** The pending reason while the source does not exist. */
  readonly missing: ConditionReason;
}

/** COPY_KINDS are the kinds with `copyFrom`: Secrets (ADR 0017) and ConfigMaps (ADR 0115), both core v1. */
const COPY_KINDS: readonly CopyKind[] = [
  { listKey: 'secrets', kind: 'Secret', resource: 'secrets', missing: ConditionReason.SourceSecretMissing },
  {
    listKey: 'configMaps',
    kind: 'ConfigMap',
    resource: 'configmaps',
    missing: ConditionReason.SourceConfigMapMissing,
  },
];

/** copyKindOf is the copy kind of a list key or of a kind (`secrets`, `Secret`), else undefined. */
export function copyKindOf(key: string): CopyKind | undefined {
  return COPY_KINDS.find((k) => k.listKey === key || k.kind === key);
}

/** copiesOf lists the `copyFrom` sources of a group's entries, with their kind. */
export function copiesOf(
  group: Pick<ResourceGroup, CopyKind['listKey']> | undefined,
): { readonly copy: CopyKind; readonly from: CopyFrom }[] {
  if (group == null) return [];
  return COPY_KINDS.flatMap((copy) =>
    ((group[copy.listKey] ?? []) as readonly { copyFrom?: CopyFrom | undefined }[]).flatMap((entry) =>
      entry.copyFrom == null ? [] : [{ copy, from: entry.copyFrom }],
    ),
  );
}

/**
 * copySourceWatches are the implicit watch items of an entry's `copyFrom` sources under
 * `onReconcile` that are literal (docs/reference/katalog.md §7.2): a change to the source re-queues
 * the CRs of the entry, so the copies follow it without waiting for a resync. A templated source
 * name or namespace is read at each reconcile only. The runtime watches these items and
 * `ork generate rbac` grants list/watch on exactly them.
 */
export function copySourceWatches(entry: Pick<CrdEntry, 'operatorBox'>): WatchItem[] {
  const out: WatchItem[] = [];
  for (const { copy, from } of copiesOf(entry.operatorBox.onReconcile)) {
    if (isTemplate(from.name) || isTemplate(from.namespace)) continue;
    out.push({
      apiVersion: 'v1',
      kind: copy.kind,
      ...(from.namespace == null ? {} : { namespace: from.namespace }),
      name: from.name,
      on: ['create', 'update', 'delete'],
    });
  }
  return out;
}
