/**
 * Inside the operatorBox: lifecycle groups, upstream's list-key spellings, group lists written as
 * lists, cross sources (cross-source.ts); each group's children go to the concern that maps them.
 */
import { isMap, isSeq } from 'yaml';
import type { Pair, YAMLMap, YAMLSeq } from 'yaml';
import { UPSTREAM_API_VERSIONS } from '../metadata.js';
import { upgradeChild } from './children.js';
import { CLUSTER_LISTS, clusterLists } from './cluster-lists.js';
import { upgradeDeleteGroups } from './delete-groups.js';
import { crossSource } from './cross-source.js';
import { externalProtocols } from './external.js';
import { keyOf, mapAt, pairOf, scalar, takeOut } from './nodes.js';
import type { Path } from './nodes.js';
import { emptyLimitRange, presetProfile } from './presets.js';
import { expandToNamespaces, isCopyList, upstreamCopy } from './secrets.js';
import type { Upgrader } from './upgrader.js';

const RESOURCE_GROUPS = ['onCreate', 'onReconcile'] as const;

/** eachGroup calls `visit` for a lifecycle group and for each of its nested `groups[]`. */
function eachGroup(group: YAMLMap, path: Path, visit: (map: YAMLMap, path: Path) => void): void {
  visit(group, path);
  const nested = pairOf(group, 'groups')?.value;
  if (isSeq(nested))
    (nested as YAMLSeq).items.forEach((item, i) => {
      if (isMap(item)) visit(item as YAMLMap, [...path, 'groups', i]);
    });
}

export function upgradeBox(up: Upgrader, box: YAMLMap, boxPath: Path): void {
  externalProtocols(up, box, boxPath);
  if (up.upstream) groupLists(up, box, boxPath);
  for (const group of RESOURCE_GROUPS) {
    const groupMap = mapAt(box, group);
    if (groupMap == null) continue;
    eachGroup(groupMap, [...boxPath, group], (map, path) => {
      upgradeGroup(up, map, path);
      externalProtocols(up, map, path);
    });
  }
  const onDelete = mapAt(box, 'onDelete');
  if (onDelete != null) {
    eachGroup(onDelete, [...boxPath, 'onDelete'], (map, path) => renameListKeys(up, map, path));
    if (up.upstream) upgradeDeleteGroups(up, onDelete, [...boxPath, 'onDelete']);
  }
  const cross = pairOf(box, 'cross')?.value;
  if (isSeq(cross)) {
    // A refused read is taken out whole, so its other keys are not reported a second time.
    const refusedReads: unknown[] = [];
    (cross as YAMLSeq).items.forEach((item, i) => {
      if (!isMap(item)) return;
      const source = pairOf(item as YAMLMap, 'source');
      if (source != null && isMap(source.value)) {
        if (!crossSource(up, item as YAMLMap, [...boxPath, 'cross', i])) refusedReads.push(item);
        return;
      }
      if (source != null && pairOf(item as YAMLMap, 'endpoint') == null) {
        source.key = scalar('endpoint', source.key);
        up.change([...boxPath, 'cross', i, 'source'], source.key, 'renamed to endpoint');
      }
    });
    const items = (cross as YAMLSeq).items;
    for (const item of refusedReads) items.splice(items.indexOf(item), 1);
  }
}

/**
 * groupLists refuses a lifecycle group written as a bare list of children. Upstream's groups are
 * maps of kind lists (HookTemplates) and its own loader rejects a list there too; the reason names
 * the kind list to write, so the user does not meet a bare "expected a map".
 */
function groupLists(up: Upgrader, box: YAMLMap, boxPath: Path): void {
  for (const group of [...RESOURCE_GROUPS, 'onDelete']) {
    const pair = pairOf(box, group);
    if (pair == null || !isSeq(pair.value)) continue;
    up.problem(
      [...boxPath, group],
      pair.value,
      `upstream \`${group}\` is a map of kind lists, not a list of children (upstream's loader refuses a list here as well); put the items under their kind, e.g. \`${group}: {deployments: [...]}\``,
    );
    takeOut(box, pair);
  }
}

/**
 * LIST_KEY_ALIASES are list keys as upstream's documentation spells them (e.g. `replicasets:` in the
 * ReplicaSet reference) mapped to the canonical list key.
 */
const LIST_KEY_ALIASES: Readonly<Record<string, string>> = {
  replicasets: 'replicaSets',
};

/** renameListKeys renames upstream's spellings of list keys in one group (`replicasets` → `replicaSets`). */
function renameListKeys(up: Upgrader, group: YAMLMap, path: Path): void {
  for (const pair of group.items) {
    const key = keyOf(pair as Pair);
    const canonical = key == null ? undefined : LIST_KEY_ALIASES[key];
    if (key == null || canonical == null || pairOf(group, canonical) != null) continue;
    (pair as Pair).key = scalar(canonical, (pair as Pair).key);
    up.change([...path, key], (pair as Pair).key, `renamed to ${canonical}`);
  }
}

/**
 * refuseListKeys reports (and takes out), in a canonical Katalog, upstream's cluster-scoped lists,
 * which only an upstream Katalog maps (see CLUSTER_LISTS), naming the `custom` spelling.
 */
function refuseListKeys(up: Upgrader, group: YAMLMap, path: Path): void {
  for (const pair of [...group.items]) {
    const key = keyOf(pair as Pair);
    if (key == null) continue;
    const cluster = Object.hasOwn(CLUSTER_LISTS, key) ? CLUSTER_LISTS[key] : undefined;
    if (cluster != null)
      up.problem(
        [...path, key],
        (pair as Pair).key,
        `upstream list \`${key}\` is mapped only in an upstream Katalog (apiVersion ${UPSTREAM_API_VERSIONS.join(' or ')}); in this Katalog declare each item under \`custom\` with \`apiVersion: ${cluster.apiVersion}\`, \`kind: ${cluster.kind}\`, \`namespaced: false\` and \`metadata.name\` (\`ork migrate\` writes that form from an upstream Katalog)`,
      );
    else continue;
    takeOut(group, pair as Pair);
  }
}

/** upgradeGroup rewrites the lists of one onCreate/onReconcile group (or an item of its `groups`). */
export function upgradeGroup(up: Upgrader, groupMap: YAMLMap, groupPath: Path): void {
  renameListKeys(up, groupMap, groupPath);
  if (up.upstream) clusterLists(up, groupMap, groupPath);
  refuseListKeys(up, groupMap, groupPath);
  for (const pair of groupMap.items) {
    const listKey = keyOf(pair as Pair);
    const list = (pair as Pair).value;
    if (listKey == null || !isSeq(list)) continue;
    (list as YAMLSeq).items.forEach((item, i) => {
      if (!isMap(item)) return;
      const path = [...groupPath, listKey, i];
      upgradeChild(up, item as YAMLMap, path, listKey === 'custom');
      if (isCopyList(listKey)) upstreamCopy(up, item as YAMLMap, path, listKey);
      if (up.upstream && listKey === 'limitRanges') emptyLimitRange(up, item as YAMLMap, path);
      if (up.upstream && (listKey === 'resourceQuotas' || listKey === 'limitRanges'))
        presetProfile(up, item as YAMLMap, path, listKey);
    });
    if (isCopyList(listKey)) expandToNamespaces(up, list as YAMLSeq, [...groupPath, listKey]);
  }
}
