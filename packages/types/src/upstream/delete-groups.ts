/**
 * Upstream's ordered deletion stages mapped onto onDelete groups (docs/reference/katalog.md §5.6).
 */
import { isMap, isScalar, isSeq, Pair, YAMLMap, YAMLSeq } from 'yaml';
import { CLUSTER_LISTS } from './cluster-lists.js';
import { born, keyOf, pairOf, scalar, scalarText, takeOut } from './nodes.js';
import type { Path } from './nodes.js';
import type { Upgrader } from './upgrader.js';

/** DELETE_BLOCK_KEYS are the keys of `onDelete` itself; any other key there is a kind list. */
const DELETE_BLOCK_KEYS: ReadonlySet<string> = new Set([
  'timeout',
  'jobs',
  'ordered',
  'groups',
  'when',
  'anyOf',
  'or',
]);

/**
 * upgradeDeleteGroups maps upstream's ordered deletion onto katalog.md §5.6. Upstream's stage is a whole
 * resource block of which only each item's `name` and `namespace` are read; a stage has no name
 * (upstream counts them), so each gets `stage-<n>`; a kind written with no items (`- deployments:`)
 * deletes nothing, as upstream, and is removed; the cluster-scoped lists become `custom`
 * references. With `ordered: true` and no `groups`, upstream's flat kind lists are the one stage;
 * without `ordered` upstream only runs `jobs`, so flat kind lists are removed with a note.
 */
export function upgradeDeleteGroups(up: Upgrader, onDelete: YAMLMap, path: Path): void {
  const ordered = pairOf(onDelete, 'ordered')?.value;
  const isOrdered = isScalar(ordered) && (ordered.value === true || ordered.value === 'true');
  const flat = onDelete.items.filter((pair) => !DELETE_BLOCK_KEYS.has(keyOf(pair as Pair) ?? ''));
  if (flat.length > 0 && isOrdered && pairOf(onDelete, 'groups') == null) {
    const stage = born(new YAMLMap(), (flat[0] as Pair).key);
    for (const pair of flat) {
      takeOut(onDelete, pair as Pair);
      stage.items.push(pair);
    }
    const groups = born(new YAMLSeq(), (flat[0] as Pair).key);
    groups.items.push(stage);
    onDelete.items.push(new Pair(scalar('groups', (flat[0] as Pair).key), groups));
    up.change(
      path,
      (flat[0] as Pair).key,
      'the kind lists of an ordered onDelete became its one stage (groups[0])',
    );
  } else if (!isOrdered) {
    // (Beside `groups` they are left to the schema, which reports them.)
    for (const pair of flat) {
      const key = keyOf(pair as Pair) ?? '';
      up.drop(
        onDelete,
        key,
        [...path, key],
        'without `ordered: true` upstream deletes nothing by name (it runs `jobs`; children go by garbage collection)',
      );
    }
  }
  const groups = pairOf(onDelete, 'groups')?.value;
  if (!isSeq(groups)) return;
  const taken = new Set(
    (groups as YAMLSeq).items.map((g) =>
      isMap(g) ? scalarText(pairOf(g as YAMLMap, 'name')?.value) : undefined,
    ),
  );
  (groups as YAMLSeq).items.forEach((group, i) => {
    if (!isMap(group)) return;
    const map = group as YAMLMap;
    const at = [...path, 'groups', i];
    if (pairOf(map, 'name') == null) {
      let name = `stage-${i + 1}`;
      for (let n = 2; taken.has(name); n++) name = `stage-${i + 1}-${n}`;
      taken.add(name);
      map.items.unshift(new Pair(scalar('name', group), scalar(name, group)));
      up.change(at, group, `named ${name} (upstream's stages have no name)`);
    }
    for (const key of ['timeout', 'ordered']) {
      if (pairOf(map, key) != null)
        up.drop(map, key, [...at, key], `upstream reads \`${key}\` of onDelete only, not of a stage`);
    }
    for (const pair of [...map.items]) {
      const key = keyOf(pair as Pair);
      if (key == null || ['name', 'propagation', 'when', 'anyOf', 'or'].includes(key)) continue;
      const value = (pair as Pair).value;
      if (value == null || (isScalar(value) && value.value == null)) {
        up.drop(map, key, [...at, key], 'a kind with no items deletes nothing (as upstream)');
        continue;
      }
      if (!isSeq(value)) continue;
      const cluster = Object.hasOwn(CLUSTER_LISTS, key) ? CLUSTER_LISTS[key] : undefined;
      (value as YAMLSeq).items.forEach((item, j) => {
        if (!isMap(item)) return;
        for (const inner of [...(item as YAMLMap).items]) {
          const innerKey = keyOf(inner as Pair);
          if (innerKey === 'name' || (innerKey === 'namespace' && cluster == null)) continue;
          takeOut(item as YAMLMap, inner as Pair);
          up.change(
            [...at, key, j, innerKey ?? '?'],
            (inner as Pair).key,
            'removed: a deletion stage selects by `name` and `namespace` only (as upstream)',
          );
        }
      });
      if (cluster == null) continue;
      takeOut(map, pair as Pair);
      let custom = pairOf(map, 'custom')?.value;
      if (!isSeq(custom)) {
        custom = born(new YAMLSeq(), (pair as Pair).key);
        map.items.push(new Pair(scalar('custom', (pair as Pair).key), custom));
      }
      for (const item of (value as YAMLSeq).items) {
        const name = isMap(item) ? pairOf(item as YAMLMap, 'name') : undefined;
        if (name == null) {
          up.problem([...at, key], item, `a ${cluster.kind} to delete needs \`name\``);
          continue;
        }
        const ref = born(new YAMLMap(), item);
        ref.items.push(new Pair(scalar('apiVersion', item), scalar(cluster.apiVersion, item)));
        ref.items.push(new Pair(scalar('kind', item), scalar(cluster.kind, item)));
        const metadata = born(new YAMLMap(), item);
        metadata.items.push(name);
        ref.items.push(new Pair(scalar('metadata', item), metadata));
        (custom as YAMLSeq).items.push(ref);
      }
      up.change([...at, key], (pair as Pair).key, `moved to custom (${cluster.kind} references)`);
    }
  });
}
