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
  return subsetOfNormalized(normalize(desired, rules), cached, rules, undefined) ? 'match' : 'differs';
}

/**
 * subsetOfNormalized is `isSubset(desired, normalize(live, rules, field))` without normalizing the
 * whole live object: only the parts `desired` (already normalized) reaches are normalized. A cached
 * child carries much the desired manifest does not declare (status, defaulted fields), and
 * normalizing all of it on every comparison was the largest cost of a no-op apply.
 */
function subsetOfNormalized(
  desired: unknown,
  live: unknown,
  rules: NormalizeRules,
  field: string | undefined,
): boolean {
  if (desired === undefined) return true;
  // Quantities and int-or-string values are small: normalized whole, exactly as normalize does.
  if (field != null && (rules.quantityFields.has(field) || rules.intOrStringFields.has(field)))
    return isSubset(desired, normalize(live, rules, field));
  if (live == null || typeof live !== 'object') return isSubset(desired, live);
  const wanted = isPlainEntries(desired);
  if (Array.isArray(live)) {
    const keyOf = field == null ? undefined : rules.keyedLists[field];
    const keyed = keyOf == null ? undefined : keyedItems(live, keyOf);
    if (keyed != null) {
      // normalize made the list a map: `#keyed` → true, `#<key>` → the normalized item.
      if (wanted == null) return false;
      return wanted.every(([k, v]) => {
        if (!Object.hasOwn(keyed, k)) return isSubset(v, ({} as Record<string, unknown>)[k]);
        const item = keyed[k];
        return item === KEYED_MARK ? isSubset(v, true) : subsetOfNormalized(v, item, rules, undefined);
      });
    }
    if (!Array.isArray(desired) || desired.length !== live.length) return false;
    return desired.every((d, i) => subsetOfNormalized(d, live[i], rules, undefined));
  }
  if (wanted == null) return false;
  const l = live as Record<string, unknown>;
  return wanted.every(([k, v]) =>
    // normalize builds a fresh object from the own entries: anything else reads as that object would.
    Object.hasOwn(l, k)
      ? subsetOfNormalized(v, l[k], rules, k)
      : isSubset(v, ({} as Record<string, unknown>)[k]),
  );
}

/** KEYED_MARK stands for the `#keyed: true` entry of a normalized keyed list. */
const KEYED_MARK = Symbol('keyed');

/** isPlainEntries is the entries of a non-array object, or undefined for anything else. */
function isPlainEntries(value: unknown): [string, unknown][] | undefined {
  return value != null && typeof value === 'object' && !Array.isArray(value)
    ? Object.entries(value)
    : undefined;
}

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
