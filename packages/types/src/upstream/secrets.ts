/**
 * Upstream's Secret and ConfigMap copy (`fromSecret`/`fromConfigMap` and `fromNamespace` →
 * `copyFrom`) and `toNamespaces` (one entry per namespace, or forEach over a CR field;
 * docs/reference/katalog.md §7.2, ADR 0115).
 */
import { isMap, isScalar, isSeq, Pair, YAMLMap, YAMLSeq } from 'yaml';
import { born, pairOf, scalar, takeOut } from './nodes.js';
import type { Path } from './nodes.js';
import type { Upgrader } from './upgrader.js';

/** The upstream key naming the source of a copy, by list (fromNamespace is shared). */
const COPY_SOURCE_KEYS = {
  secrets: { key: 'fromSecret', kind: 'Secret' },
  configMaps: { key: 'fromConfigMap', kind: 'ConfigMap' },
} as const;

/**
 * upstreamCopy maps upstream's `fromSecret` (secrets) or `fromConfigMap` (configMaps), with
 * `fromNamespace`, onto the canonical `copyFrom: {name, namespace}` of the entry
 * (docs/reference/katalog.md §7.2, ADR 0115).
 */
export function upstreamCopy(
  up: Upgrader,
  entry: YAMLMap,
  path: Path,
  listKey: keyof typeof COPY_SOURCE_KEYS,
): void {
  const { key, kind } = COPY_SOURCE_KEYS[listKey];
  const from = pairOf(entry, key);
  const fromNamespace = pairOf(entry, 'fromNamespace');
  if (from == null) {
    if (fromNamespace != null)
      up.problem(
        [...path, 'fromNamespace'],
        fromNamespace.key,
        `\`fromNamespace\` needs \`${key}\` (the ${kind} to copy)`,
      );
    return;
  }
  if (pairOf(entry, 'copyFrom') != null) {
    up.problem([...path, key], from.key, `\`${key}\` and \`copyFrom\` are the same thing; keep one`);
    return;
  }
  const at = entry.items.indexOf(from);
  const copyFrom = born(new YAMLMap(), from.key);
  entry.items.splice(at, 1);
  copyFrom.items.push(new Pair(scalar('name', from.key), from.value));
  if (fromNamespace != null) {
    entry.items.splice(entry.items.indexOf(fromNamespace), 1);
    copyFrom.items.push(new Pair(scalar('namespace', fromNamespace.key), fromNamespace.value));
  }
  entry.items.splice(at, 0, new Pair(scalar('copyFrom', from.key), copyFrom));
  up.change(
    [...path, key],
    from.key,
    `moved to copyFrom.name${fromNamespace == null ? '' : ' (fromNamespace to copyFrom.namespace)'}`,
  );
}

/** isCopyList tells whether a list key has upstream's copy keys (secrets, configMaps). */
export function isCopyList(listKey: string): listKey is keyof typeof COPY_SOURCE_KEYS {
  return Object.hasOwn(COPY_SOURCE_KEYS, listKey);
}

/**
 * expandToNamespaces turns a secrets or configMaps entry with upstream's `toNamespaces: [a, b]` into one entry
 * per namespace (`namespace: a`, `namespace: b`), the clones keeping the original's source ranges.
 * A templated namespace gets the gate `{field: <template>, exists: true}`, so an item that renders
 * empty is skipped, as upstream skips it. A single item that is a whole field of the CR
 * (`{{ .spec.targetNamespaces }}`) is read as the list of namespaces: `forEach` over that field.
 */
export function expandToNamespaces(up: Upgrader, list: YAMLSeq, listPath: Path): void {
  for (let i = list.items.length - 1; i >= 0; i--) {
    const entry = list.items[i];
    if (!isMap(entry)) continue;
    const pair = pairOf(entry as YAMLMap, 'toNamespaces');
    if (pair == null) continue;
    const path = [...listPath, i, 'toNamespaces'];
    if (!isSeq(pair.value) || (pair.value as YAMLSeq).items.length === 0) {
      up.problem(path, pair.value, '`toNamespaces` is a non-empty list of namespaces');
      takeOut(entry as YAMLMap, pair);
      continue;
    }
    if (pairOf(entry as YAMLMap, 'namespace') != null) {
      up.problem(path, pair.key, '`toNamespaces` and `namespace` are exclusive; keep one');
      takeOut(entry as YAMLMap, pair);
      continue;
    }
    if (pairOf(entry as YAMLMap, 'forEach') != null) {
      up.problem(
        path,
        pair.key,
        '`toNamespaces` on an entry with `forEach` cannot be mapped; declare one entry per namespace',
      );
      takeOut(entry as YAMLMap, pair);
      continue;
    }
    const targets = (pair.value as YAMLSeq).items;
    const listField = targets.length === 1 ? wholePath(targets[0]) : undefined;
    if (listField != null) {
      // One item that is a whole field of the CR (`- "{{ .spec.targetNamespaces }}"`): upstream
      // copies into each namespace that field lists, so it becomes a forEach over the field.
      const target = targets[0];
      const at = takeOut(entry as YAMLMap, pair);
      const forEach = born(new YAMLMap(), target);
      forEach.flow = true;
      forEach.items.push(new Pair(scalar('field', target), scalar(listField, target)));
      (entry as YAMLMap).items.splice(
        at,
        0,
        new Pair(scalar('forEach', pair.key), forEach),
        new Pair(scalar('namespace', pair.key), scalar('{{ .item }}', target)),
      );
      up.change(path, pair.key, `became forEach over ${listField}, one copy per namespace it lists`);
      continue;
    }
    takeOut(entry as YAMLMap, pair);
    const clones = targets.map((target) => {
      const clone = (entry as YAMLMap).clone() as YAMLMap;
      clone.items.push(new Pair(scalar('namespace', pair.key), target));
      const value = isScalar(target) ? target.value : undefined;
      if (typeof value === 'string' && value.includes('{{')) {
        const gate = born(new YAMLMap(), target);
        gate.items.push(new Pair(scalar('field', target), scalar(value, target)));
        gate.items.push(new Pair(scalar('exists', target), scalar(true, target)));
        const when = pairOf(clone, 'when');
        if (when != null && isSeq(when.value)) (when.value as YAMLSeq).items.push(gate);
        else if (when == null) {
          const seq = born(new YAMLSeq(), target);
          seq.items.push(gate);
          clone.items.push(new Pair(scalar('when', pair.key), seq));
        }
      }
      return clone;
    });
    list.items.splice(i, 1, ...clones);
    up.change(
      path,
      pair.key,
      `became ${clones.length} ${clones.length === 1 ? 'entry' : 'entries'}, one per namespace`,
    );
  }
}

/** wholePath is `spec.x.y` for a scalar that is exactly `{{ .spec.x.y }}`, else undefined. */
function wholePath(node: unknown): string | undefined {
  const value = isScalar(node) ? node.value : undefined;
  if (typeof value !== 'string') return undefined;
  return /^\{\{-?\s*\.((?:spec|metadata|status)(?:\.[A-Za-z_][A-Za-z0-9_]*)+)\s*-?\}\}$/.exec(value)?.[1];
}
