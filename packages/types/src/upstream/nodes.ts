/**
 * YAML-node helpers of the upstream dialect: find, move and create nodes so that each keeps (or
 * borrows) the source range of what the user wrote (docs/reference/katalog.md §24, ADR 0036).
 */
import { isMap, isPair, isScalar, isSeq, Pair, Scalar, YAMLMap, YAMLSeq } from 'yaml';
import type { Node as YamlNode } from 'yaml';

export type Path = readonly (string | number)[];

export function keyOf(pair: Pair): string | undefined {
  return isScalar(pair.key) ? String(pair.key.value) : undefined;
}

export function pairOf(map: YAMLMap, key: string): Pair | undefined {
  return map.items.find((pair): pair is Pair => isPair(pair) && keyOf(pair as Pair) === key) as
    Pair | undefined;
}

export function mapAt(map: YAMLMap | undefined, key: string): YAMLMap | undefined {
  const value = map == null ? undefined : pairOf(map, key)?.value;
  return isMap(value) ? (value as YAMLMap) : undefined;
}

export function rangeOf(node: unknown): [number, number, number] | undefined {
  const range = (node as YamlNode | null)?.range;
  return range == null ? undefined : [range[0], range[1], range[2]];
}

/** born gives a created node (and its created children) the range of the node it replaces. */
export function born<T extends YamlNode>(node: T, from: unknown): T {
  const range = rangeOf(from);
  if (range == null) return node;
  const visit = (n: unknown): void => {
    if (n == null || typeof n !== 'object') return;
    const yamlNode = n as YamlNode;
    if (yamlNode.range == null) yamlNode.range = range;
    if (isMap(n) || isSeq(n))
      for (const item of (n as YAMLMap | YAMLSeq).items) {
        if (isPair(item)) {
          visit((item as Pair).key);
          visit((item as Pair).value);
        } else visit(item);
      }
  };
  visit(node);
  return node;
}

/**
 * place puts a pair into a map: at `index` when given, else before the `operatorBox` key (entry-level
 * keys read best above the box), else at the end.
 */
export function place(map: YAMLMap, pair: Pair, index?: number): void {
  const box = map.items.findIndex((item) => keyOf(item as Pair) === 'operatorBox');
  const at = index ?? (box >= 0 && keyOf(pair) !== 'operatorBox' ? box : map.items.length);
  map.items.splice(at, 0, pair);
}

/** takeOut removes a pair from its map; a comment above the map's first key travels with the pair. */
export function takeOut(map: YAMLMap, pair: Pair): number {
  const index = map.items.indexOf(pair);
  if (index === 0 && map.commentBefore != null) {
    const key = pair.key as YamlNode | null;
    if (key != null)
      key.commentBefore =
        key.commentBefore == null ? map.commentBefore : `${map.commentBefore}\n${key.commentBefore}`;
    map.commentBefore = null;
  }
  map.items.splice(index, 1);
  return index;
}

/** keepComment moves the comment above a removed pair onto the pair that now takes its place. */
export function keepComment(map: YAMLMap, index: number, removed: Pair): void {
  const comment = (removed.key as YamlNode | null)?.commentBefore;
  if (comment == null) return;
  const heir = map.items[index] as Pair | undefined;
  const heirKey = heir?.key as YamlNode | undefined;
  if (heirKey != null)
    heirKey.commentBefore = heirKey.commentBefore == null ? comment : `${comment}\n${heirKey.commentBefore}`;
}

export function scalar(value: unknown, from: unknown): Scalar {
  return born(new Scalar(value), from);
}

/** shift moves every range of a parsed tree by `base` (see IncludedFile). */
export function shift(node: unknown, base: number): void {
  if (node == null || typeof node !== 'object') return;
  const yamlNode = node as YamlNode;
  if (yamlNode.range != null)
    yamlNode.range = [yamlNode.range[0] + base, yamlNode.range[1] + base, yamlNode.range[2] + base];
  if (isMap(node) || isSeq(node))
    for (const item of (node as YAMLMap | YAMLSeq).items) {
      if (isPair(item)) {
        shift((item as Pair).key, base);
        shift((item as Pair).value, base);
      } else shift(item, base);
    }
}

export function formatPath(path: Path): string {
  let out = '';
  for (const segment of path) {
    if (typeof segment === 'number') out += `[${segment}]`;
    else out += out === '' ? segment : `.${segment}`;
  }
  return out;
}

/** at is a stand-in node for a position known only by its offset. */
export function at(offset: number): { range: [number, number, number] } {
  return { range: [offset, offset, offset] };
}

export function walkScalars(node: unknown, visit: (node: Scalar) => void): void {
  if (isScalar(node)) visit(node);
  else if (isMap(node)) for (const pair of (node as YAMLMap).items) walkScalars((pair as Pair).value, visit);
  else if (isSeq(node)) for (const item of (node as YAMLSeq).items) walkScalars(item, visit);
}

/** scalarOrNode builds a YAML node for a plain JS value, positioned at `from`. */
export function scalarOrNode(value: unknown, from: unknown): YamlNode {
  if (Array.isArray(value)) {
    const seq = born(new YAMLSeq(), from);
    for (const item of value) seq.items.push(scalarOrNode(item, from));
    return seq;
  }
  if (value !== null && typeof value === 'object') {
    const map = born(new YAMLMap(), from);
    for (const [k, v] of Object.entries(value))
      map.items.push(new Pair(scalar(k, from), scalarOrNode(v, from)));
    return map;
  }
  return scalar(value, from);
}

/** scalarText is a scalar node's value as a string, or undefined for anything else. */
export function scalarText(node: unknown): string | undefined {
  return isScalar(node) && node.value != null ? String(node.value) : undefined;
}

/** flowList builds a one-line list of strings (`[ReadWriteOnce]`), positioned at `from`. */
export function flowList(values: readonly string[], from: unknown): YAMLSeq {
  const seq = born(new YAMLSeq(), from);
  for (const value of values) seq.items.push(scalar(value, from));
  seq.flow = true;
  return seq;
}

export function walk(node: unknown, path: Path, visit: (map: YAMLMap, path: Path) => void): void {
  if (isMap(node)) {
    visit(node as YAMLMap, path);
    for (const pair of (node as YAMLMap).items) {
      const key = keyOf(pair as Pair);
      if (key != null) walk((pair as Pair).value, [...path, key], visit);
    }
  } else if (isSeq(node)) {
    (node as YAMLSeq).items.forEach((item, i) => walk(item, [...path, i], visit));
  }
}
