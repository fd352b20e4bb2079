/**
 * Upstream's cluster-scoped lists (clusterRoles, clusterRoleBindings, persistentVolumes) rewritten
 * as `custom` entries with `namespaced: false` (docs/reference/katalog.md §24).
 */
import { isMap, isScalar, isSeq, Pair, YAMLMap, YAMLSeq } from 'yaml';
import type { Node as YamlNode } from 'yaml';
import { gateShape } from '../schema/condition.js';
import { commonShape } from '../schema/resources.js';
import { upgradeChild } from './children.js';
import { born, flowList, keepComment, keyOf, pairOf, scalar, scalarText, takeOut } from './nodes.js';
import type { Path } from './nodes.js';
import type { Upgrader } from './upgrader.js';

const RBAC_GROUP = 'rbac.authorization.k8s.io';

/**
 * CUSTOM_COMMON_KEYS are the keys a `custom` entry shares with every entry (forEach, reconcile, the
 * gate, …; the schema's commonShape without name/namespace/labels/annotations, which a custom
 * entry takes under `metadata`). A mapped item keeps them as written.
 */
const CUSTOM_COMMON_KEYS: ReadonlySet<string> = new Set(
  [...Object.keys(commonShape), ...Object.keys(gateShape)].filter(
    (key) => !['name', 'namespace', 'labels', 'annotations'].includes(key),
  ),
);

/** ClusterList is how one upstream cluster-scoped list maps onto `custom` entries. */
interface ClusterList {
  readonly apiVersion: string;
  readonly kind: string;
  /** The item's own keys, besides `name`, `labels`, `annotations` and the common keys. */
  readonly keys: readonly string[];
  /** Upstream's name for an item without `name`; undefined when `name` is required. */
  readonly defaultName?: string;
  /** body returns the manifest keys of the custom entry, reporting what cannot be mapped. */
  readonly body: (up: Upgrader, item: YAMLMap, path: Path) => Pair[];
}

/**
 * CLUSTER_LISTS are upstream's lists of cluster-scoped kinds, which an upstream Katalog's groups
 * (and a motif's `resources`) may hold: each item becomes a `custom` entry of the same group with
 * `namespaced: false` (docs/reference/katalog.md §24). Default names are upstream's.
 */
export const CLUSTER_LISTS: Readonly<Record<string, ClusterList>> = {
  clusterRoles: {
    apiVersion: `${RBAC_GROUP}/v1`,
    kind: 'ClusterRole',
    keys: ['rules', 'aggregationRule'],
    defaultName: '{{ .metadata.name }}-cluster-role',
    body: clusterRoleBody,
  },
  clusterRoleBindings: {
    apiVersion: `${RBAC_GROUP}/v1`,
    kind: 'ClusterRoleBinding',
    keys: ['roleRef', 'subjects'],
    defaultName: '{{ .metadata.name }}-crb',
    body: clusterRoleBindingBody,
  },
  persistentVolumes: {
    apiVersion: 'v1',
    kind: 'PersistentVolume',
    keys: ['capacity', 'accessModes', 'hostPath', 'storageClassName', 'reclaimPolicy', 'volumeMode'],
    body: persistentVolumeBody,
  },
};

/** unknownKeys reports every key of `map` outside `known`, at the key. */
function unknownKeys(up: Upgrader, map: YAMLMap, path: Path, known: readonly string[], what: string): void {
  for (const pair of map.items) {
    const key = keyOf(pair as Pair);
    if (key != null && !known.includes(key))
      up.problem(
        [...path, key],
        (pair as Pair).key,
        `${what} has no key \`${key}\` (it takes ${known.map((k) => `\`${k}\``).join(', ')})`,
      );
  }
}

/** clusterRoleBody keeps `rules` (each rule's `apiGroups` defaulting to `[""]`, as in `roles`) and `aggregationRule`. */
function clusterRoleBody(up: Upgrader, item: YAMLMap, path: Path): Pair[] {
  const out: Pair[] = [];
  const rules = pairOf(item, 'rules');
  if (rules != null) {
    if (!isSeq(rules.value))
      up.problem([...path, 'rules'], rules.value, '`rules` is a list of {apiGroups, resources, verbs}');
    else
      (rules.value as YAMLSeq).items.forEach((rule, j) => {
        if (!isMap(rule)) {
          up.problem([...path, 'rules', j], rule, 'a rule is a map of apiGroups, resources and verbs');
          return;
        }
        if (pairOf(rule as YAMLMap, 'apiGroups') == null)
          (rule as YAMLMap).items.unshift(new Pair(scalar('apiGroups', rule), flowList([''], rule)));
      });
    out.push(rules);
  }
  const aggregation = pairOf(item, 'aggregationRule');
  if (aggregation != null) out.push(aggregation);
  return out;
}

/**
 * clusterRoleBindingBody completes `roleRef` (apiGroup, kind ClusterRole) and each subject (kind
 * ServiceAccount by default, the RBAC apiGroup for User and Group). A ServiceAccount subject needs
 * a namespace: a ClusterRoleBinding has none to default it to.
 */
function clusterRoleBindingBody(up: Upgrader, item: YAMLMap, path: Path): Pair[] {
  const out: Pair[] = [];
  const roleRef = pairOf(item, 'roleRef');
  if (roleRef == null)
    up.problem(path, item, 'a ClusterRoleBinding needs `roleRef` (the ClusterRole it binds)');
  else if (!isMap(roleRef.value))
    up.problem([...path, 'roleRef'], roleRef.value, '`roleRef` is a map {name, kind}');
  else {
    const ref = roleRef.value as YAMLMap;
    const at = [...path, 'roleRef'];
    unknownKeys(up, ref, at, ['name', 'kind', 'apiGroup'], '`roleRef`');
    const kind = pairOf(ref, 'kind');
    if (kind != null && scalarText(kind.value) !== 'ClusterRole')
      up.problem(
        [...at, 'kind'],
        kind.value,
        `a ClusterRoleBinding can only refer to a ClusterRole, not ${scalarText(kind.value) ?? 'this'}; bind a Role with a namespaced \`roleBindings\` entry`,
      );
    const apiGroup = pairOf(ref, 'apiGroup');
    if (apiGroup != null && scalarText(apiGroup.value) !== RBAC_GROUP)
      up.problem([...at, 'apiGroup'], apiGroup.value, `\`roleRef.apiGroup\` is ${RBAC_GROUP}`);
    const name = pairOf(ref, 'name');
    if (name == null) up.problem(at, ref, '`roleRef` needs `name` (the ClusterRole to bind)');
    else {
      const completed = born(new YAMLMap(), ref);
      if (ref.flow === true) completed.flow = true;
      completed.items.push(
        apiGroup ?? new Pair(scalar('apiGroup', ref), scalar(RBAC_GROUP, ref)),
        kind ?? new Pair(scalar('kind', ref), scalar('ClusterRole', ref)),
        name,
      );
      roleRef.value = completed;
    }
    out.push(roleRef);
  }
  const subjects = pairOf(item, 'subjects');
  if (subjects != null) {
    if (!isSeq(subjects.value))
      up.problem([...path, 'subjects'], subjects.value, '`subjects` is a list of {kind, name, namespace}');
    else
      (subjects.value as YAMLSeq).items.forEach((subject, j) => {
        const at = [...path, 'subjects', j];
        if (!isMap(subject)) {
          up.problem(at, subject, 'a subject is a map {kind, name, namespace}');
          return;
        }
        const map = subject as YAMLMap;
        unknownKeys(up, map, at, ['kind', 'name', 'namespace', 'apiGroup'], 'a subject');
        const kindPair = pairOf(map, 'kind');
        const kind = kindPair == null ? 'ServiceAccount' : scalarText(kindPair.value);
        if (kind !== 'ServiceAccount' && kind !== 'User' && kind !== 'Group') {
          up.problem([...at, 'kind'], kindPair?.value, 'a subject kind is ServiceAccount, User or Group');
          return;
        }
        if (pairOf(map, 'name') == null) up.problem(at, map, 'a subject needs `name`');
        if (kind === 'ServiceAccount' && pairOf(map, 'namespace') == null)
          up.problem(at, map, 'a ServiceAccount subject of a ClusterRoleBinding needs `namespace`');
        if (kindPair == null) map.items.unshift(new Pair(scalar('kind', map), scalar(kind, map)));
        if (kind !== 'ServiceAccount' && pairOf(map, 'apiGroup') == null)
          map.items.push(new Pair(scalar('apiGroup', map), scalar(RBAC_GROUP, map)));
      });
    out.push(subjects);
  }
  return out;
}

/**
 * persistentVolumeBody builds `spec`: `capacity` (required) becomes `capacity.storage`, `hostPath`
 * (a path, or `{path, type}`; the only volume source upstream's list and this mapping know) is
 * required, `accessModes` defaults to `[ReadWriteOnce]` as upstream's does, and `reclaimPolicy` is
 * `persistentVolumeReclaimPolicy`.
 */
function persistentVolumeBody(up: Upgrader, item: YAMLMap, path: Path): Pair[] {
  const spec = born(new YAMLMap(), item);
  const capacity = pairOf(item, 'capacity');
  if (capacity == null) up.problem(path, item, 'a PersistentVolume needs `capacity` (its size, e.g. 1Gi)');
  else if (!isScalar(capacity.value))
    up.problem([...path, 'capacity'], capacity.value, '`capacity` is a size such as 1Gi');
  else {
    const storage = born(new YAMLMap(), capacity.value);
    storage.items.push(new Pair(scalar('storage', capacity.key), capacity.value));
    spec.items.push(new Pair(capacity.key, storage));
  }
  spec.items.push(
    pairOf(item, 'accessModes') ?? new Pair(scalar('accessModes', item), flowList(['ReadWriteOnce'], item)),
  );
  const hostPath = pairOf(item, 'hostPath');
  if (hostPath == null)
    up.problem(
      path,
      item,
      'a PersistentVolume needs `hostPath` (the only volume source this mapping knows); for another source declare the PersistentVolume under `custom` with its `spec`',
    );
  else if (isScalar(hostPath.value)) {
    const source = born(new YAMLMap(), hostPath.value);
    source.items.push(new Pair(scalar('path', hostPath.value), hostPath.value));
    spec.items.push(new Pair(hostPath.key, source));
  } else if (isMap(hostPath.value)) {
    const source = hostPath.value as YAMLMap;
    unknownKeys(up, source, [...path, 'hostPath'], ['path', 'type'], '`hostPath`');
    if (pairOf(source, 'path') == null) up.problem([...path, 'hostPath'], source, '`hostPath` needs `path`');
    spec.items.push(hostPath);
  } else up.problem([...path, 'hostPath'], hostPath.value, '`hostPath` is a path, or a map {path, type}');
  const storageClass = pairOf(item, 'storageClassName');
  if (storageClass != null) spec.items.push(storageClass);
  const reclaim = pairOf(item, 'reclaimPolicy');
  if (reclaim != null)
    spec.items.push(new Pair(scalar('persistentVolumeReclaimPolicy', reclaim.key), reclaim.value));
  const volumeMode = pairOf(item, 'volumeMode');
  if (volumeMode != null) spec.items.push(volumeMode);
  return [new Pair(scalar('spec', item), spec)];
}

/**
 * clusterEntry maps one item of an upstream cluster-scoped list onto a `custom` entry, or reports
 * why it cannot and returns undefined. The item's nodes are moved, not copied, so they keep their
 * source positions.
 */
function clusterEntry(
  up: Upgrader,
  list: ClusterList,
  listKey: string,
  item: YAMLMap,
  path: Path,
): YAMLMap | undefined {
  upgradeChild(up, item, path, false);
  const before = up.problems.length;
  const own = ['name', 'labels', 'annotations', ...list.keys];
  for (const pair of item.items) {
    const key = keyOf(pair as Pair);
    if (key == null || own.includes(key) || CUSTOM_COMMON_KEYS.has(key)) continue;
    up.problem(
      [...path, key],
      (pair as Pair).key,
      key === 'namespace'
        ? `a ${list.kind} is cluster-scoped: it has no \`namespace\``
        : `upstream \`${listKey}\` items have no key \`${key}\` (they take ${own.map((k) => `\`${k}\``).join(', ')} and the keys every entry takes); for anything else declare the ${list.kind} under \`custom\``,
    );
  }
  const name =
    pairOf(item, 'name') ??
    (list.defaultName == null ? undefined : new Pair(scalar('name', item), scalar(list.defaultName, item)));
  if (name == null) up.problem(path, item, `an upstream \`${listKey}\` item needs \`name\``);
  const body = list.body(up, item, path);
  if (name == null || up.problems.length > before) return undefined;
  const metadata = born(new YAMLMap(), item);
  metadata.items.push(name);
  for (const key of ['labels', 'annotations']) {
    const pair = pairOf(item, key);
    if (pair != null) metadata.items.push(pair);
  }
  const entry = born(new YAMLMap(), item);
  entry.commentBefore = item.commentBefore ?? null;
  entry.comment = item.comment ?? null;
  entry.items.push(
    new Pair(scalar('apiVersion', item), scalar(list.apiVersion, item)),
    new Pair(scalar('kind', item), scalar(list.kind, item)),
    new Pair(scalar('metadata', name.key), metadata),
    new Pair(scalar('namespaced', item), scalar(false, item)),
    ...body,
    ...item.items.filter((pair) => CUSTOM_COMMON_KEYS.has(keyOf(pair as Pair) ?? '')),
  );
  return entry;
}

/**
 * clusterLists rewrites an upstream group's `clusterRoles`, `clusterRoleBindings` and
 * `persistentVolumes` onto the group's `custom` list (appended to it when the group has one, else
 * created where the first of them was), one change per item (CLUSTER_LISTS).
 */
export function clusterLists(up: Upgrader, group: YAMLMap, groupPath: Path): void {
  const existing = pairOf(group, 'custom');
  let target = existing != null && isSeq(existing.value) ? (existing.value as YAMLSeq) : undefined;
  for (const pair of [...group.items]) {
    const listKey = keyOf(pair as Pair);
    const list =
      listKey != null && Object.hasOwn(CLUSTER_LISTS, listKey) ? CLUSTER_LISTS[listKey] : undefined;
    if (listKey == null || list == null) continue;
    const at = [...groupPath, listKey];
    const value = (pair as Pair).value;
    if (
      value == null ||
      (isScalar(value) && value.value == null) ||
      (isSeq(value) && value.items.length === 0)
    ) {
      up.drop(group, listKey, at, 'an empty list');
      continue;
    }
    if (!isSeq(value) || (existing != null && target == null)) {
      up.problem(
        at,
        (pair as Pair).key,
        !isSeq(value)
          ? `\`${listKey}\` is a list of ${list.kind} items`
          : `\`${listKey}\` cannot be mapped: its items become \`custom\` entries, and \`custom\` in this group is not a list`,
      );
      takeOut(group, pair as Pair);
      continue;
    }
    const mapped: [YAMLMap, number, unknown][] = [];
    (value as YAMLSeq).items.forEach((item, i) => {
      if (!isMap(item)) {
        up.problem([...at, i], item, `an item of \`${listKey}\` is a map (a ${list.kind})`);
        return;
      }
      const entry = clusterEntry(up, list, listKey, item as YAMLMap, [...at, i]);
      if (entry != null) mapped.push([entry, i, item]);
    });
    if (target == null) {
      target = born(new YAMLSeq(), value);
      const key = scalar('custom', (pair as Pair).key);
      key.commentBefore = ((pair as Pair).key as YamlNode | null)?.commentBefore ?? null;
      group.items.splice(group.items.indexOf(pair), 1, new Pair(key, target));
    } else {
      const index = takeOut(group, pair as Pair);
      keepComment(group, index, pair as Pair);
    }
    for (const [entry, i, item] of mapped) {
      target.items.push(entry);
      up.change(
        [...at, i],
        item,
        `moved to custom[${target.items.length - 1}] (${list.apiVersion} ${list.kind}, namespaced: false)`,
      );
    }
  }
}
