import { OrkestraLabel } from '@orkestra/types';
import type { NormalizeRules } from './compare.js';
import { DEFAULT_RULES, compareToCache, withAppliedHash } from './compare.js';
import {
  AlreadyExistsError,
  ConflictError,
  NotFoundError,
  RegistryError,
  RegistryErrorCode,
} from './errors.js';
import type { KubeClient, ObjectReader } from './kube-client.js';
import type { KubeObject } from './kube-object.js';
import { formatRef, refOf } from './kube-object.js';
import type { EnsureResult, WriteMode } from './operation-result.js';

/** EnsureOptions says how to write one child and where to read the cache from. */
export interface EnsureOptions {
  /** `create`: create if absent, never update. `apply`: server-side apply unless the cache already matches. */
  readonly mode: WriteMode;
  /** The cache (informers in the reconciler); read synchronously, costs no request. */
  readonly cache: ObjectReader;
  /** The API client writes go through. */
  readonly client: KubeClient;
  /** Apply mode: take over fields owned by other managers. Default true. */
  readonly force?: boolean;
  /** Called with the object returned by every successful write (read-after-write into the cache). */
  readonly onWritten?: (obj: KubeObject) => void;
  /** Create mode: called when an object of that name exists but is not managed by Orkestra. */
  readonly onNotManaged?: (live: KubeObject) => void;
}

/**
 * ensureObject writes one desired manifest according to its mode and reports what it did.
 * Create mode is cache-first (nothing is sent when the cache has the object); AlreadyExists costs
 * one GET to check ownership. Apply mode stamps the applied-hash and sends nothing when the cached
 * object already matches (compareToCache); on a cache miss it never adopts an object without an
 * Orkestra owner label (RegistryError `ChildConflict`, ADR 0032): a cache that `covers` the kind
 * gets a create-only apply, read only when refused (ADR 0097), any other miss is read first. A child
 * carrying another CR's owner-uid label is never written: RegistryError `ChildOwnedByOther`.
 */
export async function ensureObject(
  manifest: KubeObject,
  options: EnsureOptions,
  rules: NormalizeRules = DEFAULT_RULES,
): Promise<EnsureResult> {
  const ref = refOf(manifest);
  const ownerUid = manifest.metadata.labels?.[OrkestraLabel.OwnerUid];
  const cached = options.cache.get(ref);
  if (cached != null) assertOwned(cached, ownerUid);

  if (options.mode === 'create') {
    if (cached != null) return 'unchanged';
    try {
      const created = await options.client.create(manifest);
      options.onWritten?.(created);
      return 'created';
    } catch (err) {
      if (!(err instanceof AlreadyExistsError)) throw err;
      const live = await options.client.get(ref);
      const liveOwner = live.metadata.labels?.[OrkestraLabel.OwnerUid];
      if (liveOwner == null) {
        options.onNotManaged?.(live);
        return 'unchanged';
      }
      assertOwned(live, ownerUid);
      options.onWritten?.(live);
      return 'unchanged';
    }
  }

  const desired = withAppliedHash(manifest);
  const force = options.force ?? true;
  // A miss in a cache that has listed the kind: most likely nothing of that name exists, so the
  // child is created by a create-only apply (ADR 0097), which the API server refuses (409, nothing
  // written) when an object of that name exists; that object is then read and judged below.
  if (cached == null && options.cache.covers?.(ref) === true) {
    try {
      const { object } = await options.client.apply(desired, { force, createOnly: true });
      options.onWritten?.(object);
      return 'created';
    } catch (err) {
      if (!(err instanceof ConflictError || err instanceof AlreadyExistsError)) throw err;
    }
  }
  // Never adopt (ADR 0032): the child cache holds only labelled objects, so on a miss the live
  // object is read before any write that could land on it. An object without an owner label is
  // someone else's: a ChildConflict, left untouched; one of another CR is ChildOwnedByOther.
  // Server-side apply creates the child only when nothing of that name exists. (A POST would own
  // the fields under an Update entry, which later applies of the same manager conflict with.)
  const live = cached ?? (await liveObject(options.client, ref));
  if (cached == null && live != null) {
    if (live.metadata.labels?.[OrkestraLabel.OwnerUid] == null) {
      throw new RegistryError(
        RegistryErrorCode.ChildConflict,
        `${formatRef(ref)} already exists and is not managed by Orkestra; it is left untouched (delete or rename it, or rename the child)`,
      );
    }
    assertOwned(live, ownerUid);
  }
  if (compareToCache(desired, live, rules) === 'match') {
    if (cached == null && live != null) options.onWritten?.(live);
    return 'unchanged';
  }
  // Nothing of that name was found: the apply may only create, so an object made since the read is
  // refused (409, retried by the reconcile, which then reads and judges it), never applied over.
  const { object, created } = await options.client.apply(desired, {
    force,
    ...(live == null ? { createOnly: true } : {}),
  });
  options.onWritten?.(object);
  return created ? 'created' : 'updated';
}

/** liveObject GETs an object, or undefined when it does not exist. */
async function liveObject(
  client: KubeClient,
  ref: ReturnType<typeof refOf>,
): Promise<KubeObject | undefined> {
  try {
    return await client.get(ref);
  } catch (err) {
    if (err instanceof NotFoundError) return undefined;
    throw err;
  }
}

function assertOwned(live: KubeObject, ownerUid: string | undefined): void {
  const liveOwner = live.metadata.labels?.[OrkestraLabel.OwnerUid];
  if (liveOwner != null && ownerUid != null && liveOwner !== ownerUid) {
    throw new RegistryError(
      RegistryErrorCode.ChildOwnedByOther,
      `${formatRef(refOf(live))} belongs to the CR with UID ${liveOwner}`,
    );
  }
}
