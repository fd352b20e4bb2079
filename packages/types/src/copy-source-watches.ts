import { isTemplate } from './schema/primitives.js';
import type { CrdEntry } from './schema/katalog.js';
import type { WatchItem } from './schema/crd-parts.js';

/**
 * copySourceWatches are the implicit watch items of an entry's `copyFrom` Secrets under
 * `onReconcile` whose source is literal (docs/reference/katalog.md §7.2): a change to the source
 * re-queues the CRs of the entry, so the copies follow it without waiting for a resync. A
 * templated source name or namespace is read at each reconcile only. The runtime watches these
 * items and `ork generate rbac` grants list/watch on exactly them.
 */
export function copySourceWatches(entry: Pick<CrdEntry, 'operatorBox'>): WatchItem[] {
  const out: WatchItem[] = [];
  for (const secret of entry.operatorBox.onReconcile.secrets) {
    const from = secret.copyFrom;
    if (from == null || isTemplate(from.name) || isTemplate(from.namespace)) continue;
    out.push({
      apiVersion: 'v1',
      kind: 'Secret',
      ...(from.namespace == null ? {} : { namespace: from.namespace }),
      name: from.name,
      on: ['create', 'update', 'delete'],
    });
  }
  return out;
}
