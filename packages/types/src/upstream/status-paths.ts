/**
 * Upstream's status fields at a path the runtime owns (docs/reference/katalog.md §13.2, §24).
 * Upstream writes its own `observedGeneration` and `conditions` and then the declared fields over
 * them, so a declared `observedGeneration` replaces the runtime's. Orkestra keeps those keys its
 * own — `observedGeneration` is the CR generation last reconciled, which `kubectl wait`, kstatus
 * and the Ready condition read — so such a field is removed with a note naming the reason, and the
 * rest of the Katalog loads.
 */
import { isMap, isSeq } from 'yaml';
import type { YAMLMap, YAMLSeq } from 'yaml';
import { mapAt, pairOf, scalarText } from './nodes.js';
import type { Path } from './nodes.js';
import type { Upgrader } from './upgrader.js';

/** RUNTIME_OWNED are the top-level status keys the runtime writes (the schema refuses them in Orkestra's own dialect). */
const RUNTIME_OWNED = new Set([
  'conditions',
  'observedGeneration',
  'inventory',
  'providers',
  'katalogRevision',
]);

/** runtimeOwnedStatus removes upstream status fields whose path starts with a runtime-owned key. */
export function runtimeOwnedStatus(up: Upgrader, box: YAMLMap, boxPath: Path): void {
  const status = mapAt(box, 'status');
  const fields = status == null ? undefined : pairOf(status, 'fields');
  if (fields == null || !isSeq(fields.value)) return;
  const list = fields.value as YAMLSeq;
  for (const [i, item] of [...list.items].entries()) {
    if (!isMap(item)) continue;
    const pathPair = pairOf(item as YAMLMap, 'path');
    const written = scalarText(pathPair?.value);
    const first = written?.replace(/^\./, '').split('.')[0];
    if (first == null || !RUNTIME_OWNED.has(first)) continue;
    list.items.splice(list.items.indexOf(item), 1);
    up.change(
      [...boxPath, 'status', 'fields', i, 'path'],
      pathPair?.value,
      `removed: status.${first} is written by the runtime (upstream lets a declared field replace it; Orkestra keeps ${first === 'observedGeneration' ? 'the CR generation it last reconciled, which kubectl wait and Ready read' : 'its own value'}); declare the value under another name to keep it`,
    );
  }
}
