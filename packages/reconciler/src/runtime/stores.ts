/**
 * The store seam of the pipeline: where it reads the CRs of its entry and their children, and
 * where it records the objects its own writes returned. At run time these are the informer caches
 * (`ObjectCache`, `ChildCaches`); offline (`ork render`, `ork simulate`, the parity test) they are
 * views of the in-memory cluster (`MemoryCluster`). The pipeline sees nothing else of either side.
 */
import type { GroupVersionKind, KubeObject, ObjectReader } from '@orkestra/registry';

/** PrimaryStore holds the CRs of one CRD entry; `ObjectCache` and `MemoryCluster.primaryStore` implement it. */
export interface PrimaryStore {
  /** get returns the CR with this key (`namespace/name` or `name`). */
  get(key: string): KubeObject | undefined;
  /** getByName returns the CR with this namespace (undefined for cluster-scoped) and name. */
  getByName(namespace: string | undefined, name: string): KubeObject | undefined;
  /** list returns every CR of the entry (for `unique` validation). */
  list(): readonly KubeObject[];
  /** upsertFromWrite records the object a write of the pipeline returned. */
  upsertFromWrite(object: KubeObject): unknown;
}

/** ChildStore holds the children the pipeline writes; `ChildCaches` and `MemoryCluster.childStore` implement it. */
export interface ChildStore extends ObjectReader {
  /** watches tells whether this kind is held by the store (otherwise the pipeline reads it with a GET). */
  watches(gvk: GroupVersionKind): boolean;
  /** listAllOwned returns every held object whose owner-uid label is `ownerUid`. */
  listAllOwned(ownerUid: string): readonly KubeObject[];
  /** upsertFromWrite records the object a write of the pipeline returned. */
  upsertFromWrite(object: KubeObject): void;
}
