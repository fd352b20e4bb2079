/**
 * The field diff of `ork diff` (docs/reference/runtime.md §21.1): what one server-side apply of a
 * child would change in the live object, counting only the fields the runtime manages.
 *
 * - Added and changed: every field the new desired manifest sets is compared with the live value.
 *   Fields the manifest does not name are not compared (server defaults, other managers' fields).
 *   Lists the runtime matches by key (containers, env, volumes, ports, … — the registry's
 *   `DEFAULT_RULES`) are compared item by item; other lists are atomic (replaced whole, as apply
 *   replaces them). Quantities and int-or-string fields compare by value (`1Gi` = `1024Mi`).
 * - Removed: a field the runtime's field manager owns in the live object (`metadata.managedFields`,
 *   manager `orkestra`, operation `Apply`) that the new manifest no longer sets; apply removes it,
 *   unless another manager's entry also owns it (then only our ownership goes). Without managedFields (an export made without
 *   `--show-managed-fields`) removals cannot be known and none are reported.
 */
import { DEFAULT_RULES, isSubset, normalize } from '@orkestra/registry';
import type { KubeObject, NormalizeRules } from '@orkestra/registry';
import { MANAGED_BY, OrkestraAnnotation } from '@orkestra/types';
import { isMap } from '../../is-map.js';

/** FieldChangeOp is what happens to one field. */
export type FieldChangeOp = 'add' | 'change' | 'remove';

/** FieldChange is one field of a diff; `before`/`after` are absent where they do not apply or are hidden. */
export interface FieldChange {
  /** Dotted path; keyed list items as `containers[web]`, keys that are not plain words quoted: `labels["app.kubernetes.io/name"]`. */
  readonly path: string;
  readonly op: FieldChangeOp;
  readonly before?: unknown;
  readonly after?: unknown;
  /** The values are a Secret's data: never shown, the change only. */
  readonly hidden?: true;
}

/** ManagedFieldsEntry is one item of `metadata.managedFields`. */
interface ManagedFieldsEntry {
  readonly manager?: string;
  readonly operation?: string;
  readonly fieldsV1?: Record<string, unknown>;
}

/** DiffFieldsOptions configures diffManagedFields. */
export interface DiffFieldsOptions {
  /** Comparison rules. Default: the registry's DEFAULT_RULES. */
  readonly rules?: NormalizeRules;
  /** Field manager whose owned fields count as ours. Default `orkestra`. */
  readonly fieldManager?: string;
}

type Json = Record<string, unknown>;
/** Paths the diff never reports: bookkeeping the runtime changes with every template change. */
const IGNORED_PATHS: ReadonlySet<string> = new Set([
  `metadata.annotations${segment(OrkestraAnnotation.AppliedHash)}`,
]);

/** SECRET_DATA_FIELDS are the top-level fields of a Secret whose values are never printed. */
const SECRET_DATA_FIELDS = ['data', 'stringData'];

/**
 * diffManagedFields returns the changes one apply of `desired` makes to `live`, in path order.
 *
 * @example
 * diffManagedFields(liveDeployment, desired) // [{ path: 'spec.replicas', op: 'change', before: 2, after: 3 }]
 */
export function diffManagedFields(
  live: KubeObject,
  desired: KubeObject,
  options: DiffFieldsOptions = {},
): FieldChange[] {
  const rules = options.rules ?? DEFAULT_RULES;
  const out: FieldChange[] = [];
  const emit = (change: FieldChange): void => {
    if (!IGNORED_PATHS.has(change.path)) out.push(change);
  };
  const { apiVersion: _a, kind: _k, ...body } = desired;
  walk(body, live, undefined, '', rules, emit);
  const manager = options.fieldManager ?? MANAGED_BY;
  const owned = ownedFields(live, (entry) => entry.manager === manager && entry.operation === 'Apply');
  const others = ownedFields(live, (entry) => entry.manager !== manager) ?? {};
  if (owned != null) removed(owned, others, body, live, '', emit);
  const secret = desired.kind === 'Secret' && desired.apiVersion === 'v1';
  return out
    .map((change) => (secret && isSecretData(change.path) ? hide(change) : change))
    .sort((a, b) => comparePaths(a.path, b.path));
}

/**
 * diffValues compares two whole values (a CR's status before and after): every field, maps by
 * key, lists of maps keyed by `type` (conditions) or by identity (inventory), else atomic.
 * Fields named in `ignore` (e.g. `lastTransitionTime`) are skipped wherever they appear.
 */
export function diffValues(
  before: unknown,
  after: unknown,
  path: string,
  ignore: ReadonlySet<string> = new Set(),
): FieldChange[] {
  const out: FieldChange[] = [];
  compareWhole(before, after, path, ignore, out);
  return out.sort((a, b) => comparePaths(a.path, b.path));
}

/** hiddenSecretValues returns a Secret with every data value replaced by `(hidden)`; other objects unchanged. */
export function hiddenSecretValues(object: KubeObject): KubeObject {
  if (object.kind !== 'Secret' || object.apiVersion !== 'v1') return object;
  const out: Json = { ...object };
  for (const field of SECRET_DATA_FIELDS) {
    const data = object[field];
    if (isMap(data)) out[field] = Object.fromEntries(Object.keys(data).map((k) => [k, '(hidden)']));
  }
  return out as KubeObject;
}

function hide(change: FieldChange): FieldChange {
  return { path: change.path, op: change.op, hidden: true };
}

function isSecretData(path: string): boolean {
  return SECRET_DATA_FIELDS.some((f) => path === f || path.startsWith(`${f}.`) || path.startsWith(`${f}[`));
}

// ---- added and changed -------------------------------------------------------------------------

function walk(
  desired: unknown,
  live: unknown,
  field: string | undefined,
  path: string,
  rules: NormalizeRules,
  emit: (change: FieldChange) => void,
): void {
  if (desired === undefined) return;
  if (field != null && (rules.quantityFields.has(field) || rules.intOrStringFields.has(field))) {
    if (!isSubset(normalize(desired, rules, field), normalize(live, rules, field)))
      emit(live === undefined ? added(path, desired) : changed(path, live, desired));
    return;
  }
  if (Array.isArray(desired)) {
    const keyOf = field == null ? undefined : rules.keyedLists[field];
    const keys = keyOf == null ? undefined : desired.map((item) => (isMap(item) ? keyOf(item) : undefined));
    if (
      keyOf != null &&
      keys != null &&
      keys.every((k) => k != null) &&
      (live == null || Array.isArray(live))
    ) {
      if (live == null) {
        if (desired.length > 0) emit(added(path, desired));
        return;
      }
      const liveByKey = new Map<string, unknown>();
      for (const item of live as unknown[]) {
        const key = isMap(item) ? keyOf(item) : undefined;
        if (key != null) liveByKey.set(key, item);
      }
      desired.forEach((item, i) => {
        const key = keys[i] ?? '';
        walk(item, liveByKey.get(key), undefined, `${path}[${key}]`, rules, emit);
      });
      return;
    }
    if (live === undefined && desired.length === 0) return;
    if (!isSubset(normalize(desired, rules, field), normalize(live, rules, field)))
      emit(live === undefined ? added(path, desired) : changed(path, live, desired));
    return;
  }
  if (isMap(desired)) {
    const entries = Object.entries(desired);
    if (live === undefined) {
      if (entries.length > 0) emit(added(path, desired));
      return;
    }
    if (!isMap(live)) {
      emit(changed(path, live, desired));
      return;
    }
    for (const [key, value] of entries) walk(value, live[key], key, join(path, key), rules, emit);
    return;
  }
  if (live === undefined) emit(added(path, desired));
  else if (!isSubset(normalize(desired, rules, field), normalize(live, rules, field)))
    emit(changed(path, live, desired));
}

function added(path: string, after: unknown): FieldChange {
  return { path, op: 'add', after };
}

function changed(path: string, before: unknown, after: unknown): FieldChange {
  return { path, op: 'change', before, after };
}

// ---- removed -----------------------------------------------------------------------------------

/** ownedFields merges the FieldsV1 sets of the managedFields entries `pick` selects; undefined when none is selected. */
function ownedFields(live: KubeObject, pick: (entry: ManagedFieldsEntry) => boolean): Json | undefined {
  const entries = live.metadata['managedFields'];
  if (!Array.isArray(entries)) return undefined;
  let owned: Json | undefined;
  for (const entry of entries as ManagedFieldsEntry[]) {
    if (!pick(entry) || !isMap(entry.fieldsV1)) continue;
    owned = mergeSets(owned ?? {}, entry.fieldsV1);
  }
  return owned;
}

function mergeSets(a: Json, b: Json): Json {
  const out: Json = { ...a };
  for (const [key, value] of Object.entries(b)) {
    out[key] = isMap(out[key]) && isMap(value) ? mergeSets(out[key] as Json, value) : value;
  }
  return out;
}

/**
 * removed walks a FieldsV1 set (`f:<field>`, `k:<json key>` for keyed list items, `v:<value>` for
 * set items, `i:<index>`) beside the desired and live values: an owned field or item the desired
 * value lacks, and the live object has, is reported removed (once, at its highest such path),
 * unless `others` (what the other field managers own) has it too: apply then only gives up our
 * ownership and the value stays.
 */
function removed(
  set: Json,
  others: Json,
  desired: unknown,
  live: unknown,
  path: string,
  emit: (change: FieldChange) => void,
): void {
  for (const [member, children] of Object.entries(set)) {
    if (member === '.') continue;
    const shared = isMap(others[member]) ? (others[member] as Json) : undefined;
    const drop = (change: FieldChange): void => {
      if (shared == null) emit(change);
    };
    const descend = (d: unknown, l: unknown, at: string): void => {
      if (isMap(children)) removed(children, shared ?? {}, d, l, at, emit);
    };
    const kind = member.slice(0, 2);
    const rest = member.slice(2);
    if (kind === 'f:') {
      const d = isMap(desired) ? desired[rest] : undefined;
      const l = isMap(live) ? live[rest] : undefined;
      const at = join(path, rest);
      if (l === undefined) continue;
      // A field is removed whole when we own it as a leaf; a map we own members of loses those members.
      if (d === undefined && !hasMembers(children)) drop({ path: at, op: 'remove', before: l });
      else descend(d, l, at);
    } else if (kind === 'k:') {
      let key: unknown;
      try {
        key = JSON.parse(rest);
      } catch {
        continue;
      }
      if (!isMap(key)) continue;
      const l = findItem(live, key);
      if (l === undefined) continue;
      const d = findItem(desired, key);
      const at = `${path}[${Object.values(key).map(String).join('/')}]`;
      // A list item we own (`.`) is removed whole.
      if (d === undefined && (!hasMembers(children) || (isMap(children) && '.' in children)))
        drop({ path: at, op: 'remove', before: l });
      else descend(d, l, at);
    } else if (kind === 'v:') {
      let value: unknown;
      try {
        value = JSON.parse(rest);
      } catch {
        continue;
      }
      const has = (list: unknown): boolean =>
        Array.isArray(list) && list.some((item) => JSON.stringify(item) === JSON.stringify(value));
      if (has(live) && !has(desired))
        drop({ path: `${path}[${String(value)}]`, op: 'remove', before: value });
    }
    // `i:` items belong to atomic lists, compared whole by walk.
  }
}

function hasMembers(set: unknown): boolean {
  return isMap(set) && Object.keys(set).some((key) => key !== '.');
}

/** findItem finds the list item whose fields equal every field of a FieldsV1 key (numbers and strings alike). */
function findItem(list: unknown, key: Json): unknown {
  if (!Array.isArray(list)) return undefined;
  return list.find(
    (item) =>
      isMap(item) && Object.entries(key).every(([k, v]) => item[k] != null && String(item[k]) === String(v)),
  );
}

// ---- whole values ------------------------------------------------------------------------------

function compareWhole(
  before: unknown,
  after: unknown,
  path: string,
  ignore: ReadonlySet<string>,
  out: FieldChange[],
): void {
  if (before === undefined && after === undefined) return;
  if (before === undefined) {
    out.push({ path, op: 'add', after });
    return;
  }
  if (after === undefined) {
    out.push({ path, op: 'remove', before });
    return;
  }
  if (isMap(before) && isMap(after)) {
    const keys = [...new Set([...Object.keys(before), ...Object.keys(after)])];
    for (const key of keys) {
      if (ignore.has(key)) continue;
      compareWhole(before[key], after[key], join(path, key), ignore, out);
    }
    return;
  }
  if (Array.isArray(before) && Array.isArray(after)) {
    const keyOf = listKey(before, after);
    if (keyOf != null) {
      const b = new Map(before.map((item) => [keyOf(item as Json), item]));
      const a = new Map(after.map((item) => [keyOf(item as Json), item]));
      for (const key of new Set([...b.keys(), ...a.keys()]))
        compareWhole(b.get(key), a.get(key), `${path}[${key}]`, ignore, out);
      return;
    }
  }
  if (JSON.stringify(strip(before, ignore)) !== JSON.stringify(strip(after, ignore)))
    out.push({ path, op: 'change', before, after });
}

/** listKey picks the key of a list of maps: `type` (conditions), else apiVersion/kind/namespace/name (inventory). */
function listKey(...lists: unknown[][]): ((item: Json) => string) | undefined {
  const items = lists.flat();
  if (items.length === 0 || !items.every(isMap)) return undefined;
  if (items.every((item) => typeof item['type'] === 'string')) return (item) => String(item['type']);
  if (items.every((item) => typeof item['kind'] === 'string' && typeof item['name'] === 'string'))
    return (item) =>
      [item['kind'], item['namespace'], item['name']].filter((part) => part != null && part !== '').join('/');
  return undefined;
}

function strip(value: unknown, ignore: ReadonlySet<string>): unknown {
  if (Array.isArray(value)) return value.map((v) => strip(v, ignore));
  if (isMap(value))
    return Object.fromEntries(
      Object.entries(value)
        .filter(([k]) => !ignore.has(k))
        .map(([k, v]) => [k, strip(v, ignore)]),
    );
  return value;
}

// ---- paths -------------------------------------------------------------------------------------

function segment(key: string): string {
  return /^[A-Za-z_$][\w$-]*$/.test(key) ? `.${key}` : `[${JSON.stringify(key)}]`;
}

function join(path: string, key: string): string {
  const next = segment(key);
  return path === '' && next.startsWith('.') ? next.slice(1) : `${path}${next}`;
}

/** comparePaths orders paths by segment, so `spec.a` and its children sort before `spec.b`. */
function comparePaths(a: string, b: string): number {
  return a < b ? -1 : a > b ? 1 : 0;
}
