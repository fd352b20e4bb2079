/**
 * Upstream's one-way conversion paths (docs/reference/katalog.md §3.4, §24). Upstream loads a
 * `conversion.paths` list that leaves a direction between a served version and the storage version
 * out, and its webhook fails a request to convert that way ("no conversion path declared"). Orkestra
 * requires every direction to be declared, so the mapping declares each missing one `refuse: true`,
 * with a note: the converter then fails that request the same way. The version the runtime reads
 * (`apiTypes.version`) is left alone: a missing direction there is refused at load, as the runtime
 * could not read its own CRs.
 */
import { isMap, isSeq, Pair, YAMLMap } from 'yaml';
import type { YAMLSeq } from 'yaml';
import { born, mapAt, pairOf, scalar, scalarText } from './nodes.js';
import type { Path } from './nodes.js';
import type { Upgrader } from './upgrader.js';

const text = (map: YAMLMap, key: string): string | undefined => scalarText(pairOf(map, key)?.value);

/** storedVersion is `conversion.storageVersion`, else the one `versions` item with `storage: true`. */
function storedVersion(conversion: YAMLMap, versions: YAMLMap[]): string | undefined {
  const declared = text(conversion, 'storageVersion');
  if (declared != null) return declared;
  const stored = versions.filter((v) => text(v, 'storage') === 'true');
  return stored.length === 1 && stored[0] != null ? text(stored[0], 'name') : undefined;
}

/** oneWayPaths declares `refuse: true` for each direction upstream's paths leave out (see the file comment). */
export function oneWayPaths(up: Upgrader, entry: YAMLMap, base: Path): void {
  const conversion = mapAt(entry, 'conversion');
  const pathsPair = conversion == null ? undefined : pairOf(conversion, 'paths');
  if (conversion == null || pathsPair == null || !isSeq(pathsPair.value)) return;
  const list = pathsPair.value as YAMLSeq;
  const paths = list.items.filter((item): item is YAMLMap => isMap(item));
  const versionsNode = pairOf(entry, 'versions')?.value;
  const versions = isSeq(versionsNode)
    ? (versionsNode as YAMLSeq).items.filter((item): item is YAMLMap => isMap(item))
    : [];
  const storage = storedVersion(conversion, versions);
  const apiTypes = mapAt(entry, 'apiTypes');
  const read = apiTypes == null ? undefined : text(apiTypes, 'version');
  if (storage == null || read == null) return;
  const served = new Set<string>();
  if (versions.length > 0) {
    for (const v of versions) {
      const name = text(v, 'name');
      if (name != null && text(v, 'served') !== 'false') served.add(name);
    }
  } else {
    served.add(read);
    for (const p of paths) for (const side of ['from', 'to']) served.add(text(p, side) ?? '');
    served.delete('');
  }
  const reachable = new Set<string>();
  for (const p of paths) {
    const [from, to] = [text(p, 'from'), text(p, 'to')];
    reachable.add(`${from}>${to}`);
    if (pairOf(p, 'rules') != null) reachable.add(`${to}>${from}`);
  }
  const near = pathsPair.key;
  for (const v of served) {
    if (v === storage || v === read) continue;
    for (const [from, to] of [
      [v, storage],
      [storage, v],
    ] as const) {
      if (reachable.has(`${from}>${to}`)) continue;
      const item = born(new YAMLMap(), near);
      item.flow = true;
      for (const [key, value] of [
        ['from', from],
        ['to', to],
        ['refuse', true],
      ] as const)
        item.items.push(new Pair(scalar(key, near), scalar(value, near)));
      list.items.push(item);
      up.change(
        [...base, 'conversion', 'paths', list.items.length - 1],
        near,
        `added: upstream declares no path ${from} → ${to} and its webhook fails a request to convert that way; \`refuse: true\` does the same`,
      );
    }
  }
}
