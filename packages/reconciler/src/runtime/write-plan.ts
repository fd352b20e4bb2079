/**
 * The order of a reconcile's writes (ADR 0011-write-waves): a reconcile waits
 * for an earlier write only where the API server needs it to exist, so it costs as few sequential
 * round trips as the API allows.
 *
 * - Write waves: namespaces, and the CustomResourceDefinitions of custom kinds, first (a
 *   namespaced child cannot be created before its namespace, a custom object before its CRD); then
 *   Roles, ClusterRoles and ServiceAccounts (the API server's RBAC escalation check reads the role
 *   a RoleBinding refers to unless the writer holds `bind`, and its ServiceAccount admission
 *   rejects a pod, created at once by a Job or Deployment, whose ServiceAccount does not exist);
 *   then everything else in one wave. Nothing else the runtime writes has an API-level
 *   dependency: a Deployment whose ConfigMap or Secret does not exist yet is accepted, and its
 *   pods wait for it.
 * - The finalizer: written together with the first wave when every desired child is collected
 *   through an ownerReference to the CR and the entry has nothing else to clean up (no onDelete,
 *   no providers, no extra finalizers): if the CR is deleted before the finalizer lands, garbage
 *   collection removes every child. Otherwise the finalizer is written first, so no child can
 *   outlive its owner.
 */
import type { KubeObject } from '@orkestra/registry';
import type { DesiredChild } from './desired-set.js';

/** WriteWave is the wave a child is written in: lower waves complete before higher ones start. */
export const WriteWave = { Foundations: 0, Roles: 1, Rest: 2 } as const;
export type WriteWave = (typeof WriteWave)[keyof typeof WriteWave];

const FOUNDATION_KINDS: ReadonlySet<string> = new Set([
  'v1/Namespace',
  'apiextensions.k8s.io/v1/CustomResourceDefinition',
  'apiextensions.k8s.io/v1beta1/CustomResourceDefinition',
]);
const ROLE_KINDS: ReadonlySet<string> = new Set([
  'v1/ServiceAccount',
  'rbac.authorization.k8s.io/v1/Role',
  'rbac.authorization.k8s.io/v1/ClusterRole',
]);

/** writeWaveOf returns the wave of a child from its apiVersion and kind. */
export function writeWaveOf(ref: { readonly apiVersion: string; readonly kind: string }): WriteWave {
  const key = `${ref.apiVersion}/${ref.kind}`;
  if (FOUNDATION_KINDS.has(key)) return WriteWave.Foundations;
  if (ROLE_KINDS.has(key)) return WriteWave.Roles;
  return WriteWave.Rest;
}

/** groupByWave splits children into waves, in wave order; each wave keeps the children's order. */
export function groupByWave<
  T extends { readonly ref: { readonly apiVersion: string; readonly kind: string } },
>(children: readonly T[]): T[][] {
  const waves = new Map<WriteWave, T[]>();
  for (const child of children) {
    const wave = writeWaveOf(child.ref);
    const list = waves.get(wave) ?? [];
    list.push(child);
    waves.set(wave, list);
  }
  return [...waves.keys()].sort((a, b) => a - b).map((w) => waves.get(w) ?? []);
}

/** FinalizerCleanup says what, besides garbage collection, the entry does when a CR is deleted. */
export interface FinalizerCleanup {
  readonly extraFinalizers: readonly string[];
  readonly hasOnDelete: boolean;
  readonly hasProviders: boolean;
}

/**
 * finalizerMayJoinFirstWave tells whether the finalizer can be written together with the first
 * child writes: the entry cleans up nothing itself, and every desired child carries an
 * ownerReference to the CR (`ownerUid`), so garbage collection removes them all if the CR goes
 * before the finalizer lands.
 */
export function finalizerMayJoinFirstWave(
  cleanup: FinalizerCleanup,
  ownerUid: string,
  children: readonly Pick<DesiredChild, 'manifest'>[],
): boolean {
  if (cleanup.extraFinalizers.length > 0 || cleanup.hasOnDelete || cleanup.hasProviders) return false;
  if (ownerUid === '') return false;
  return children.every((child) => isOwnedBy(child.manifest, ownerUid));
}

function isOwnedBy(manifest: KubeObject, ownerUid: string): boolean {
  const refs = (manifest.metadata as { ownerReferences?: readonly { uid?: string }[] }).ownerReferences;
  return refs?.some((r) => r.uid === ownerUid) === true;
}
