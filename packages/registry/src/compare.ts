import { canonicalJson, sha256Hex } from './canonical-json.js';
import type { KubeObject } from './kube-object.js';
import { OrkestraAnnotation } from '@orkestra/types';
import { canonicalQuantity } from './quantity.js';

/**
 * NormalizeRules says how one kind is compared: which lists are matched by key, which fields hold
 * quantities and which are int-or-string. Rules are by field name, wherever the field appears.
 */
export interface NormalizeRules {
  /** List field name → key of its items (a function for composite keys). */
  readonly keyedLists: Readonly<Record<string, (item: Record<string, unknown>) => string | undefined>>;
  /** Field names whose value is a quantity, or a map of quantities. */
  readonly quantityFields: ReadonlySet<string>;
  /** Field names whose value is int-or-string (compared as strings). */
  readonly intOrStringFields: ReadonlySet<string>;
}

const byName = (item: Record<string, unknown>): string | undefined =>
  typeof item['name'] === 'string' ? item['name'] : undefined;

/** DEFAULT_RULES covers the built-in kinds: containers/env/volumes by name, ports by port number and protocol. */
export const DEFAULT_RULES: NormalizeRules = {
  keyedLists: {
    containers: byName,
    initContainers: byName,
    env: byName,
    volumes: byName,
    imagePullSecrets: byName,
    volumeMounts: (item) => (typeof item['mountPath'] === 'string' ? item['mountPath'] : undefined),
    ownerReferences: (item) => (typeof item['uid'] === 'string' ? item['uid'] : undefined),
    volumeClaimTemplates: (item) => {
      const md = item['metadata'] as Record<string, unknown> | undefined;
      return typeof md?.['name'] === 'string' ? md['name'] : undefined;
    },
    ports: (item) => {
      const port = item['containerPort'] ?? item['port'];
      if (port == null) return undefined;
      const protocol = typeof item['protocol'] === 'string' ? item['protocol'] : 'TCP';
      return `${String(port)}/${protocol}`;
    },
  },
  quantityFields: new Set(['requests', 'limits', 'storage', 'sizeLimit']),
  intOrStringFields: new Set(['port', 'targetPort', 'maxSurge', 'maxUnavailable', 'minAvailable']),
};

/** NO_RULES compares everything literally (lists atomic); used for custom kinds. */
export const NO_RULES: NormalizeRules = {
  keyedLists: {},
  quantityFields: new Set(),
  intOrStringFields: new Set(),
};

/**
 * normalize returns a comparison form of a value: keyed lists become maps (`#key` → item),
 * quantities a canonical value key, int-or-string fields strings.
 */
export function normalize(value: unknown, rules: NormalizeRules = DEFAULT_RULES, field?: string): unknown {
  if (field != null && rules.quantityFields.has(field)) {
    if (value != null && typeof value === 'object' && !Array.isArray(value)) {
      return Object.fromEntries(Object.entries(value).map(([k, v]) => [k, canonicalQuantity(v)]));
    }
    return canonicalQuantity(value);
  }
  if (
    field != null &&
    rules.intOrStringFields.has(field) &&
    (typeof value === 'number' || typeof value === 'string')
  ) {
    return String(value);
  }
  if (Array.isArray(value)) {
    const keyOf = field == null ? undefined : rules.keyedLists[field];
    const items = value.map((v) => normalize(v, rules));
    if (keyOf != null) {
      const keyed: Record<string, unknown> = {};
      let allKeyed = true;
      value.forEach((v, i) => {
        const k = v != null && typeof v === 'object' ? keyOf(v as Record<string, unknown>) : undefined;
        if (k == null) allKeyed = false;
        else keyed[`#${k}`] = items[i];
      });
      if (allKeyed) return { [KEYED]: true, ...keyed };
    }
    return items;
  }
  if (value != null && typeof value === 'object') {
    return Object.fromEntries(Object.entries(value).map(([k, v]) => [k, normalize(v, rules, k)]));
  }
  return value;
}

const KEYED = '#keyed';

/**
 * isSubset tells whether every leaf declared in `desired` has the same value in `live`. Both must
 * be normalized. Atomic lists must have the same length; keyed lists match items by key. An empty
 * desired map or list also matches an absent live value (the server drops empty values).
 */
export function isSubset(desired: unknown, live: unknown): boolean {
  if (desired === undefined) return true;
  if (Array.isArray(desired)) {
    if (live === undefined && desired.length === 0) return true;
    if (!Array.isArray(live) || live.length !== desired.length) return false;
    return desired.every((d, i) => isSubset(d, live[i]));
  }
  if (desired != null && typeof desired === 'object') {
    const entries = Object.entries(desired);
    if (live === undefined && entries.length === 0) return true;
    if (live == null || typeof live !== 'object' || Array.isArray(live)) return false;
    const l = live as Record<string, unknown>;
    return entries.every(([k, v]) => isSubset(v, l[k]));
  }
  return desired === live;
}

/** appliedHash is the first 32 hex characters of SHA-256 over the canonical JSON of a manifest without its applied-hash annotation. */
export function appliedHash(manifest: KubeObject): string {
  return sha256Hex(canonicalJson(withoutAppliedHash(manifest))).slice(0, 32);
}

/** withAppliedHash returns the manifest with its applied-hash annotation set. */
export function withAppliedHash(manifest: KubeObject): KubeObject {
  const base = withoutAppliedHash(manifest);
  const hash = appliedHash(base);
  return {
    ...base,
    metadata: {
      ...base.metadata,
      annotations: { ...base.metadata.annotations, [OrkestraAnnotation.AppliedHash]: hash },
    },
  };
}

function withoutAppliedHash(manifest: KubeObject): KubeObject {
  const annotations = manifest.metadata.annotations;
  if (annotations == null || !(OrkestraAnnotation.AppliedHash in annotations)) return manifest;
  const rest = Object.fromEntries(
    Object.entries(annotations).filter(([k]) => k !== OrkestraAnnotation.AppliedHash),
  );
  return { ...manifest, metadata: { ...manifest.metadata, annotations: rest } };
}

/**
 * compareToCache decides whether an apply can be skipped: the cached object carries the desired
 * manifest's applied-hash and the desired manifest is a subset of it after normalization.
 * `desired` must already carry its applied-hash annotation (withAppliedHash).
 */
export function compareToCache(
  desired: KubeObject,
  cached: KubeObject | undefined,
  rules: NormalizeRules = DEFAULT_RULES,
): 'match' | 'differs' | 'absent' {
  if (cached == null) return 'absent';
  const want = desired.metadata.annotations?.[OrkestraAnnotation.AppliedHash];
  if (want == null || cached.metadata.annotations?.[OrkestraAnnotation.AppliedHash] !== want)
    return 'differs';
  return subsetUnnormalized(desired, undefined, cached, undefined, rules) ? 'match' : 'differs';
}

/**
 * subsetUnnormalized is `isSubset(normalize(desired, rules, desiredField), normalize(live, rules,
 * liveField))` without normalizing either whole object: only the parts the comparison reaches are
 * normalized, on both sides. A cached child carries much the desired manifest does not declare
 * (status, defaulted fields), and normalizing a whole desired manifest to compare a few of its
 * parts was the largest remaining cost of a no-op apply. The fields differ only when a keyed list
 * meets a map (normalize gives both the same shape).
 */
function subsetUnnormalized(
  desired: unknown,
  desiredField: string | undefined,
  live: unknown,
  liveField: string | undefined,
  rules: NormalizeRules,
): boolean {
  if (desired === KEYED_MARK)
    return isSubset(true, live === KEYED_MARK ? true : normalize(live, rules, liveField));
  if (live === KEYED_MARK) return isSubset(normalize(desired, rules, desiredField), true);
  // Quantities and int-or-string values are small: normalized whole, exactly as normalize does.
  if (isScalarField(desiredField, rules) || isScalarField(liveField, rules))
    return isSubset(normalize(desired, rules, desiredField), normalize(live, rules, liveField));
  if (desired === undefined) return true;
  // normalize returns a scalar (or function) as it is, and builds a fresh object from any object.
  if (desired === null || typeof desired !== 'object') return desired === live;
  const wantedList = Array.isArray(desired) ? desired : undefined;
  const wantedKeyed = wantedList == null ? undefined : keyedItemsOf(wantedList, desiredField, rules);
  if (wantedList != null && wantedKeyed == null) {
    // An atomic list: the same length, item by item (holes in desired skipped as Array#every does).
    if (live === undefined && wantedList.length === 0) return true;
    if (!Array.isArray(live) || live.length !== wantedList.length) return false;
    if (keyedItemsOf(live, liveField, rules) != null) return false;
    return wantedList.every((d, i) => subsetUnnormalized(d, undefined, live[i], undefined, rules));
  }
  // A map: a plain object (its fields named by their keys) or a keyed list (its items unnamed).
  const wanted = wantedKeyed ?? (desired as Record<string, unknown>);
  const wantedKeys = Object.keys(wanted);
  const wantedChildField = (key: string): string | undefined => (wantedKeyed == null ? key : undefined);
  if (live === undefined && wantedKeys.length === 0) return true;
  if (live == null || typeof live !== 'object') return false;
  let have: Record<string, unknown>;
  let haveKeyed = false;
  if (Array.isArray(live)) {
    const keyed = keyedItemsOf(live, liveField, rules);
    if (keyed == null) return false;
    have = keyed;
    haveKeyed = true;
  } else have = live as Record<string, unknown>;
  for (const k of wantedKeys) {
    const ok = propertyIsEnumerable.call(have, k)
      ? subsetUnnormalized(wanted[k], wantedChildField(k), have[k], haveKeyed ? undefined : k, rules)
      : // normalize builds a plain object from the own entries: a missing key reads as on `{}`.
        isSubset(
          wanted[k] === KEYED_MARK ? true : normalize(wanted[k], rules, wantedChildField(k)),
          ({} as Record<string, unknown>)[k],
        );
    if (!ok) return false;
  }
  return true;
}

const { propertyIsEnumerable } = Object.prototype;

/** isScalarField tells whether normalize treats a field as a quantity or an int-or-string value. */
function isScalarField(field: string | undefined, rules: NormalizeRules): boolean {
  return field != null && (rules.quantityFields.has(field) || rules.intOrStringFields.has(field));
}

/** keyedItemsOf is keyedItems for a list under a field with a key rule, else undefined. */
function keyedItemsOf(
  items: readonly unknown[],
  field: string | undefined,
  rules: NormalizeRules,
): Record<string, unknown> | undefined {
  const keyOf = field == null ? undefined : rules.keyedLists[field];
  return keyOf == null ? undefined : keyedItems(items, keyOf);
}

/** KEYED_MARK stands for the `#keyed: true` entry of a normalized keyed list. */
const KEYED_MARK = Symbol('keyed');

/**
 * keyedItems is a keyed list as normalize maps it (`#<key>` → item, later items winning, the
 * marker under `#keyed` unless an item's key is `keyed`), with the items not yet normalized; or
 * undefined when some item has no key (normalize then keeps the list).
 */
function keyedItems(
  items: readonly unknown[],
  keyOf: (item: Record<string, unknown>) => string | undefined,
): Record<string, unknown> | undefined {
  const keyed: Record<string, unknown> = {};
  for (let i = 0; i < items.length; i++) {
    if (!(i in items)) continue; // a hole, skipped as normalize's forEach skips it
    const item = items[i];
    const k = item != null && typeof item === 'object' ? keyOf(item as Record<string, unknown>) : undefined;
    if (k == null) return undefined;
    keyed[`#${k}`] = item;
  }
  return { [KEYED]: KEYED_MARK, ...keyed };
}
