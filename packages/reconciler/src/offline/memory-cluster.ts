/**
 * MemoryCluster is the in-memory side of the pipeline's store seam: an API server and its caches
 * in one map, for `ork render`, `ork simulate` and the parity test. It answers the `KubeClient`
 * calls the pipeline makes (create, server-side apply, merge patch, status patch, delete, get,
 * list) with the API server's observable rules that the pipeline depends on: UIDs, resource
 * versions and their preconditions, `generation` bumped by spec changes, finalizers holding a
 * delete, and garbage collection of dependents by owner reference. It does not default fields,
 * run controllers or admission, or track field managers (an apply replaces what it names).
 */
import { createHash } from 'node:crypto';
import { AlreadyExistsError, ConflictError, NotFoundError, RequestCounter, refOf } from '@orkestra/registry';
import type {
  ApplyOptions,
  ApplyResult,
  DeleteOptions,
  GroupVersionKind,
  KubeClient,
  KubeList,
  KubeObject,
  ListOptions,
  ObjectRef,
  ResourceInfo,
} from '@orkestra/registry';
import { OrkestraLabel, guessPlural, resourceKindOf } from '@orkestra/types';
import type { Clock } from '../clock.js';
import { formatRfc3339 } from '../secrets/rotation.js';
import type { ChildStore, PrimaryStore } from '../runtime/stores.js';
import { isMap } from '../is-map.js';

/** ClusterWriteVerb is what one write did to the memory cluster. */
export type ClusterWriteVerb = 'create' | 'apply' | 'patch' | 'status' | 'delete' | 'removed';

/**
 * ClusterWrite is one entry of the cluster's write log. `delete` is a delete request; `removed`
 * is an object leaving the cluster (its delete went through, its last finalizer was removed, or
 * garbage collection took it, then `collected` is true).
 */
export interface ClusterWrite {
  readonly verb: ClusterWriteVerb;
  readonly ref: ObjectRef;
  /** The body the client sent (create and apply). */
  readonly body?: KubeObject;
  /** `removed` only: garbage collection removed it because its owner is gone. */
  readonly collected?: boolean;
}

/** MemoryClusterOptions configures a MemoryCluster. */
export interface MemoryClusterOptions {
  /** Source of `creationTimestamp` and `deletionTimestamp`. */
  readonly clock: Clock;
}

type Json = Record<string, unknown>;

/** idOfRef is an object's identity `apiVersion/kind/namespace/name`. */
function idOfRef(ref: ObjectRef): string {
  return `${ref.apiVersion}/${ref.kind}/${ref.namespace ?? ''}/${ref.name}`;
}

/**
 * MemoryCluster holds objects by identity. Objects handed out are frozen, as the informer caches'
 * are; every write stores a new object. `writes` logs what happened, in order.
 *
 * @example
 * const cluster = new MemoryCluster({ clock });
 * cluster.put(cr);
 * const pipeline = new CrdPipeline({ primary: cluster.primaryStore(crd.apiVersion, crd.apiTypes.kind),
 *   children: cluster.childStore, client: cluster.client, … });
 */
export class MemoryCluster {
  readonly #clock: Clock;
  readonly #objects = new Map<string, KubeObject>();
  #resourceVersion = 0;
  readonly #writes: ClusterWrite[] = [];
  /** client is the KubeClient over this cluster. */
  readonly client: KubeClient;
  /** childStore is the ChildStore view: every kind is held. */
  readonly childStore: ChildStore;

  constructor(options: MemoryClusterOptions) {
    this.#clock = options.clock;
    this.client = this.#createClient();
    this.childStore = {
      watches: () => true,
      get: (ref) => this.get(ref),
      listOwned: (ownerUid, kind) =>
        this.list().filter(
          (o) =>
            o.apiVersion === kind.apiVersion &&
            o.kind === kind.kind &&
            o.metadata.labels?.[OrkestraLabel.OwnerUid] === ownerUid,
        ),
      listAllOwned: (ownerUid) =>
        this.list().filter((o) => o.metadata.labels?.[OrkestraLabel.OwnerUid] === ownerUid),
      upsertFromWrite: () => undefined,
    };
  }

  /** writes is the write log so far, oldest first. */
  get writes(): readonly ClusterWrite[] {
    return this.#writes;
  }

  /** primaryStore returns the PrimaryStore view of one CR kind. */
  primaryStore(apiVersion: string, kind: string): PrimaryStore {
    const ofKind = (): KubeObject[] =>
      this.list().filter((o) => o.apiVersion === apiVersion && o.kind === kind);
    const byKey = (key: string): KubeObject | undefined => {
      const [namespace, name] = key.includes('/') ? key.split('/', 2) : [undefined, key];
      return this.get({ apiVersion, kind, name: name ?? '', ...(namespace == null ? {} : { namespace }) });
    };
    return {
      get: byKey,
      getByName: (namespace, name) =>
        byKey(namespace == null || namespace === '' ? name : `${namespace}/${name}`),
      list: ofKind,
      upsertFromWrite: () => undefined,
    };
  }

  /** get returns the stored object, or undefined. */
  get(ref: ObjectRef): KubeObject | undefined {
    return this.#objects.get(idOfRef(normalizeRef(ref)));
  }

  /** list returns every stored object, in the order they were first stored. */
  list(): KubeObject[] {
    return [...this.#objects.values()];
  }

  /**
   * put stores an object as a user's `kubectl apply` would: a new object gets a UID (derived from
   * its identity unless given), generation 1 and a creation time; an existing one keeps them,
   * keeps its status and finalizers unless the object names them, and its generation goes up when
   * the spec changed.
   */
  put(object: KubeObject): KubeObject {
    const ref = refOf(object);
    const existing = this.get(ref);
    if (existing == null) return this.#store(this.#fresh(object));
    const next: KubeObject = {
      ...structuredClone(object),
      ...(object['status'] === undefined && existing['status'] !== undefined
        ? { status: structuredClone(existing['status']) }
        : {}),
      metadata: {
        ...existing.metadata,
        ...structuredClone(object.metadata),
        uid: existing.metadata.uid ?? uidOf(idOfRef(ref)),
        creationTimestamp: existing.metadata['creationTimestamp'],
        generation: nextGeneration(existing, object),
        resourceVersion: this.#nextVersion(),
      },
    };
    return this.#store(next);
  }

  /**
   * restore stores an object as exported from a cluster (`ork diff`): its UID, generation and
   * creation time are kept as given (a UID is derived from its identity when absent); only the
   * resource version is this cluster's own.
   */
  restore(object: KubeObject): KubeObject {
    const ref = refOf(object);
    return this.#store({
      ...structuredClone(object),
      metadata: {
        ...structuredClone(object.metadata),
        uid: object.metadata.uid ?? uidOf(idOfRef(ref)),
        generation: typeof object.metadata['generation'] === 'number' ? object.metadata['generation'] : 1,
        creationTimestamp: object.metadata['creationTimestamp'] ?? formatRfc3339(new Date(this.#clock.now())),
        resourceVersion: this.#nextVersion(),
      },
    });
  }

  /** observe merges a patch into a stored object as another writer (a controller) would; null removes the object. */
  observe(ref: ObjectRef, patch: Json | null): KubeObject | undefined {
    if (patch == null) {
      this.#remove(normalizeRef(ref), false);
      return undefined;
    }
    return this.#patch(normalizeRef(ref), patch, undefined, undefined);
  }

  /** requestDelete deletes an object as a user would: with finalizers it gets a deletion timestamp. */
  requestDelete(ref: ObjectRef): void {
    this.#delete(normalizeRef(ref), {}, false);
  }

  // ---- the KubeClient --------------------------------------------------------------------------

  #createClient(): KubeClient {
    const requests = new RequestCounter();
    return {
      requests,
      fieldManager: 'orkestra',
      create: async (obj) => {
        requests.record('create', obj.kind);
        const ref = refOf(obj);
        if (this.get(ref) != null) {
          throw new AlreadyExistsError({
            status: 409,
            reason: 'AlreadyExists',
            verb: 'create',
            ref,
            message: 'already exists',
          });
        }
        const stored = this.#store(this.#fresh(obj));
        this.#writes.push({ verb: 'create', ref: refOf(stored), body: obj });
        return stored;
      },
      apply: async (obj: KubeObject, options?: ApplyOptions): Promise<ApplyResult> => {
        requests.record('apply', obj.kind);
        const ref = refOf(obj);
        const existing = this.get(ref);
        if (existing != null && options?.createOnly === true) {
          throw new ConflictError({
            status: 409,
            reason: 'Conflict',
            verb: 'apply',
            ref,
            message: 'the object has been modified',
          });
        }
        this.#writes.push({ verb: 'apply', ref, body: obj });
        if (existing == null) return { object: this.#store(this.#fresh(obj)), created: true };
        const next: KubeObject = {
          ...structuredClone(obj),
          ...(existing['status'] === undefined ? {} : { status: structuredClone(existing['status']) }),
          metadata: {
            ...structuredClone(obj.metadata),
            uid: existing.metadata.uid ?? uidOf(idOfRef(ref)),
            creationTimestamp: existing.metadata['creationTimestamp'],
            generation: nextGeneration(existing, obj),
            resourceVersion: this.#nextVersion(),
            ...(existing.metadata['finalizers'] == null
              ? {}
              : { finalizers: existing.metadata['finalizers'] }),
            ...(existing.metadata['deletionTimestamp'] == null
              ? {}
              : { deletionTimestamp: existing.metadata['deletionTimestamp'] }),
          },
        };
        return { object: this.#store(next), created: false };
      },
      delete: async (ref: ObjectRef, options?: DeleteOptions) => {
        requests.record('delete', ref.kind);
        this.#delete(normalizeRef(ref), options ?? {}, true);
      },
      get: async (ref) => {
        requests.record('get', ref.kind);
        const found = this.get(ref);
        if (found == null) throw notFound('get', ref);
        return found;
      },
      list: async (kind: GroupVersionKind, options?: ListOptions): Promise<KubeList> => {
        requests.record('list', kind.kind);
        const selector = parseSelector(options?.labelSelector);
        const items = this.list().filter(
          (o) =>
            o.apiVersion === kind.apiVersion &&
            o.kind === kind.kind &&
            (options?.namespace == null || o.metadata.namespace === options.namespace) &&
            selector.every(([k, v]) => o.metadata.labels?.[k] === v),
        );
        return { items, resourceVersion: String(this.#resourceVersion) };
      },
      replace: async (obj: KubeObject) => {
        requests.record('update', obj.kind);
        const ref = normalizeRef(refOf(obj));
        const existing = this.get(ref);
        if (existing == null) throw notFound('update', ref);
        // A full replacement is a merge patch that first removes every top-level field the object leaves out.
        const removed: Record<string, null> = {};
        for (const key of Object.keys(existing)) if (!(key in obj)) removed[key] = null;
        const { resourceVersion, ...metadata } = obj.metadata;
        return this.#patch(ref, { ...removed, ...obj, metadata }, resourceVersion, 'patch');
      },
      mergePatch: async (ref, patch, patchOptions) => {
        requests.record('patch', ref.kind);
        const metadata = isMap(patch['metadata']) ? patch['metadata'] : undefined;
        const precondition = patchOptions?.resourceVersion ?? metadata?.['resourceVersion'];
        const { resourceVersion: _rv, ...restMetadata } = metadata ?? {};
        const body = metadata == null ? patch : { ...patch, metadata: restMetadata };
        return this.#patch(
          normalizeRef(ref),
          body,
          typeof precondition === 'string' ? precondition : undefined,
          'patch',
        );
      },
      patchStatus: async (ref, status, patchOptions) => {
        requests.record('patch', ref.kind);
        // The resource-version precondition is honoured, as the API server does (docs/reference/runtime.md §11.4).
        return this.#patch(normalizeRef(ref), { status }, patchOptions?.resourceVersion, 'status');
      },
      // Plural and scope from the kind facts table; a kind without facts is guessed (namespaced).
      discover: async (kind: GroupVersionKind): Promise<ResourceInfo> => {
        const facts = resourceKindOf(kind.apiVersion, kind.kind);
        return {
          plural: facts?.plural ?? guessPlural(kind.kind),
          namespaced: facts?.namespaced ?? true,
        };
      },
    };
  }

  // ---- storage ---------------------------------------------------------------------------------

  #nextVersion(): string {
    this.#resourceVersion++;
    return String(this.#resourceVersion);
  }

  #fresh(object: KubeObject): KubeObject {
    const ref = refOf(object);
    return {
      ...structuredClone(object),
      metadata: {
        ...structuredClone(object.metadata),
        uid: object.metadata.uid ?? uidOf(idOfRef(ref)),
        generation: 1,
        creationTimestamp: formatRfc3339(new Date(this.#clock.now())),
        resourceVersion: this.#nextVersion(),
      },
    };
  }

  #store(object: KubeObject): KubeObject {
    const frozen = deepFreeze(object);
    this.#objects.set(idOfRef(normalizeRef(refOf(frozen))), frozen);
    return frozen;
  }

  #patch(
    ref: ObjectRef,
    patch: Json,
    precondition: string | undefined,
    verb: 'patch' | 'status' | undefined,
  ): KubeObject {
    const existing = this.get(ref);
    if (existing == null) throw notFound('patch', ref);
    if (precondition != null && precondition !== existing.metadata.resourceVersion) {
      throw new ConflictError({
        status: 409,
        reason: 'Conflict',
        verb: 'patch',
        ref,
        message: `the object has been modified (resourceVersion ${precondition}, stored ${existing.metadata.resourceVersion ?? ''})`,
      });
    }
    const merged = mergePatch(existing, patch) as KubeObject;
    const next: KubeObject = {
      ...merged,
      metadata: {
        ...merged.metadata,
        uid: existing.metadata.uid ?? uidOf(idOfRef(ref)),
        generation: nextGeneration(existing, merged),
        resourceVersion: this.#nextVersion(),
      },
    };
    if (verb != null) this.#writes.push({ verb, ref });
    const stored = this.#store(next);
    const finalizers = (stored.metadata['finalizers'] as readonly string[] | undefined) ?? [];
    if (stored.metadata['deletionTimestamp'] != null && finalizers.length === 0) this.#remove(ref, false);
    return stored;
  }

  #delete(ref: ObjectRef, options: DeleteOptions, logged: boolean): void {
    const existing = this.get(ref);
    if (existing == null) throw notFound('delete', ref);
    if (options.uid != null && options.uid !== existing.metadata.uid) {
      throw new ConflictError({
        status: 409,
        reason: 'Conflict',
        verb: 'delete',
        ref,
        message: `precondition failed: UID ${options.uid}, stored ${existing.metadata.uid ?? ''}`,
      });
    }
    if (logged) this.#writes.push({ verb: 'delete', ref });
    const finalizers = (existing.metadata['finalizers'] as readonly string[] | undefined) ?? [];
    if (finalizers.length > 0) {
      if (existing.metadata['deletionTimestamp'] != null) return;
      this.#store({
        ...existing,
        metadata: {
          ...existing.metadata,
          deletionTimestamp: formatRfc3339(new Date(this.#clock.now())),
          resourceVersion: this.#nextVersion(),
        },
      });
      return;
    }
    this.#remove(ref, false);
  }

  /** #remove takes an object out and garbage-collects its dependents (by owner reference UID), depth first. */
  #remove(ref: ObjectRef, collected: boolean): void {
    const id = idOfRef(ref);
    const existing = this.#objects.get(id);
    if (existing == null) return;
    this.#objects.delete(id);
    this.#writes.push({ verb: 'removed', ref, ...(collected ? { collected: true } : {}) });
    const uid = existing.metadata.uid;
    if (uid == null) return;
    for (const dependent of this.list()) {
      if (dependent.metadata.ownerReferences?.some((o) => o.uid === uid) !== true) continue;
      this.#remove(normalizeRef(refOf(dependent)), true);
    }
  }
}

function normalizeRef(ref: ObjectRef): ObjectRef {
  return ref.namespace == null || ref.namespace === ''
    ? { apiVersion: ref.apiVersion, kind: ref.kind, name: ref.name }
    : { apiVersion: ref.apiVersion, kind: ref.kind, name: ref.name, namespace: ref.namespace };
}

function notFound(verb: string, ref: ObjectRef): NotFoundError {
  return new NotFoundError({ status: 404, reason: 'NotFound', verb, ref, message: 'not found' });
}

/** uidOf derives a stable UUID-shaped UID from an identity, so offline output is reproducible. */
export function uidOf(identity: string): string {
  const hex = createHash('sha256').update(identity).digest('hex');
  return `${hex.slice(0, 8)}-${hex.slice(8, 12)}-4${hex.slice(13, 16)}-8${hex.slice(17, 20)}-${hex.slice(20, 32)}`;
}

function nextGeneration(existing: KubeObject, next: KubeObject): number {
  const generation =
    typeof existing.metadata['generation'] === 'number' ? existing.metadata['generation'] : 1;
  return JSON.stringify(existing['spec'] ?? null) === JSON.stringify(next['spec'] ?? null)
    ? generation
    : generation + 1;
}

function parseSelector(selector: string | undefined): [string, string][] {
  if (selector == null || selector === '') return [];
  return selector.split(',').map((part) => {
    const [key, value] = part.split('=');
    return [key ?? '', value ?? ''];
  });
}

/** mergePatch applies an RFC 7386 JSON merge patch: maps merge, `null` removes, anything else replaces. */
export function mergePatch(target: unknown, patch: unknown): unknown {
  if (!isMap(patch)) return structuredClone(patch);
  const base: Json = isMap(target) ? { ...target } : {};
  for (const [key, value] of Object.entries(patch)) {
    if (value === null) {
      delete base[key];
      continue;
    }
    // Keys may come from user YAML (scenarios): define rather than assign, so `__proto__` stays an ordinary key.
    Object.defineProperty(base, key, {
      value: mergePatch(Object.hasOwn(base, key) ? base[key] : undefined, value),
      enumerable: true,
      writable: true,
      configurable: true,
    });
  }
  return base;
}

function deepFreeze<T>(value: T): T {
  if (value != null && typeof value === 'object' && !Object.isFrozen(value)) {
    Object.freeze(value);
    for (const child of Object.values(value as object)) deepFreeze(child);
  }
  return value;
}
