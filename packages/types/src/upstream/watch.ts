/**
 * Upstream `watch` and `observe` (G3), mapped onto the entry's `watch` (docs/reference/katalog.md §3.2)
 * and the box's `cross` (§15.2), or refused; `preReconcile` is pre-reconcile.ts.
 */
import { isMap, isSeq } from 'yaml';
import type { YAMLMap, YAMLSeq } from 'yaml';
import { mapAt, pairOf, scalarText, takeOut } from './nodes.js';
import type { Path } from './nodes.js';
import { WATCH_REFUSED } from './refusals.js';
import { writeSentinelCalls } from './pre-reconcile.js';
import type { Upgrader } from './upgrader.js';

/**
 * upgradeWatch moves upstream's `operatorBox.watch` and `operatorBox.observe.watch` lists to the
 * entry's `watch` (docs/reference/katalog.md §3.2), `operatorBox.observe.cross` to the box's `cross`,
 * and maps each watch item: `index` (field indexers for
 * upstream's Go client) is dropped; `include` is refused with its reason;
 * `enqueueGate` is kept, its sentinel calls written out as `preReconcile`'s are.
 */
export function upgradeWatch(up: Upgrader, entry: YAMLMap, base: Path): void {
  const box = mapAt(entry, 'operatorBox');
  const boxPath = [...base, 'operatorBox'];
  if (box == null) return;
  const observe = mapAt(box, 'observe');
  if (observe != null) {
    up.mark('G3');
    const path = [...boxPath, 'observe'];
    if (isSeq(pairOf(observe, 'watch')?.value))
      up.move(observe, 'watch', entry, 'watch', [...path, 'watch'], 'watch');
    // Upstream's OPPRE layout observes cross reads here too; they are the box's `cross` (katalog.md §15.2).
    if (isSeq(pairOf(observe, 'cross')?.value))
      up.move(observe, 'cross', box, 'cross', [...path, 'cross'], 'operatorBox.cross');
    up.refuse(observe, path, WATCH_REFUSED);
    up.drop(box, 'observe', path, 'its watch and cross lists moved');
  }
  if (isSeq(pairOf(box, 'watch')?.value)) {
    up.mark('G3');
    up.move(box, 'watch', entry, 'watch', [...boxPath, 'watch'], 'watch');
  }
  const list = pairOf(entry, 'watch')?.value;
  if (!isSeq(list)) return;
  const seen = new Set<string>();
  (list as YAMLSeq).items.forEach((item, index) => {
    if (!isMap(item)) return;
    const path = [...base, 'watch', index];
    // Upstream refuses a second watch of one object set (apiVersion, kind, namespace, name).
    if (up.upstream) {
      const parts = ['apiVersion', 'kind', 'namespace', 'name'].map(
        (key) => scalarText(pairOf(item as YAMLMap, key)?.value) ?? '',
      );
      const key = JSON.stringify(parts);
      if (seen.has(key))
        up.problem(
          path,
          item,
          `duplicate watch entry ${parts[0]}/${parts[1]}${parts[2] === '' ? '' : ` in namespace ${parts[2]}`}${parts[3] === '' ? '' : ` named ${parts[3]}`}: watch entries must be unique (upstream refuses it); remove one`,
        );
      seen.add(key);
    }
    up.drop(
      item as YAMLMap,
      'index',
      [...path, 'index'],
      'field indexers serve the lists of upstream’s Go client code; Orkestra runs none',
    );
    const gate = mapAt(item as YAMLMap, 'enqueueGate');
    if (gate != null) writeSentinelCalls(up, gate, [...path, 'enqueueGate'], 'enqueueGate', undefined);
    for (const key of ['include']) {
      const pair = pairOf(item as YAMLMap, key);
      if (pair == null) continue;
      up.problem(
        [...path, key],
        pair.key,
        `upstream key \`${key}\` has no counterpart in Orkestra: ${WATCH_REFUSED[key] ?? ''}`,
      );
      takeOut(item as YAMLMap, pair);
    }
  });
}
