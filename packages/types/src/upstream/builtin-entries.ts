/**
 * Upstream entries whose apiTypes name one of Kubernetes' own kinds (builtin-kinds.ts): refused,
 * or removed when disabled (docs/reference/katalog.md §24).
 */
import { isMap, isScalar } from 'yaml';
import type { Pair, YAMLMap } from 'yaml';
import { keepComment, keyOf, mapAt, pairOf, takeOut } from './nodes.js';
import type { Path } from './nodes.js';
import { BUILTIN_GROUPS, isBuiltinKindName } from '../builtin-kinds.js';
import type { Upgrader } from './upgrader.js';

/**
 * builtinKindEntry refuses an entry whose apiTypes name one of Kubernetes' own kinds (upstream lets
 * an entry watch e.g. ConfigMaps with a `labelSelector`): an Orkestra entry defines its own CRD and
 * reconciles its CRs (docs/reference/katalog.md §24). Returns whether it refused.
 */
export function builtinKindEntry(up: Upgrader, entry: YAMLMap, base: Path): boolean {
  const found = builtinApiTypes(entry);
  if (found == null) return false;
  const { group, kind, groupPair, kindPair } = found;
  const where = group == null ? kindPair : groupPair;
  const named = `${kind === '' ? 'a kind' : kind} of ${group == null || group === '' ? 'the core group' : `group ${group}`}`;
  up.problem(
    [...base, 'apiTypes', group == null ? 'kind' : 'group'],
    where?.value,
    `this entry names ${named}, one of Kubernetes' own kinds; an Orkestra entry defines its own CRD and reconciles its CRs, so it cannot watch built-in objects. Give the entry its own group and kind (e.g. group: example.org) and declare the ${kind === '' ? 'built-in objects' : `${kind}s`} it should manage as children (docs/reference/katalog.md §24)`,
  );
  return true;
}

/** builtinApiTypes is the entry's apiTypes when they name one of Kubernetes' own kinds, else undefined. */
function builtinApiTypes(
  entry: YAMLMap,
): { group: string | undefined; kind: string; groupPair?: Pair; kindPair?: Pair } | undefined {
  const apiTypes = mapAt(entry, 'apiTypes');
  if (apiTypes == null) return undefined;
  const groupPair = pairOf(apiTypes, 'group');
  const kindPair = pairOf(apiTypes, 'kind');
  const group =
    groupPair != null && isScalar(groupPair.value) ? String(groupPair.value.value ?? '') : undefined;
  const kind = kindPair != null && isScalar(kindPair.value) ? String(kindPair.value.value ?? '') : '';
  const builtin = group == null ? isBuiltinKindName(kind) : BUILTIN_GROUPS.has(group);
  if (!builtin) return undefined;
  return {
    group,
    kind,
    ...(groupPair == null ? {} : { groupPair }),
    ...(kindPair == null ? {} : { kindPair }),
  };
}

/**
 * dropDisabledBuiltins removes, in an upstream Katalog, the entries with `enabled: false` whose
 * apiTypes name a built-in kind: upstream skips a disabled entry entirely, and Orkestra has no
 * entry for built-in kinds, so there is nothing to keep (an enabled one is refused, katalog.md §24).
 */
export function dropDisabledBuiltins(up: Upgrader, crds: YAMLMap): void {
  for (const pair of [...crds.items]) {
    const name = keyOf(pair as Pair);
    const entry = (pair as Pair).value;
    if (name == null || !isMap(entry)) continue;
    const enabled = pairOf(entry as YAMLMap, 'enabled')?.value;
    if (!isScalar(enabled) || enabled.value !== false) continue;
    const found = builtinApiTypes(entry as YAMLMap);
    if (found == null) continue;
    const index = takeOut(crds, pair as Pair);
    keepComment(crds, index, pair as Pair);
    up.change(
      ['spec', 'crds', name],
      (pair as Pair).key,
      `removed: a disabled entry (enabled: false) of the built-in kind ${found.kind || 'named by its group'}, which upstream skips and Orkestra has no entry for`,
    );
  }
}
