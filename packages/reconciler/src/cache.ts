import { OrkestraLabel } from '@orkestra/types';
import { isNewerResourceVersion, keyOf } from './kube-object.js';
import type { KubeObject } from './kube-object.js';

/** OWNER_UID_LABEL is the label on every child naming its owner CR's UID (`OrkestraLabel.OwnerUid`). */
export const OWNER_UID_LABEL: string = OrkestraLabel.OwnerUid;
/** LAST_APPLIED_ANNOTATION is kubectl's annotation that the cache drops to save memory. */
export const LAST_APPLIED_ANNOTATION = 'kubectl.kubernetes.io/last-applied-configuration';

/** CacheChangeType says what a change did to the cache. */
export const CacheChangeType = {
  Add: 'add',
  Update: 'update',
  Delete: 'delete',
} as const;
export type CacheChangeType = (typeof CacheChangeType)[keyof typeof CacheChangeType];

/** CacheChange is one change to the cache, as delivered to informer handlers; `old` is set for updates and deletes. */
export interface CacheChange {
  readonly type: CacheChangeType;
  readonly key: string;
  readonly object: KubeObject;
  readonly old?: KubeObject;
}

/** WatchEventType is the `type` of a Kubernetes watch event that carries an object. */
export type WatchEventType = 'ADDED' | 'MODIFIED' | 'DELETED';

/** ObjectCacheOptions configures an ObjectCache. */
export interface ObjectCacheOptions {
  /** Label indexed by `listByOwnerUid`. Default `orkestra.konductor.io/owner-uid`. */
  readonly ownerUidLabel?: string;
}

/** OWN_VERSIONS_KEPT bounds the resource versions of own writes an ObjectCache remembers. */
const OWN_VERSIONS_KEPT = 10_000;

/**
 * ObjectCache holds the objects of one informer, read-only and stripped of `managedFields` and
 * the last-applied annotation, indexed by key, namespace, UID and owner-UID label
 * (docs/reference/runtime.md §3.3). Reads are synchronous and cost no API request.
 *
 * Watch events and relists replace an object only when their resource version is newer, so the
 * result of the runtime's own write (`upsertFromWrite`) is not overwritten by a lagging watch.
 *
 * @example
 * const cache = new ObjectCache();
 * cache.upsertFromWrite(created);
 * cache.applyEvent('MODIFIED', sameVersionEcho); // undefined: ignored
 */
export class ObjectCache {
  readonly #ownerUidLabel: string;
  readonly #objects = new Map<string, KubeObject>();
  readonly #byNamespace = new Map<string, Set<string>>();
  readonly #byUid = new Map<string, string>();
  readonly #byOwnerUid = new Map<string, Set<string>>();
  /** Resource versions the runtime's own writes returned (docs/reference/runtime.md §4), oldest first, bounded. */
  readonly #ownVersions = new Set<string>();

  constructor(options: ObjectCacheOptions = {}) {
    this.#ownerUidLabel = options.ownerUidLabel ?? OWNER_UID_LABEL;
  }

  /**
   * isOwnVersion tells whether a resource version is one a write of the runtime returned (passed
   * to upsertFromWrite), i.e. whether an event carrying it is the echo of the runtime's own write,
   * even when the echo arrived before the write's answer. The last 10 000 versions are kept.
   */
  isOwnVersion(resourceVersion: string | undefined): boolean {
    return resourceVersion != null && this.#ownVersions.has(resourceVersion);
  }

  #rememberOwnVersion(resourceVersion: string | undefined): void {
    if (resourceVersion == null || resourceVersion === '') return;
    this.#ownVersions.add(resourceVersion);
    if (this.#ownVersions.size > OWN_VERSIONS_KEPT) {
      const oldest = this.#ownVersions.values().next().value;
      if (oldest != null) this.#ownVersions.delete(oldest);
    }
  }

  /** size is the number of cached objects. */
  get size(): number {
    return this.#objects.size;
  }

  /** get returns the object with this key (`namespace/name` or `name`). */
  get(key: string): KubeObject | undefined {
    return this.#objects.get(key);
  }

  /** getByName returns the object with this namespace (undefined for cluster-scoped) and name. */
  getByName(namespace: string | undefined, name: string): KubeObject | undefined {
    return this.#objects.get(namespace == null || namespace === '' ? name : `${namespace}/${name}`);
  }

  /** getByUid returns the object with this UID. */
  getByUid(uid: string): KubeObject | undefined {
    const key = this.#byUid.get(uid);
    return key == null ? undefined : this.#objects.get(key);
  }

  /** keyOfUid returns the key of the object with this UID. */
  keyOfUid(uid: string): string | undefined {
    return this.#byUid.get(uid);
  }

  /** keys returns every cached key. */
  keys(): string[] {
    return [...this.#objects.keys()];
  }

  /** list returns every cached object. */
  list(): KubeObject[] {
    return [...this.#objects.values()];
  }

  /** listByNamespace returns the objects in one namespace. */
  listByNamespace(namespace: string): KubeObject[] {
    return this.#resolve(this.#byNamespace.get(namespace));
  }

  /** listByOwnerUid returns the objects whose owner-UID label has this value. */
  listByOwnerUid(ownerUid: string): KubeObject[] {
    return this.#resolve(this.#byOwnerUid.get(ownerUid));
  }

  /**
   * applyEvent applies one watch event and returns the change, or undefined when it was ignored:
   * an add or update whose resource version is not newer than the cached one, or a delete of an
   * object that is not cached or is cached at a newer version.
   */
  applyEvent(type: WatchEventType, object: KubeObject): CacheChange | undefined {
    const key = keyOf(object);
    const current = this.#objects.get(key);
    const version = object.metadata.resourceVersion;
    if (type === 'DELETED') {
      if (current == null) return undefined;
      if (isNewerResourceVersion(current.metadata.resourceVersion, version)) return undefined;
      this.#delete(key, current);
      return { type: CacheChangeType.Delete, key, object: current, old: current };
    }
    if (current != null && !isNewerResourceVersion(version, current.metadata.resourceVersion))
      return undefined;
    const stored = this.#set(key, object, current);
    return current == null
      ? { type: CacheChangeType.Add, key, object: stored }
      : { type: CacheChangeType.Update, key, object: stored, old: current };
  }

  /**
   * upsertFromWrite puts the object returned by a successful write into the cache (read after
   * write) unless the cache already holds a newer version; returns whether it was stored. Handlers
   * are not notified: the watch echo of the write carries the same version and is ignored.
   */
  upsertFromWrite(object: KubeObject): boolean {
    this.#rememberOwnVersion(object.metadata.resourceVersion);
    const key = keyOf(object);
    const current = this.#objects.get(key);
    if (
      current != null &&
      !isNewerResourceVersion(object.metadata.resourceVersion, current.metadata.resourceVersion)
    ) {
      return false;
    }
    this.#set(key, object, current);
    return true;
  }

  /**
   * replace makes the cache equal to a complete list taken at `listResourceVersion` and returns
   * the differences. An object the list has at an older version than the cache, and an object
   * missing from the list but cached at a version newer than the list's (written after the list's
   * snapshot), are kept.
   */
  replace(objects: readonly KubeObject[], listResourceVersion?: string): CacheChange[] {
    const changes: CacheChange[] = [];
    const seen = new Set<string>();
    for (const object of objects) {
      const key = keyOf(object);
      seen.add(key);
      const current = this.#objects.get(key);
      if (
        current != null &&
        !isNewerResourceVersion(object.metadata.resourceVersion, current.metadata.resourceVersion)
      ) {
        continue;
      }
      const stored = this.#set(key, object, current);
      changes.push(
        current == null
          ? { type: CacheChangeType.Add, key, object: stored }
          : { type: CacheChangeType.Update, key, object: stored, old: current },
      );
    }
    for (const [key, current] of [...this.#objects]) {
      if (seen.has(key)) continue;
      if (
        listResourceVersion != null &&
        isDecimalNewer(current.metadata.resourceVersion, listResourceVersion)
      )
        continue;
      this.#delete(key, current);
      changes.push({ type: CacheChangeType.Delete, key, object: current, old: current });
    }
    return changes;
  }

  #set(key: string, object: KubeObject, current: KubeObject | undefined): KubeObject {
    if (current != null) this.#unindex(key, current);
    const stored = sanitize(object);
    this.#objects.set(key, stored);
    const { namespace, uid, labels } = stored.metadata;
    if (namespace != null && namespace !== '') addTo(this.#byNamespace, namespace, key);
    if (uid != null && uid !== '') this.#byUid.set(uid, key);
    const owner = labels?.[this.#ownerUidLabel];
    if (owner != null && owner !== '') addTo(this.#byOwnerUid, owner, key);
    return stored;
  }

  #delete(key: string, current: KubeObject): void {
    this.#unindex(key, current);
    this.#objects.delete(key);
  }

  #unindex(key: string, object: KubeObject): void {
    const { namespace, uid, labels } = object.metadata;
    if (namespace != null) removeFrom(this.#byNamespace, namespace, key);
    if (uid != null && this.#byUid.get(uid) === key) this.#byUid.delete(uid);
    const owner = labels?.[this.#ownerUidLabel];
    if (owner != null) removeFrom(this.#byOwnerUid, owner, key);
  }

  #resolve(keys: Set<string> | undefined): KubeObject[] {
    if (keys == null) return [];
    const out: KubeObject[] = [];
    for (const key of keys) {
      const object = this.#objects.get(key);
      if (object != null) out.push(object);
    }
    return out;
  }
}

/** sanitize deep-copies an object without managedFields and the last-applied annotation, and freezes it. */
function sanitize(object: KubeObject): KubeObject {
  // One pass that copies, drops managedFields and the last-applied annotation, and freezes
  // (docs/reference/runtime.md §20: structuredClone plus a second freezing walk was the cache's top cost).
  const { metadata, ...rest } = object as unknown as { metadata: Record<string, unknown> } & Record<
    string,
    unknown
  >;
  const { managedFields: _managed, ...meta } = metadata;
  const annotations = meta['annotations'] as Record<string, string> | undefined;
  if (annotations != null && LAST_APPLIED_ANNOTATION in annotations) {
    const { [LAST_APPLIED_ANNOTATION]: _lastApplied, ...others } = annotations;
    meta['annotations'] = others;
  }
  return frozenCopy({ ...rest, metadata: meta }) as KubeObject;
}

/** frozenCopy deep-copies a JSON value (objects as parsed from the API) and freezes every level. */
function frozenCopy(value: unknown): unknown {
  if (value === null || typeof value !== 'object') return value;
  if (Array.isArray(value)) return Object.freeze(value.map(frozenCopy));
  const source = value as Record<string, unknown>;
  const out: Record<string, unknown> = {};
  for (const key of Object.keys(source)) out[key] = frozenCopy(source[key]);
  return Object.freeze(out);
}

function isDecimalNewer(candidate: string | undefined, reference: string): boolean {
  return (
    candidate != null &&
    /^(0|[1-9][0-9]*)$/.test(candidate) &&
    /^(0|[1-9][0-9]*)$/.test(reference) &&
    BigInt(candidate) > BigInt(reference)
  );
}

function addTo(index: Map<string, Set<string>>, value: string, key: string): void {
  let keys = index.get(value);
  if (keys == null) index.set(value, (keys = new Set()));
  keys.add(key);
}

function removeFrom(index: Map<string, Set<string>>, value: string, key: string): void {
  const keys = index.get(value);
  if (keys == null) return;
  keys.delete(key);
  if (keys.size === 0) index.delete(value);
}
