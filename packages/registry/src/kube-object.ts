/**
 * KubeObject is the loose shape of any Kubernetes object this package reads or writes: plain JSON
 * with `apiVersion`, `kind` and `metadata`; every other top-level key is kind-specific.
 */
export interface KubeObject {
  readonly apiVersion: string;
  readonly kind: string;
  readonly metadata: KubeMetadata;
  readonly [key: string]: unknown;
}

/** KubeMetadata is the part of `metadata` this package reads; other keys pass through. */
export interface KubeMetadata {
  readonly name?: string;
  readonly namespace?: string;
  readonly uid?: string;
  readonly resourceVersion?: string;
  readonly labels?: Readonly<Record<string, string>>;
  readonly annotations?: Readonly<Record<string, string>>;
  readonly ownerReferences?: readonly OwnerReference[];
  readonly [key: string]: unknown;
}

/** OwnerReference is a Kubernetes `metadata.ownerReferences` item. */
export interface OwnerReference {
  readonly apiVersion: string;
  readonly kind: string;
  readonly name: string;
  readonly uid: string;
  readonly controller?: boolean;
  readonly blockOwnerDeletion?: boolean;
}

/** GroupVersionKind names a kind by its `apiVersion` (`apps/v1`, `v1`) and `kind`. */
export interface GroupVersionKind {
  readonly apiVersion: string;
  readonly kind: string;
}

/** ObjectRef identifies one object: its kind, name and, for namespaced kinds, namespace. */
export interface ObjectRef extends GroupVersionKind {
  readonly name: string;
  readonly namespace?: string;
}

/** refOf returns the ObjectRef of an object (its kind, namespace and name). */
export function refOf(obj: KubeObject): ObjectRef {
  const name = obj.metadata.name ?? '';
  const namespace = obj.metadata.namespace;
  return namespace == null
    ? { apiVersion: obj.apiVersion, kind: obj.kind, name }
    : { apiVersion: obj.apiVersion, kind: obj.kind, name, namespace };
}

/** formatRef renders a ref as `Kind namespace/name` (or `Kind name` when cluster-scoped), for messages. */
export function formatRef(ref: ObjectRef): string {
  return ref.namespace == null ? `${ref.kind} ${ref.name}` : `${ref.kind} ${ref.namespace}/${ref.name}`;
}
