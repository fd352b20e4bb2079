import type { OwnerReference } from './kube-object.js';

/**
 * Owner is the CR a child belongs to, passed in by the caller: the registry never assumes its
 * type. `crd` is the CRD entry name from the Katalog; `namespace` is absent for a cluster-scoped CR.
 */
export interface Owner {
  readonly apiVersion: string;
  readonly kind: string;
  readonly name: string;
  readonly namespace?: string;
  readonly uid: string;
  readonly crd: string;
  /** The shard that owns the CR (its `orkestra.konductor.io/shard` label), stamped on every child; unset when not sharded (ADR 0045). */
  readonly shard?: string;
}

/**
 * ownerReferenceFor returns the owner reference a child gets (docs/reference/katalog.md §22.1): every child of a
 * cluster-scoped owner, and children of a namespaced owner that live in the owner's namespace.
 */
export function ownerReferenceFor(
  owner: Owner,
  childNamespace: string | undefined,
): OwnerReference | undefined {
  const eligible = owner.namespace == null || (childNamespace != null && childNamespace === owner.namespace);
  if (!eligible) return undefined;
  return {
    apiVersion: owner.apiVersion,
    kind: owner.kind,
    name: owner.name,
    uid: owner.uid,
    controller: true,
    blockOwnerDeletion: true,
  };
}
