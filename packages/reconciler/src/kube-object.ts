/**
 * Helpers on Kubernetes objects for the cache and the queues. The object type itself is
 * `@orkestra/registry`'s KubeObject.
 */
import type { KubeObject } from '@orkestra/registry';

export type { KubeObject };

/** keyOf is an object's queue and cache key: `namespace/name`, or `name` for cluster-scoped objects. */
export function keyOf(obj: Pick<KubeObject, 'metadata'>): string {
  const name = obj.metadata.name ?? '';
  const namespace = obj.metadata.namespace;
  return namespace == null || namespace === '' ? name : `${namespace}/${name}`;
}

const DECIMAL = /^(0|[1-9][0-9]*)$/;

/**
 * isNewerResourceVersion tells whether `candidate` should replace `current`: compared as integers
 * when both are decimal (etcd-backed servers), otherwise any different value counts as newer (the
 * watch event wins). A missing current version is always older.
 */
export function isNewerResourceVersion(candidate: string | undefined, current: string | undefined): boolean {
  if (current == null || current === '') return true;
  if (candidate == null || candidate === '') return false;
  if (DECIMAL.test(candidate) && DECIMAL.test(current)) return BigInt(candidate) > BigInt(current);
  return candidate !== current;
}
