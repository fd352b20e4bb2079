import type { GroupVersionKind, KubeObject, ObjectRef } from './kube-object.js';
import type { RequestCounter } from './request-counter.js';

/**
 * ObjectReader is the cache that `ensure` reads from: synchronous, no API request. The reconciler
 * implements it over its informers; tests implement it over a map filled from write results.
 */
export interface ObjectReader {
  /** get returns the cached object, or undefined when the cache has none. */
  get(ref: ObjectRef): KubeObject | undefined;
  /** listOwned returns the cached objects of one kind whose `owner-uid` label is `ownerUid`. */
  listOwned(ownerUid: string, kind: GroupVersionKind): readonly KubeObject[];
  /**
   * covers tells whether the cache has listed this ref's kind (its informer synced), so that a miss
   * means no labelled object of that name is known: `ensure` then creates with a create-only apply
   * instead of reading first (ADR 0097). Absent or false: a miss is read first (ADR 0032).
   */
  covers?(ref: ObjectRef): boolean;
}

/** PropagationPolicy is the garbage-collection mode of a delete. */
export const PropagationPolicy = {
  Background: 'Background',
  Foreground: 'Foreground',
  Orphan: 'Orphan',
} as const;
export type PropagationPolicy = (typeof PropagationPolicy)[keyof typeof PropagationPolicy];

/** DeleteOptions controls one delete. */
export interface DeleteOptions {
  /** Default `Background`. */
  readonly propagationPolicy?: PropagationPolicy;
  /** When set, the delete only succeeds against the object with this UID (a precondition). */
  readonly uid?: string;
  /**
   * When set, the delete only succeeds against this version of the object (a precondition): a
   * ConflictError when it has changed since it was read.
   */
  readonly resourceVersion?: string | undefined;
}

/** ApplyOptions controls one server-side apply. */
export interface ApplyOptions {
  /** Take over fields owned by other field managers. Default true. */
  readonly force?: boolean;
  /**
   * Only create: when an object of that name already exists the apply fails with a ConflictError
   * (409) and writes nothing (ADR 0097). Sent as a resourceVersion precondition no stored object
   * can have, so the API server creates an absent object and refuses to touch a present one.
   */
  readonly createOnly?: boolean;
}

/** ApplyResult is the object returned by a server-side apply and whether the apply created it (HTTP 201). */
export interface ApplyResult {
  readonly object: KubeObject;
  readonly created: boolean;
}

/** ResourceInfo is what discovery says about a kind: its plural resource name and scope. */
export interface ResourceInfo {
  readonly plural: string;
  readonly namespaced: boolean;
}

/**
 * PatchOptions controls one merge patch. A `resourceVersion` is sent as `metadata.resourceVersion`,
 * which the API server treats as a precondition: the patch fails with a ConflictError (409) when the
 * object changed since (docs/reference/runtime.md §11.4).
 */
export interface PatchOptions {
  readonly resourceVersion?: string | undefined;
}

/** ListOptions narrows a list request. */
export interface ListOptions {
  /** Only this namespace; all namespaces when absent (namespaced kinds). */
  readonly namespace?: string;
  readonly labelSelector?: string;
  readonly fieldSelector?: string;
  /** Page size. Default 500; every page is fetched. */
  readonly limit?: number;
}

/** KubeList is the result of a list: the items and the list's resource version. */
export interface KubeList {
  readonly items: readonly KubeObject[];
  readonly resourceVersion: string;
}

/** ObjectWriter is the write half of the API: create, server-side apply and delete. */
export interface ObjectWriter {
  /** create POSTs a new object (field manager `orkestra`); AlreadyExistsError when it exists. */
  create(obj: KubeObject): Promise<KubeObject>;
  /** apply sends a server-side apply (PATCH `application/apply-patch+yaml`, field manager `orkestra`). */
  apply(obj: KubeObject, options?: ApplyOptions): Promise<ApplyResult>;
  /** delete DELETEs one object; NotFoundError when it is absent. */
  delete(ref: ObjectRef, options?: DeleteOptions): Promise<void>;
}

/**
 * KubeClient is the one API transport of the registry and the reconciler (children, finalizers,
 * status, Events; only watch streams use their own connection). Every call has a timeout, is
 * counted in `requests` by verb and kind, and fails with a typed KubeApiError.
 */
export interface KubeClient extends ObjectWriter {
  /** requests counts every request this client sent, by verb and kind. */
  readonly requests: RequestCounter;
  /** fieldManager is the field manager used for create, apply and patches (`orkestra`). */
  readonly fieldManager: string;
  /** get reads one object from the API server; NotFoundError when it is absent. */
  get(ref: ObjectRef): Promise<KubeObject>;
  /** list reads every object of a kind (all pages). */
  list(kind: GroupVersionKind, options?: ListOptions): Promise<KubeList>;
  /**
   * replace PUTs the whole object (an update); its `metadata.resourceVersion`, when set, is the
   * precondition (ConflictError when someone wrote in between). Leader election's Lease renewals.
   */
  replace(obj: KubeObject): Promise<KubeObject>;
  /** mergePatch sends a JSON merge patch to the object (with a resource-version precondition when given). */
  mergePatch(ref: ObjectRef, patch: Record<string, unknown>, options?: PatchOptions): Promise<KubeObject>;
  /**
   * patchStatus sends `{status}` as a JSON merge patch to the object's `status` subresource (with a
   * resource-version precondition when given); the result always carries `apiVersion` and `kind`.
   */
  patchStatus(ref: ObjectRef, status: Record<string, unknown>, options?: PatchOptions): Promise<KubeObject>;
  /** discover resolves a kind's plural and scope (cached; built-in kinds cost no request). */
  discover(kind: GroupVersionKind): Promise<ResourceInfo>;
}
