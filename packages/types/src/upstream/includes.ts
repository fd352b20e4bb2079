/**
 * Files read beside the Katalog: `include:` of rules, status fields and reconciler blocks, and
 * `crdFile` (apiTypes, schema and scope read from a CRD manifest).
 */
import { isScalar, isSeq, Pair, parseDocument, YAMLMap, YAMLSeq } from 'yaml';
import { readFileSync } from 'node:fs';
import { isAbsolute, resolve } from 'node:path';
import { born, keepComment, keyOf, mapAt, pairOf, place, scalar, scalarOrNode, takeOut } from './nodes.js';
import type { Path } from './nodes.js';
import { checkYamlText } from '../yaml-input.js';
import type { UpgradeDialectOptions, Upgrader } from './upgrader.js';

/** includeList prepends the `listKey` list of an included file to the block's own list (upstream's order). */
function includeList(up: Upgrader, map: YAMLMap | undefined, path: Path, listKey: string): void {
  const pair = map == null ? undefined : pairOf(map, 'include');
  if (map == null || pair == null || !isScalar(pair.value)) return;
  const file = String(pair.value.value);
  takeOut(map, pair);
  const root = up.readYaml(file, [...path, 'include'], pair.value, 'include');
  if (root == null) return;
  const included = pairOf(root, listKey)?.value;
  const own = pairOf(map, listKey);
  const merged = born(new YAMLSeq(), pair.value);
  if (isSeq(included)) merged.items.push(...(included as YAMLSeq).items);
  if (own != null && isSeq(own.value)) merged.items.push(...(own.value as YAMLSeq).items);
  if (own != null) own.value = merged;
  else map.items.push(new Pair(scalar(listKey, pair.key), merged));
  up.change([...path, 'include'], pair.key, `inlined ${merged.items.length} ${listKey} from ${file}`);
}

/** includeBlock merges the `blockKey` block of an included file under the block itself (inline keys win). */
function includeBlock(up: Upgrader, map: YAMLMap | undefined, path: Path, blockKey: string): void {
  const pair = map == null ? undefined : pairOf(map, 'include');
  if (map == null || pair == null || !isScalar(pair.value)) return;
  const file = String(pair.value.value);
  takeOut(map, pair);
  const root = up.readYaml(file, [...path, 'include'], pair.value, 'include');
  const block = root == null ? undefined : mapAt(root, blockKey);
  if (block == null) {
    if (root != null)
      up.problem([...path, 'include'], pair.value, `include ${file} has no \`${blockKey}:\` block`);
    return;
  }
  for (const item of block.items) {
    const key = keyOf(item as Pair);
    if (key != null && pairOf(map, key) == null) map.items.push(item);
  }
  up.change([...path, 'include'], pair.key, `merged ${blockKey}: from ${file}`);
}

export function expandIncludes(up: Upgrader, entry: YAMLMap, base: Path): void {
  const admission = mapAt(entry, 'admission');
  const box = mapAt(entry, 'operatorBox');
  includeList(up, mapAt(entry, 'validation'), [...base, 'validation'], 'rules');
  includeList(up, mapAt(entry, 'mutation'), [...base, 'mutation'], 'rules');
  includeList(up, mapAt(admission, 'validation'), [...base, 'admission', 'validation'], 'rules');
  includeList(up, mapAt(admission, 'mutation'), [...base, 'admission', 'mutation'], 'rules');
  includeList(up, mapAt(entry, 'conversion'), [...base, 'conversion'], 'paths');
  includeList(up, mapAt(admission, 'conversion'), [...base, 'admission', 'conversion'], 'paths');
  includeList(up, mapAt(box, 'status'), [...base, 'operatorBox', 'status'], 'fields');
  includeList(up, mapAt(mapAt(box, 'emit'), 'status'), [...base, 'operatorBox', 'emit', 'status'], 'fields');
  includeBlock(up, mapAt(entry, 'reconciler'), [...base, 'reconciler'], 'reconciler');
  includeBlock(up, mapAt(box, 'reconciler'), [...base, 'operatorBox', 'reconciler'], 'reconciler');
  includeBlock(up, mapAt(box, 'reconcile'), [...base, 'operatorBox', 'reconcile'], 'reconcile');
}

export function upgradeCrdFile(
  up: Upgrader,
  entry: YAMLMap,
  base: Path,
  options: UpgradeDialectOptions,
): void {
  const pair = pairOf(entry, 'crdFile');
  if (pair == null) return;
  const path = [...base, 'crdFile'];
  const file = isScalar(pair.value) ? String(pair.value.value) : '';
  const at = entry.items.indexOf(pair);
  entry.items.splice(at, 1);
  keepComment(entry, at, pair);
  if (/^https?:\/\//.test(file)) {
    up.change(
      path,
      pair.key,
      'removed: a remote CRD file is not fetched; declare apiTypes and schema inline',
    );
    return;
  }
  if (options.baseDir == null) {
    up.change(path, pair.key, 'removed: no directory to read it from (inline text)');
    return;
  }
  const full = isAbsolute(file) ? file : resolve(options.baseDir, file);
  let crd: unknown;
  try {
    const text = (options.readFile ?? ((p: string) => readFileSync(p, 'utf8')))(full);
    const checked = checkYamlText(text);
    if (!checked.ok) throw new Error(checked.problem.message);
    crd = parseDocument(text).toJS();
  } catch (error) {
    up.problem(
      path,
      pair.value,
      `cannot read crdFile ${file}: ${error instanceof Error ? error.message : String(error)}`,
    );
    return;
  }
  const crdSpec = (crd as { spec?: Record<string, unknown> } | null)?.spec;
  if (crdSpec == null) {
    up.problem(path, pair.value, `crdFile ${file} holds no CustomResourceDefinition spec`);
    return;
  }
  const names = (crdSpec['names'] ?? {}) as Record<string, unknown>;
  const versions = Array.isArray(crdSpec['versions'])
    ? (crdSpec['versions'] as Record<string, unknown>[])
    : [];
  const version = versions.find((v) => v['storage'] === true) ?? versions[0];
  let apiTypes = mapAt(entry, 'apiTypes');
  if (apiTypes == null) {
    apiTypes = born(new YAMLMap(), pair.value);
    entry.items.splice(at, 0, new Pair(scalar('apiTypes', pair.key), apiTypes));
  }
  const target = apiTypes;
  const filled: string[] = [];
  const fill = (key: string, value: unknown): void => {
    if (value == null || pairOf(target, key) != null) return;
    target.items.push(new Pair(scalar(key, pair.key), scalarOrNode(value, pair.value)));
    filled.push(`apiTypes.${key}`);
  };
  fill('group', crdSpec['group']);
  fill('version', version?.['name']);
  fill('kind', names['kind']);
  fill('plural', names['plural']);
  fill('singular', names['singular']);
  fill('shortNames', names['shortNames']);
  const schema = (version?.['schema'] as Record<string, unknown> | undefined)?.['openAPIV3Schema'];
  if (schema != null && pairOf(entry, 'schema') == null) {
    const node = born(new YAMLMap(), pair.value);
    node.items.push(new Pair(scalar('openAPIV3Schema', pair.key), scalarOrNode(schema, pair.value)));
    entry.items.splice(
      entry.items.indexOf(pairOf(entry, 'apiTypes') as Pair) + 1,
      0,
      new Pair(scalar('schema', pair.key), node),
    );
    filled.push('schema');
  }
  if (crdSpec['scope'] === 'Cluster' && pairOf(entry, 'namespaced') == null) {
    place(entry, new Pair(scalar('namespaced', pair.key), scalar(false, pair.value)));
    filled.push('namespaced: false');
  }
  up.change(path, pair.key, `read ${file} into ${filled.length > 0 ? filled.join(', ') : 'nothing new'}`);
}
