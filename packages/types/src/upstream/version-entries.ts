/**
 * Upstream's per-version entries (docs/reference/katalog.md §24, ADR 0106). Upstream's docs write a
 * CRD served at two versions as two entries of the same group and kind, one per version, each with
 * its own reconciler, and the `conversion` block on the storage version's entry. Upstream then runs
 * one informer and reconciler per entry, both over the same objects (the API server serves every
 * object at each version). An Orkestra entry is one CRD, reconciled once, at `apiTypes.version`, and
 * its `conversion` already serves the other versions (§3.4). So, in an upstream Katalog, a
 * same-kind entry whose version is one of the conversion entry's versions is merged into that entry
 * when it declares nothing the conversion entry does not declare the same way (its name and
 * `apiTypes.version` aside): the two reconcilers render the same children, so reconciling once
 * loses nothing. When it declares something else (other children, other settings), reconciling
 * once would drop it, so it is refused at its `apiTypes.version`, naming what differs.
 */
import { isMap, isScalar, isSeq } from 'yaml';
import type { Pair, YAMLMap, YAMLSeq } from 'yaml';
import { keyOf, mapAt, pairOf, scalarText } from './nodes.js';
import type { Path } from './nodes.js';
import type { Upgrader } from './upgrader.js';

interface Entry {
  readonly key: string | number;
  readonly map: YAMLMap;
  /** The list item or map pair that holds the entry, to take it out. */
  readonly holder: Pair | YAMLMap;
  readonly group: string;
  readonly kind: string;
  readonly version: string;
  readonly versionNode: unknown;
}

/** Keys that name an entry or its version; they may differ between merged entries. */
const OWN_KEYS = new Set(['name', 'apiTypes', 'conversion', 'readiness']);

function entriesOf(crds: YAMLMap | YAMLSeq): Entry[] {
  const found: Entry[] = [];
  const add = (key: string | number, value: unknown, holder: Pair | YAMLMap): void => {
    if (!isMap(value)) return;
    const map = value as YAMLMap;
    const apiTypes = mapAt(map, 'apiTypes');
    if (apiTypes == null) return;
    const [group, kind] = [
      scalarText(pairOf(apiTypes, 'group')?.value),
      scalarText(pairOf(apiTypes, 'kind')?.value),
    ];
    const versionPair = pairOf(apiTypes, 'version');
    const version = scalarText(versionPair?.value);
    if (group == null || kind == null || version == null || versionPair == null) return;
    found.push({ key, map, holder, group, kind, version, versionNode: versionPair.value });
  };
  if (isMap(crds))
    for (const pair of (crds as YAMLMap).items) {
      const key = keyOf(pair as Pair);
      if (key != null) add(key, (pair as Pair).value, pair as Pair);
    }
  else
    (crds as YAMLSeq).items.forEach((item, i) => {
      if (isMap(item)) add(i, item, item as YAMLMap);
    });
  return found;
}

/** The versions a `conversion` block serves: its storage version and every path's ends. */
function conversionVersions(entry: Entry): Set<string> | undefined {
  const conversion = mapAt(entry.map, 'conversion');
  if (conversion == null) return undefined;
  const versions = new Set<string>([entry.version]);
  const storage = scalarText(pairOf(conversion, 'storageVersion')?.value);
  if (storage != null) versions.add(storage);
  const paths = pairOf(conversion, 'paths')?.value;
  if (isSeq(paths))
    for (const p of (paths as YAMLSeq).items) {
      if (!isMap(p)) continue;
      for (const side of ['from', 'to']) {
        const v = pairOf(p as YAMLMap, side)?.value;
        if (isScalar(v) && typeof v.value === 'string') versions.add(v.value);
      }
    }
  return versions;
}

const json = (node: unknown): string =>
  JSON.stringify((node as { toJSON?: () => unknown })?.toJSON?.() ?? node);

/** The first key of `other` (its name and version aside) that `keeper` does not declare the same way. */
function firstDifference(other: YAMLMap, keeper: YAMLMap): string | undefined {
  for (const item of other.items) {
    const key = keyOf(item as Pair);
    if (key == null || OWN_KEYS.has(key)) continue;
    const there = pairOf(keeper, key);
    if (there == null || json((item as Pair).value) !== json(there.value)) return key;
  }
  const apiTypes = mapAt(other, 'apiTypes');
  const keeperTypes = mapAt(keeper, 'apiTypes');
  for (const item of apiTypes?.items ?? []) {
    const key = keyOf(item as Pair);
    if (key == null || key === 'version') continue;
    const there = keeperTypes == null ? undefined : pairOf(keeperTypes, key);
    if (there == null || json((item as Pair).value) !== json(there.value)) return `apiTypes.${key}`;
  }
  return undefined;
}

/** mergeVersionEntries merges or refuses upstream's per-version entries (see the file comment). */
export function mergeVersionEntries(up: Upgrader, crds: YAMLMap | YAMLSeq, base: Path): void {
  const entries = entriesOf(crds);
  const byKind = new Map<string, Entry[]>();
  for (const e of entries) {
    const k = `${e.group}/${e.kind}`;
    byKind.set(k, [...(byKind.get(k) ?? []), e]);
  }
  const removed: Entry[] = [];
  for (const group of byKind.values()) {
    if (group.length < 2) continue;
    const keepers = group.filter((e) => mapAt(e.map, 'conversion') != null);
    // Without exactly one conversion entry there is no CRD to merge into; the loader's own check
    // (two entries declaring one kind) reports it.
    if (keepers.length !== 1) continue;
    const keeper = keepers[0] as Entry;
    const served = conversionVersions(keeper) ?? new Set<string>();
    const keeperName =
      typeof keeper.key === 'number'
        ? (scalarText(pairOf(keeper.map, 'name')?.value) ?? `#${keeper.key}`)
        : keeper.key;
    for (const other of group) {
      if (other === keeper) continue;
      const path = [...base, other.key, 'apiTypes', 'version'];
      if (other.version === keeper.version || !served.has(other.version)) {
        up.problem(
          path,
          other.versionNode,
          `this entry declares ${other.kind} at version ${other.version}, which the conversion of entry ${keeperName} does not serve (it serves ${[...served].join(', ')}); an Orkestra entry is one CRD: declare each version in that entry's conversion.paths (docs/reference/katalog.md §3.4)`,
        );
        continue;
      }
      const differs = firstDifference(other.map, keeper.map);
      if (differs != null) {
        up.problem(
          path,
          other.versionNode,
          `upstream reconciles ${other.kind} once per version entry; Orkestra reconciles a CRD once, at the version of entry ${keeperName} (${keeper.version}), which serves ${other.version} through its conversion. This entry's \`${differs}\` differs from that entry's, so reconciling once would drop it: make the two entries declare the same children and settings, or keep one entry (docs/reference/katalog.md §24)`,
        );
        continue;
      }
      removed.push(other);
      up.change(
        [...base, other.key],
        other.versionNode,
        `merged into entry ${keeperName}: upstream's per-version entry of ${other.kind} (${other.version}) declares the same reconcile, which Orkestra runs once for the CRD at ${keeper.version}; ${other.version} stays served through the conversion`,
      );
    }
  }
  for (const e of removed) {
    if (isMap(crds)) (crds as YAMLMap).items.splice((crds as YAMLMap).items.indexOf(e.holder as Pair), 1);
    else (crds as YAMLSeq).items.splice((crds as YAMLSeq).items.indexOf(e.holder), 1);
  }
}
