import { compileValue } from '@orkestra/template';
import type { CompiledValue } from '@orkestra/template';
import { goFieldKey, storedVersionOf } from '@orkestra/types';
import type { ConversionPath, ConversionRule, CrdEntry } from '@orkestra/types';
import { isMap } from '../is-map.js';

/**
 * Conversion of one entry's objects between its versions (docs/reference/katalog.md §3.4,
 * ADR 0056). A step is a declared path: a template `spec` (upstream's form) or declarative
 * `rules`, whose inverse is the opposite step when that one is not declared. Two versions without
 * a step between them convert through the storage version.
 *
 * Rules are lossless by design: what a step cannot carry (a dropped field, a target-only field
 * whose value the other direction would not reproduce) is kept in the annotation
 * `conversion.orkestra.konductor.io/<version>` of the object and restored when the object converts
 * back to that version, so A → B → A is the identity for every object.
 */

type Json = Record<string, unknown>;

/** STASH_PREFIX prefixes the annotation holding the fields of one version with no home in another. */
export const STASH_PREFIX = 'conversion.orkestra.konductor.io/';

/** ConversionError is a conversion the entry's paths cannot make. */
export class ConversionError extends Error {
  readonly code = 'ConversionFailed';
  constructor(message: string) {
    super(message);
    this.name = 'ConversionError';
  }
}

/** Stash is what one step kept aside: values to set back, and fields to remove again. */
interface Stash {
  set: Record<string, unknown>;
  absent: string[];
  /**
   * A template step's: what the way back renders at each kept path when the object did not change
   * at the other version (a path not named: nothing). A kept value is put back only then.
   */
  expect?: Record<string, unknown>;
  /** What was kept of list items with an identity, found again by it (not by index). */
  items: ItemStash[];
}

/** ItemStash is what was kept of one list item, with the key values naming the item. */
interface ItemStash {
  /** The list's path in the version owning the stash. */
  list: string;
  /** The item's key fields (dot paths inside the item) and their values. */
  key: Record<string, unknown>;
  /** Fields inside the item to set back, and to remove again. */
  set: Record<string, unknown>;
  absent: string[];
}

interface Step {
  apply(object: Json, from: string, to: string): Json;
}

function splitPath(path: string): string[] {
  return path.split('.');
}

/** child returns the node under `key`: a map's key or, for a list, the item at a decimal index. */
function child(node: unknown, key: string): { value: unknown } | undefined {
  if (isMap(node)) return Object.hasOwn(node, key) ? { value: node[key] } : undefined;
  if (Array.isArray(node) && /^\d+$/.test(key) && Number(key) < node.length)
    return { value: node[Number(key)] as unknown };
  return undefined;
}

function has(root: Json, path: string): boolean {
  let node: unknown = root;
  for (const key of splitPath(path)) {
    const next = child(node, key);
    if (next == null) return false;
    node = next.value;
  }
  return true;
}

function get(root: Json, path: string): unknown {
  let node: unknown = root;
  for (const key of splitPath(path)) node = child(node, key)?.value;
  return node;
}

/** set writes a value, creating the maps on the way; a list index past the list's end writes nothing. */
function set(root: Json, path: string, value: unknown): void {
  const keys = splitPath(path);
  let node: unknown = root;
  for (const [i, key] of keys.entries()) {
    const last = i === keys.length - 1;
    if (Array.isArray(node)) {
      const index = Number(key);
      if (!/^\d+$/.test(key) || index >= node.length) return;
      if (last) node[index] = value;
      else if (!isMap(node[index]) && !Array.isArray(node[index])) node[index] = {};
      node = node[index] as unknown;
    } else if (isMap(node)) {
      if (last) node[key] = value;
      else if (!isMap(node[key]) && !Array.isArray(node[key])) node[key] = {};
      node = node[key];
    } else return;
  }
}

/** remove deletes a field and the maps below spec/status it leaves empty (never a list's item). */
function remove(root: Json, path: string): void {
  const keys = splitPath(path);
  const chain: unknown[] = [root];
  for (const key of keys.slice(0, -1)) {
    const next = child(chain[chain.length - 1], key);
    if (next == null) return;
    chain.push(next.value);
  }
  const parent = chain[chain.length - 1];
  if (!isMap(parent)) return;
  delete parent[keys[keys.length - 1] as string];
  for (let i = chain.length - 1; i >= 2; i--) {
    const node = chain[i];
    const above = chain[i - 1];
    if (!isMap(node) || Object.keys(node).length > 0 || !isMap(above)) break;
    delete above[keys[i - 1] as string];
  }
}

function sameJson(a: unknown, b: unknown): boolean {
  return canonical(a) === canonical(b);
}

function canonical(value: unknown): string {
  return JSON.stringify(value, (_key, v: unknown) =>
    isMap(v) ? Object.fromEntries(Object.entries(v).sort(([x], [y]) => (x < y ? -1 : 1))) : v,
  );
}

function annotationsOf(object: Json): Json | undefined {
  const metadata = object['metadata'];
  return isMap(metadata) && isMap(metadata['annotations']) ? metadata['annotations'] : undefined;
}

/** takeStash removes and returns the stash an object holds for `version`. */
function takeStash(object: Json, version: string): Stash | undefined {
  const annotations = annotationsOf(object);
  const raw = annotations?.[STASH_PREFIX + version];
  if (annotations == null || typeof raw !== 'string') return undefined;
  delete annotations[STASH_PREFIX + version];
  if (Object.keys(annotations).length === 0) delete (object['metadata'] as Json)['annotations'];
  try {
    const parsed = JSON.parse(raw) as unknown;
    if (!isMap(parsed)) return undefined;
    const items = Array.isArray(parsed['items']) ? parsed['items'] : [];
    return {
      ...setAndAbsent(parsed),
      ...(isMap(parsed['expect']) ? { expect: parsed['expect'] } : {}),
      items: items.flatMap((item: unknown) =>
        isMap(item) && typeof item['list'] === 'string' && isMap(item['key'])
          ? [{ list: item['list'], key: item['key'], ...setAndAbsent(item) }]
          : [],
      ),
    };
  } catch {
    return undefined; // an edited annotation that is not JSON restores nothing
  }
}

function setAndAbsent(body: Json): { set: Record<string, unknown>; absent: string[] } {
  return {
    set: isMap(body['set']) ? body['set'] : {},
    absent: Array.isArray(body['absent'])
      ? body['absent'].filter((p): p is string => typeof p === 'string')
      : [],
  };
}

function bodyOf(part: { set: Record<string, unknown>; absent: readonly string[] }): Json {
  const body: Json = {};
  if (Object.keys(part.set).length > 0) body['set'] = part.set;
  if (part.absent.length > 0) body['absent'] = [...part.absent].sort();
  return body;
}

function putStash(object: Json, version: string, stash: Stash): void {
  if (Object.keys(stash.set).length === 0 && stash.absent.length === 0 && stash.items.length === 0) return;
  if (!isMap(object['metadata'])) object['metadata'] = {};
  const metadata = object['metadata'] as Json;
  if (!isMap(metadata['annotations'])) metadata['annotations'] = {};
  const body = bodyOf(stash);
  if (stash.expect != null && Object.keys(stash.expect).length > 0) body['expect'] = stash.expect;
  if (stash.items.length > 0)
    body['items'] = stash.items.map((item) => ({ list: item.list, key: item.key, ...bodyOf(item) }));
  (metadata['annotations'] as Json)[STASH_PREFIX + version] = canonical(body);
}

/** A rule of a rules path or of a `forEach` (whose fields are relative to the item). */
type Rule = ConversionRule | NonNullable<ConversionRule['forEach']>['rules'][number];

/** Maybe is a value, or undefined for no value (the field is left out). */
type Maybe = { value: unknown } | undefined;

/** ValueRule is a rule changing one field's value: its declared direction and the opposite. */
interface ValueRule {
  field: string;
  forward(value: unknown): Maybe;
  back(value: unknown): Maybe;
}

function wrapOf(key: string): (value: unknown) => Maybe {
  return (value) => ({ value: { [key]: value } });
}

function unwrapOf(key: string): (value: unknown) => Maybe {
  return (value) => (isMap(value) && Object.hasOwn(value, key) ? { value: value[key] } : undefined);
}

/** renameBy renames a string found in `map`; other values pass through. */
function renameBy(map: Record<string, string>): (value: unknown) => Maybe {
  return (value) => ({ value: typeof value === 'string' && Object.hasOwn(map, value) ? map[value] : value });
}

function valueRuleOf(rule: Rule): ValueRule | undefined {
  if (rule.wrap != null)
    return { field: rule.wrap.field, forward: wrapOf(rule.wrap.key), back: unwrapOf(rule.wrap.key) };
  if (rule.unwrap != null)
    return { field: rule.unwrap.field, forward: unwrapOf(rule.unwrap.key), back: wrapOf(rule.unwrap.key) };
  if (rule.enum != null) {
    const inverse: Record<string, string> = {};
    for (const [from, to] of Object.entries(rule.enum.map))
      if (!Object.hasOwn(inverse, to)) inverse[to] = from;
    Object.assign(inverse, rule.enum.back ?? {});
    return { field: rule.enum.field, forward: renameBy(rule.enum.map), back: renameBy(inverse) };
  }
  return undefined;
}

/** mapPath is where a field of the declared source lives after the declared moves. */
function mapPath(path: string, moves: readonly { from: string; to: string }[]): string {
  for (const m of moves) {
    if (path === m.from) return m.to;
    if (path.startsWith(`${m.from}.`)) return m.to + path.slice(m.from.length);
  }
  return path;
}

/** KeyedList is a list whose items have an identity in the source version: its path there and its key fields. */
interface KeyedList {
  readonly list: string;
  readonly keys: readonly string[];
}

/** Where rules run: the object's prefix of their fields now and after the step, and what they record. */
interface Scope {
  readonly inverse: boolean;
  /** The fields' prefix in the source object (a `forEach` item's path, or ''). */
  readonly source: string;
  /** The same prefix in the converted object. */
  readonly target: string;
  /** The key fields the source version's schema gives the list at a path (`x-kubernetes-list-map-keys`). */
  readonly schemaKeys: (list: string) => readonly string[] | undefined;
  /** What the step keeps aside, by path in the source object (`items` is filled later). */
  readonly kept: Stash;
  /** For a value a value rule kept aside: its path in the converted object (a restored value is not kept). */
  readonly keptAt: Map<string, string>;
  /** The lists whose items have an identity (their kept fields go by it). */
  readonly keyed: KeyedList[];
}

function isUnder(path: string, paths: ReadonlySet<string>): boolean {
  const keys = splitPath(path);
  for (let i = 1; i <= keys.length; i++) if (paths.has(keys.slice(0, i).join('.'))) return true;
  return false;
}

/**
 * runRules applies rules to an object going their declared way (`inverse`: the opposite way),
 * recording in `kept` what the other way could not rebuild, at its path in the source object. The
 * opposite way runs the same phases mirrored: target-only fields leave, value rules, moves
 * (backward); source-only fields leave, value rules, moves, target-only fields filled (forward).
 */
function runRules(object: Json, rules: readonly Rule[], scope: Scope): void {
  const { inverse, kept } = scope;
  const at = (path: string): string => scope.source + path;
  const declared = rules.flatMap((r) => {
    const m = r.rename ?? r.move;
    return m == null ? [] : [m];
  });
  // A value rule names its field in the declared source; the declared target has it moved.
  const sides = (field: string): { source: string; target: string } => {
    const moved = mapPath(field, declared);
    return inverse
      ? { source: scope.source + moved, target: scope.target + field }
      : { source: scope.source + field, target: scope.target + moved };
  };

  for (const rule of rules) {
    // Forward: `drop` leaves the source; backward: `default`/`constant` leave the target.
    const leaving = inverse ? (rule.default ?? rule.constant) : rule.drop;
    if (leaving == null) continue;
    const path = at(leaving.field);
    if (has(object, path)) {
      const value = get(object, path);
      const reproduced =
        inverse && rule.default != null
          ? sameJson(value, rule.default.value)
          : inverse && rule.constant != null && sameJson(value, rule.constant.value);
      if (!reproduced) kept.set[path] = value;
      remove(object, path);
    } else if (inverse) {
      kept.absent.push(path); // the forward step would add it
    }
  }

  for (const rule of rules) {
    if ('forEach' in rule && rule.forEach != null) {
      const list = sides(rule.forEach.field);
      const keys = itemKeysOf(rule.forEach, inverse) ?? scope.schemaKeys(list.source);
      if (keys != null) scope.keyed.push({ list: list.source, keys });
      const items = get(object, list.source);
      if (Array.isArray(items))
        for (let i = 0; i < items.length; i++)
          if (isMap(items[i]))
            runRules(object, rule.forEach.rules, {
              ...scope,
              source: `${list.source}.${i}.`,
              target: `${list.target}.${i}.`,
            });
      continue;
    }
    const valueRule = valueRuleOf(rule);
    if (valueRule == null) continue;
    const { source: path, target } = sides(valueRule.field);
    if (!has(object, path)) continue;
    const value = get(object, path);
    const [go, comeBack] = inverse
      ? [valueRule.back, valueRule.forward]
      : [valueRule.forward, valueRule.back];
    const out = go(value);
    const again = out == null ? undefined : comeBack(out.value);
    if (again == null || !sameJson(again.value, value)) {
      kept.set[path] = value;
      scope.keptAt.set(path, target);
    }
    if (out == null) remove(object, path);
    else set(object, path, out.value);
  }

  const moves = declared.map((m) =>
    inverse ? { from: at(m.to), to: at(m.from) } : { from: at(m.from), to: at(m.to) },
  );
  const values = moves.map((m) => (has(object, m.from) ? { value: get(object, m.from) } : undefined));
  moves.forEach((m) => remove(object, m.from));
  moves.forEach((m, i) => {
    const v = values[i];
    if (v != null) set(object, m.to, v.value);
  });

  if (!inverse)
    for (const rule of rules) {
      const filled = rule.default ?? rule.constant;
      if (filled == null) continue;
      const path = at(filled.field);
      if (rule.constant != null || !has(object, path)) set(object, path, structuredClone(filled.value));
    }
}

/**
 * itemKeysOf returns a `forEach` rule's declared key fields as the source version has them: as
 * written going the declared way, moved by the item's `rename`/`move` rules going back.
 */
function itemKeysOf(forEach: NonNullable<ConversionRule['forEach']>, inverse: boolean): string[] | undefined {
  if (forEach.key == null) return undefined;
  const keys = typeof forEach.key === 'string' ? [forEach.key] : forEach.key;
  if (!inverse) return keys;
  const moves = forEach.rules.flatMap((r) => {
    const m = r.rename ?? r.move;
    return m == null ? [] : [m];
  });
  return keys.map((k) => mapPath(k, moves));
}

/** identityOf is an item's key values, when it is a map with a scalar at every key field. */
function identityOf(item: unknown, keys: readonly string[]): Record<string, unknown> | undefined {
  if (!isMap(item)) return undefined;
  const identity: Record<string, unknown> = {};
  for (const key of keys) {
    if (!has(item, key)) return undefined;
    const value = get(item, key);
    if (typeof value !== 'string' && typeof value !== 'number' && typeof value !== 'boolean')
      return undefined;
    identity[key] = value;
  }
  return identity;
}

/**
 * byIdentity moves what was kept of the items of keyed lists from index paths
 * (`spec.ports.0.legacy`) to item stashes named by the item's key values. An item with no
 * identity, or one two items share, stays keyed by its index.
 */
function byIdentity(source: Json, kept: Stash, keyed: readonly KeyedList[]): void {
  for (const { list, keys } of keyed) {
    const items = get(source, list);
    if (!Array.isArray(items)) continue;
    const identities = items.map((item) => identityOf(item, keys));
    const counts = new Map<string, number>();
    for (const id of identities)
      if (id != null) counts.set(canonical(id), (counts.get(canonical(id)) ?? 0) + 1);
    identities.forEach((key, i) => {
      if (key == null || counts.get(canonical(key)) !== 1) return;
      const prefix = `${list}.${i}.`;
      const item: ItemStash = { list, key, set: {}, absent: [] };
      for (const [path, value] of Object.entries(kept.set))
        if (path.startsWith(prefix)) {
          item.set[path.slice(prefix.length)] = value;
          delete kept.set[path];
        }
      item.absent = kept.absent.filter((p) => p.startsWith(prefix)).map((p) => p.slice(prefix.length));
      kept.absent = kept.absent.filter((p) => !p.startsWith(prefix));
      if (Object.keys(item.set).length > 0 || item.absent.length > 0) kept.items.push(item);
    });
  }
}

/**
 * resolveItems turns item stashes into paths of the converted object: each goes to the one item
 * of its list with its key values; an item no longer there (removed at the other version, its
 * key changed) or not alone with them restores nothing.
 */
function resolveItems(object: Json, stash: Stash): { set: Record<string, unknown>; absent: string[] } {
  const out = { set: { ...stash.set }, absent: [...stash.absent] };
  for (const item of stash.items) {
    const list = get(object, item.list);
    if (!Array.isArray(list)) continue;
    const keys = Object.keys(item.key);
    const matches = list.flatMap((candidate, i) => {
      const id = identityOf(candidate, keys);
      return id != null && sameJson(id, item.key) ? [i] : [];
    });
    if (matches.length !== 1) continue;
    const prefix = `${item.list}.${String(matches[0])}.`;
    for (const [path, value] of Object.entries(item.set)) out.set[prefix + path] = value;
    for (const path of item.absent) out.absent.push(prefix + path);
  }
  return out;
}

/**
 * rulesStep applies declarative rules from `from` to `to` (`inverse` runs them from `to` to
 * `from`), then restores what the object's last step away from `to` kept aside. A value the step
 * restores came from there: it is not kept aside again.
 */
function rulesStep(rules: readonly ConversionRule[], inverse: boolean, keysOf: ListKeys): Step {
  return {
    apply(source, from, to) {
      const object = structuredClone(source);
      const restore = takeStash(object, to);
      const kept: Stash = { set: {}, absent: [], items: [] };
      const scope: Scope = {
        inverse,
        source: '',
        target: '',
        schemaKeys: (list) => keysOf(from, list),
        kept,
        keptAt: new Map(),
        keyed: [],
      };
      runRules(object, rules, scope);
      const restored = resolveItems(object, restore ?? { set: {}, absent: [], items: [] });
      const paths = new Set([...Object.keys(restored.set), ...restored.absent]);
      for (const [path, target] of scope.keptAt) if (isUnder(target, paths)) delete kept.set[path];
      for (const [path, value] of Object.entries(restored.set)) set(object, path, value);
      for (const path of restored.absent) remove(object, path);
      byIdentity(source, kept, scope.keyed);
      putStash(object, from, kept);
      return object;
    },
  };
}

/** ListKeys gives the key fields of the list at a path of a version's schema, if it has them. */
type ListKeys = (version: string, list: string) => readonly string[] | undefined;

/**
 * schemaListKeys reads `x-kubernetes-list-type: map` and `x-kubernetes-list-map-keys` at a list
 * of each version's schema (a version with no schema takes the entry's when it is `apiTypes.version`).
 */
function schemaListKeys(entry: CrdEntry): ListKeys {
  return (version, list) => {
    const declared = entry.versions?.find((v) => v.name === version)?.schema?.openAPIV3Schema;
    let node: unknown =
      declared ?? (version === entry.apiTypes.version ? entry.schema?.openAPIV3Schema : undefined);
    for (const key of splitPath(list)) {
      const properties = isMap(node) ? node['properties'] : undefined;
      node = isMap(properties) ? properties[key] : undefined;
    }
    if (!isMap(node) || node['x-kubernetes-list-type'] !== 'map') return undefined;
    const keys = node['x-kubernetes-list-map-keys'];
    return Array.isArray(keys) && keys.length > 0 && keys.every((k) => typeof k === 'string')
      ? (keys as string[])
      : undefined;
  };
}

/**
 * goContext is the context a conversion template renders over: a copy of the object where each
 * Go-struct path the template reads (`Spec.DatabaseEngine`, upstream's conversion page) also
 * answers under the names it writes, with the value of the key each names (katalog.md §3.4, ADR 0088). Below
 * the end of a path (inside `range` and `with`, whose item fields the paths do not list), each map
 * answers under every Go-struct name the template writes that names one of its keys.
 */
function goContext(object: Json, paths: readonly string[], names: readonly string[]): Json {
  const context = structuredClone(object);
  for (const path of paths) alias(context, splitPath(path), true, names);
  return context;
}

function alias(node: unknown, segments: readonly string[], top: boolean, names: readonly string[]): void {
  const [head, ...rest] = segments;
  if (head == null) {
    aliasBelow(node, names);
    return;
  }
  if (head === '*') {
    const children: unknown[] = Array.isArray(node) ? node : isMap(node) ? Object.values(node) : [];
    for (const item of children) alias(item, rest, false, names);
    return;
  }
  if (!isMap(node)) return;
  if (!Object.hasOwn(node, head)) {
    const named = top ? topLevelField(node, head) : fieldOf(node, head);
    if (named === undefined) return;
    node[head] = named;
  }
  alias(node[head], rest, false, names);
}

/** aliasBelow gives every map under a node the Go-struct names that name its keys. */
function aliasBelow(node: unknown, names: readonly string[]): void {
  if (names.length === 0) return;
  if (Array.isArray(node)) {
    for (const item of node) aliasBelow(item, names);
    return;
  }
  if (!isMap(node)) return;
  const keys = Object.keys(node);
  for (const name of names) {
    if (Object.hasOwn(node, name)) continue;
    const key = goFieldKey(name, keys);
    if (key != null) node[name] = node[key];
  }
  for (const key of keys) aliasBelow(node[key], names);
}

/** goNamesOf lists the Go-struct field names (`.PortName`) a template path's strings write. */
function goNamesOf(value: unknown, out: Set<string> = new Set()): string[] {
  if (typeof value === 'string')
    for (const m of value.matchAll(/\.(\p{Lu}[\p{L}\p{N}_]*)/gu)) out.add(m[1] as string);
  else if (Array.isArray(value)) for (const v of value) goNamesOf(v, out);
  else if (isMap(value)) for (const v of Object.values(value)) goNamesOf(v, out);
  return [...out];
}

function fieldOf(node: Json, segment: string): unknown {
  const key = goFieldKey(segment, Object.keys(node));
  return key == null ? undefined : node[key];
}

/** topLevelField reads a Go-struct name at the top of a CR: a root key, ObjectMeta, TypeMeta, or a promoted ObjectMeta field. */
function topLevelField(object: Json, segment: string): unknown {
  const root = fieldOf(object, segment);
  if (root !== undefined) return root;
  if (segment === 'ObjectMeta') return object['metadata'];
  if (segment === 'TypeMeta') return { apiVersion: object['apiVersion'], kind: object['kind'] };
  const metadata = object['metadata'];
  return isMap(metadata) ? fieldOf(metadata, segment) : undefined;
}

/** A template path's compiled spec and the Go-struct names its strings write. */
interface SpecTemplate {
  readonly compiled: CompiledValue;
  readonly names: readonly string[];
}

/** renderSpec renders a template path's spec over an object. */
function renderSpec(template: SpecTemplate, object: Json): Json {
  // A template writing no Go-struct name reads the object as it is.
  const context =
    template.names.length === 0
      ? object
      : goContext(object, template.compiled.referencedPaths, template.names);
  const rendered = template.compiled.render(context as never);
  return isMap(rendered) ? dropEmpty(rendered) : {};
}

/**
 * leavesOf lists the paths of a value's leaves under `prefix`: a list, an empty map, or a map with
 * a key a dot path cannot name (empty, or with a dot) is a leaf.
 */
function leavesOf(
  value: unknown,
  prefix: string,
  out: Map<string, unknown> = new Map(),
): Map<string, unknown> {
  if (isMap(value) && Object.keys(value).length > 0 && Object.keys(value).every((k) => /^[^.]+$/.test(k)))
    for (const [key, v] of Object.entries(value)) leavesOf(v, `${prefix}.${key}`, out);
  else if (value !== undefined) out.set(prefix, value);
  return out;
}

function sameMaybe(a: Maybe, b: Maybe): boolean {
  return a == null || b == null ? a == null && b == null : sameJson(a.value, b.value);
}

function at(object: Json, path: string): Maybe {
  return has(object, path) ? { value: get(object, path) } : undefined;
}

/**
 * keepForTemplate records what the way back (`back`, rendered over the converted object) would not
 * rebuild of the source's spec: a value it loses or changes is kept, a value it adds is kept as
 * absent, each with what the way back renders there, so the way back puts it right when the object
 * did not change there meanwhile. A way back that fails keeps every value, put back where it renders nothing.
 */
function keepForTemplate(source: Json, converted: Json, back: SpecTemplate | undefined): Stash {
  const kept: Stash = { set: {}, absent: [], expect: {}, items: [] };
  const expect = kept.expect as Record<string, unknown>;
  const before = leavesOf(source['spec'], 'spec');
  let again: Json | undefined;
  try {
    again = back == null ? undefined : { spec: renderSpec(back, converted) };
  } catch {
    again = undefined;
  }
  if (again == null) {
    for (const [path, value] of before) kept.set[path] = value;
    return kept;
  }
  for (const [path, value] of before) {
    const rebuilt = at(again, path);
    if (rebuilt != null && sameJson(rebuilt.value, value)) continue;
    kept.set[path] = value;
    if (rebuilt != null) expect[path] = rebuilt.value;
  }
  for (const [path, value] of leavesOf(again['spec'], 'spec'))
    if (!before.has(path) && !has(source, path)) {
      kept.absent.push(path);
      expect[path] = value;
    }
  return kept;
}

/** restoreTemplated puts back what a template step kept, where the object renders what the step expected. */
function restoreTemplated(object: Json, stash: Stash): void {
  const expect = stash.expect ?? {};
  for (const [path, value] of Object.entries(stash.set)) {
    const expected: Maybe = Object.hasOwn(expect, path) ? { value: expect[path] } : undefined;
    if (sameMaybe(at(object, path), expected)) set(object, path, structuredClone(value));
  }
  for (const path of stash.absent) {
    const now = at(object, path);
    if (now != null && Object.hasOwn(expect, path) && sameJson(now.value, expect[path])) remove(object, path);
  }
}

/**
 * templateStep renders upstream's `spec` template over the source object; metadata and status are
 * kept. What the opposite template (`back`) would not rebuild is kept in the stash annotation, so
 * a round trip through templates is the identity too.
 */
function templateStep(compiled: SpecTemplate, back: () => SpecTemplate | undefined): Step {
  return {
    apply(source, from, to) {
      const object = structuredClone(source);
      const restore = takeStash(object, to);
      object['spec'] = renderSpec(compiled, object);
      if (restore != null) restoreTemplated(object, restore);
      const kept = keepForTemplate(source, object, back());
      putStash(object, from, kept);
      return object;
    },
  };
}

/** dropEmpty leaves out keys whose template rendered nothing (upstream writes no value for them). */
function dropEmpty(value: Json): Json {
  const out: Json = {};
  for (const [key, v] of Object.entries(value)) {
    if (v === '' || v == null) continue;
    out[key] = isMap(v) ? dropEmpty(v) : v;
  }
  return out;
}

/** Converter converts the objects of one entry between its versions. */
export interface Converter {
  readonly group: string;
  readonly storageVersion: string;
  /** convert returns the object at `apiVersion` (`<group>/<version>`); throws ConversionError. */
  convert(object: Json, apiVersion: string): Json;
}

function versionOf(apiVersion: unknown): string {
  if (typeof apiVersion !== 'string') throw new ConversionError('the object has no apiVersion');
  return apiVersion.slice(apiVersion.lastIndexOf('/') + 1);
}

/**
 * refuseStep is a direction declared `refuse: true`: converting that way fails, as upstream's
 * webhook fails a direction it has no path for (docs/reference/katalog.md §3.4).
 */
function refuseStep(at: string): Step {
  return {
    apply(_object, from, to) {
      throw new ConversionError(`no conversion path ${from} → ${to}: ${at} declares it refused`);
    },
  };
}

/** createConverter builds the converter of an entry with `conversion` (its templates compiled once). */
export function createConverter(entryName: string, entry: CrdEntry): Converter {
  const group = entry.apiTypes.group;
  const storageVersion = storedVersionOf(entry);
  const steps = new Map<string, Step>();
  const paths: readonly ConversionPath[] = entry.conversion?.paths ?? [];
  const keysOf = schemaListKeys(entry);
  const templates = new Map<string, SpecTemplate>();
  paths.forEach((path, i) => {
    if (path.spec != null)
      templates.set(`${path.from}>${path.to}`, {
        compiled: compileValue(path.spec, { path: `${entryName}.conversion.paths[${i}].spec` }),
        names: goNamesOf(path.spec),
      });
  });
  for (const [i, path] of paths.entries()) {
    const key = `${path.from}>${path.to}`;
    const compiled = templates.get(key);
    if (path.refuse === true) steps.set(key, refuseStep(`${entryName}.conversion.paths[${i}]`));
    else if (path.rules != null) steps.set(key, rulesStep(path.rules, false, keysOf));
    else if (compiled != null)
      steps.set(
        key,
        templateStep(compiled, () => templates.get(`${path.to}>${path.from}`)),
      );
  }
  for (const path of paths)
    if (path.rules != null && !steps.has(`${path.to}>${path.from}`))
      steps.set(`${path.to}>${path.from}`, rulesStep(path.rules, true, keysOf));

  const step = (object: Json, from: string, to: string): Json => {
    const direct = steps.get(`${from}>${to}`);
    if (direct == null)
      throw new ConversionError(`no conversion path ${from} → ${to} for ${entry.apiTypes.kind}`);
    const out = direct.apply(object, from, to);
    out['apiVersion'] = `${group}/${to}`;
    return out;
  };

  return {
    group,
    storageVersion,
    convert(object, apiVersion) {
      const from = versionOf(object['apiVersion']);
      const to = versionOf(apiVersion);
      if (from === to) return { ...object, apiVersion };
      if (steps.has(`${from}>${to}`) || from === storageVersion || to === storageVersion)
        return step(object, from, to);
      return step(step(object, from, storageVersion), storageVersion, to);
    },
  };
}
