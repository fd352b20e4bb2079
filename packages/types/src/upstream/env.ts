/**
 * Upstream `env` maps and `envFrom` lists of a container, rewritten into the canonical list and
 * reference forms.
 */
import { isMap, isScalar, isSeq, Pair, YAMLMap, YAMLSeq } from 'yaml';
import { born, keyOf, pairOf, scalar } from './nodes.js';
import type { Path } from './nodes.js';
import type { Upgrader } from './upgrader.js';

/** envMap turns `env: {NAME: value | secretKeyRef | configMapKeyRef}` into the list form. */
export function envMap(up: Upgrader, map: YAMLMap, path: Path): void {
  const pair = pairOf(map, 'env');
  if (pair == null || !isMap(pair.value)) return;
  const out = born(new YAMLSeq(), pair.value);
  for (const item of (pair.value as YAMLMap).items) {
    const name = (item as Pair).key;
    const value = (item as Pair).value;
    const envVar = born(new YAMLMap(), name);
    envVar.items.push(new Pair(scalar('name', name), name));
    if (
      isMap(value) &&
      ['secretKeyRef', 'configMapKeyRef', 'fieldRef'].some((k) => pairOf(value as YAMLMap, k) != null)
    ) {
      envVar.items.push(new Pair(scalar('valueFrom', value), value));
    } else if (isMap(value) && pairOf(value as YAMLMap, 'valueFrom') != null) {
      envVar.items.push(pairOf(value as YAMLMap, 'valueFrom') as Pair);
    } else if (
      isMap(value) &&
      (value as YAMLMap).items.length === 1 &&
      pairOf(value as YAMLMap, 'value') != null
    ) {
      // `NAME: {value: x}` is upstream's long form of `NAME: x`.
      const inner = (pairOf(value as YAMLMap, 'value') as Pair).value;
      envVar.items.push(
        new Pair(scalar('value', inner), isScalar(inner) ? scalar(String(inner.value ?? ''), inner) : inner),
      );
    } else {
      envVar.items.push(
        new Pair(scalar('value', value), isScalar(value) ? scalar(String(value.value ?? ''), value) : value),
      );
    }
    out.items.push(envVar);
  }
  pair.value = out;
  up.change([...path, 'env'], pair.key, 'a map of NAME: value became a list of {name, value}');
}

/** envFromList turns upstream's `envFrom: [{configMapRef: name}, {secretRef: name}]` into reference lists. */
export function envFromList(up: Upgrader, map: YAMLMap, path: Path): void {
  const pair = pairOf(map, 'envFrom');
  if (pair != null && isMap(pair.value)) {
    envFromNames(up, pair.value as YAMLMap, [...path, 'envFrom']);
    return;
  }
  if (pair == null || !isSeq(pair.value)) return;
  const items = (pair.value as YAMLSeq).items;
  const ok = items.every(
    (item) =>
      isMap(item) &&
      (item as YAMLMap).items.length >= 1 &&
      (item as YAMLMap).items.every((p) =>
        ['configMapRef', 'secretRef', 'prefix'].includes(keyOf(p as Pair) ?? ''),
      ),
  );
  if (!ok) return;
  const out = born(new YAMLMap(), pair.value);
  for (const item of items) {
    const prefix = pairOf(item as YAMLMap, 'prefix');
    for (const kind of ['configMapRef', 'secretRef']) {
      const ref = pairOf(item as YAMLMap, kind);
      if (ref == null) continue;
      let list = pairOf(out, kind)?.value as YAMLSeq | undefined;
      if (list == null) {
        list = born(new YAMLSeq(), ref.key);
        out.items.push(new Pair(scalar(kind, ref.key), list));
      }
      const refMap = isMap(ref.value) ? (ref.value as YAMLMap) : born(new YAMLMap(), ref.value);
      if (!isMap(ref.value)) refMap.items.push(new Pair(scalar('name', ref.value), ref.value));
      if (prefix != null && pairOf(refMap, 'prefix') == null) refMap.items.push(prefix);
      list.items.push(refMap);
    }
  }
  pair.value = out;
  up.change(
    [...path, 'envFrom'],
    pair.key,
    'a list of {configMapRef|secretRef: name} became reference lists',
  );
}

/** envFromNames turns an earlier upstream's `envFrom: {secretRef: [name, …]}` items (names, not maps) into `{name}` references. */
function envFromNames(up: Upgrader, envFrom: YAMLMap, path: Path): void {
  for (const kind of ['secretRef', 'configMapRef']) {
    const list = pairOf(envFrom, kind)?.value;
    if (!isSeq(list)) continue;
    (list as YAMLSeq).items.forEach((item, i) => {
      if (!isScalar(item)) return;
      const ref = born(new YAMLMap(), item);
      ref.items.push(new Pair(scalar('name', item), item));
      (list as YAMLSeq).items[i] = ref;
      up.change([...path, kind, i], item, 'a name became {name}');
    });
  }
}
