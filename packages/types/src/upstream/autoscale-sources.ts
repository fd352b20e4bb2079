/**
 * Upstream's `autoscale.conditions.when[].source` (docs/reference/katalog.md §18.2, ADR 0065): a
 * condition on `cross.<name>.…` may carry the peer it is read from. Orkestra keeps the peers of an
 * autoscale block in one list, `autoscale.sources`, each named by `as` (the `<name>` the conditions
 * read); the `source` map is mapped as a cross read's (`host` → `endpoint`, `type`/`protocol` →
 * `protocol`, `endpoint` → `url`, `token: $VAR` → `auth.env`) and moved there.
 */
import { YAMLMap as YamlMap, YAMLSeq as YamlSeq, isMap, isSeq } from 'yaml';
import type { Pair, YAMLMap, YAMLSeq } from 'yaml';
import { crossSource } from './cross-source.js';
import { born, mapAt, pairOf, place, scalar, scalarText, takeOut } from './nodes.js';
import type { Path } from './nodes.js';
import type { Upgrader } from './upgrader.js';

/** The condition lists of an autoscale block that may hold a `source`. */
const LISTS = ['when', 'or', 'anyOf'] as const;

/** upgradeAutoscaleSources moves every condition `source` of an (already moved) `autoscale` map into `autoscale.sources`. */
export function upgradeAutoscaleSources(up: Upgrader, autoscale: YAMLMap, path: Path): void {
  const gates: [YAMLMap, Path][] = [];
  const conditions = mapAt(autoscale, 'conditions');
  if (conditions != null) gates.push([conditions, [...path, 'conditions']]);
  const rules = pairOf(autoscale, 'rules')?.value;
  if (isSeq(rules))
    (rules as YAMLSeq).items.forEach((rule, i) => {
      if (isMap(rule)) gates.push([rule as YAMLMap, [...path, 'rules', i]]);
    });
  for (const [gate, gatePath] of gates) {
    for (const list of LISTS) {
      const items = pairOf(gate, list)?.value;
      if (!isSeq(items)) continue;
      (items as YAMLSeq).items.forEach((condition, i) => {
        if (!isMap(condition)) return;
        const sourcePair = pairOf(condition as YAMLMap, 'source');
        if (sourcePair == null) return;
        moveSource(up, condition as YAMLMap, sourcePair, [...gatePath, list, i], {
          list: () => listOf(autoscale, 'sources', sourcePair.key),
          where: 'autoscale.sources',
        });
      });
    }
  }
}

/** The child lists whose items may carry a workload `autoscale` (docs/reference/katalog.md §18.4). */
const WORKLOADS = ['deployments', 'statefulSets', 'replicaSets'] as const;

/**
 * upgradeWorkloadAutoscaleSources moves every condition `source` of a child's workload `autoscale`
 * into the entry's `operatorBox.cross` (named by `as`): workload autoscale runs in a CR's reconcile,
 * so its peer is read per CR like any cross read, and a Secret without a namespace is the CR's
 * (ADR 0079). Call it once the phases sit under the operatorBox.
 */
export function upgradeWorkloadAutoscaleSources(up: Upgrader, box: YAMLMap, boxPath: Path): void {
  for (const phasePair of box.items) {
    const phase = keyOfPair(phasePair);
    if (phase == null || !isMap(phasePair.value)) continue;
    for (const list of WORKLOADS) {
      const items = pairOf(phasePair.value as YAMLMap, list)?.value;
      if (!isSeq(items)) continue;
      (items as YAMLSeq).items.forEach((item, i) => {
        const autoscale = isMap(item) ? mapAt(item as YAMLMap, 'autoscale') : undefined;
        if (autoscale == null) return;
        for (const direction of ['scaleUp', 'scaleDown']) {
          const conditions = mapAt(mapAt(autoscale, direction), 'conditions');
          if (conditions == null) continue;
          const path = [...boxPath, phase, list, i, 'autoscale', direction, 'conditions'];
          for (const listKey of LISTS) {
            const conditionItems = pairOf(conditions, listKey)?.value;
            if (!isSeq(conditionItems)) continue;
            (conditionItems as YAMLSeq).items.forEach((condition, j) => {
              if (!isMap(condition)) return;
              const sourcePair = pairOf(condition as YAMLMap, 'source');
              if (sourcePair == null) return;
              moveSource(up, condition as YAMLMap, sourcePair, [...path, listKey, j], {
                list: () => listOf(box, 'cross', sourcePair.key),
                where: 'operatorBox.cross',
              });
            });
          }
        }
      });
    }
  }
}

function keyOfPair(pair: unknown): string | undefined {
  const key = (pair as Pair).key;
  return scalarText(key);
}

function moveSource(
  up: Upgrader,
  condition: YAMLMap,
  sourcePair: Pair,
  path: Path,
  target: { readonly list: () => YAMLSeq; readonly where: string },
): void {
  const field = scalarText(pairOf(condition, 'field')?.value) ?? '';
  const name = /^cross\.([^.]+)\./.exec(field)?.[1];
  takeOut(condition, sourcePair);
  if (name == null || !isMap(sourcePair.value)) {
    up.problem(
      [...path, 'source'],
      sourcePair.key,
      'a condition `source` applies only to a `cross.<name>.…` field (the peer that field is read from)',
    );
    return;
  }
  const source = sourcePair.value as YAMLMap;
  const sources = target.list();
  if (
    sources.items.some((item) => isMap(item) && scalarText(pairOf(item as YAMLMap, 'as')?.value) === name)
  ) {
    up.change([...path, 'source'], sourcePair.key, `dropped: ${target.where} already reads cross.${name}`);
    return;
  }
  const read = born(new YamlMap(), sourcePair.key);
  read.set(scalar('as', sourcePair.key), scalar(name, sourcePair.value));
  const crd = pairOf(source, 'crd');
  if (crd != null) takeOut(source, crd);
  read.set(scalar('crd', sourcePair.key), crd?.value ?? scalar(name, sourcePair.value));
  read.items.push(sourcePair);
  if (!crossSource(up, read, [...path])) return;
  sources.items.push(read);
  up.change([...path, 'source'], sourcePair.key, `moved to ${target.where} (as: ${name})`);
}

function listOf(map: YAMLMap, key: string, near: unknown): YAMLSeq {
  const existing = pairOf(map, key)?.value;
  if (isSeq(existing)) return existing as YAMLSeq;
  const seq = born(new YamlSeq(), near);
  const holder = born(new YamlMap(), near);
  holder.set(scalar(key, near), seq);
  place(map, holder.items[0] as Pair);
  return seq;
}
