/**
 * How `ork simulate` names the children of its CR in reports and expectations.
 */
import type { KubeObject, ObjectRef } from '@orkestra/registry';

/**
 * formatChildRef names a child (its object or its ref) for the report: `Kind/name` when it lives
 * in the CR's namespace or is cluster-scoped, `Kind/namespace/name` otherwise.
 */
export function formatChildRef(child: KubeObject | ObjectRef, crNamespace: string | undefined): string {
  const ref = 'metadata' in child ? { ...child.metadata, kind: child.kind } : child;
  return ref.namespace == null || ref.namespace === crNamespace
    ? `${ref.kind}/${ref.name}`
    : `${ref.kind}/${ref.namespace}/${ref.name}`;
}

/** normalizeChildRef turns `Kind/<crNamespace>/name` into `Kind/name`, so expectations may use either form. */
export function normalizeChildRef(ref: string, crNamespace: string | undefined): string {
  const parts = ref.split('/');
  return parts.length === 3 && parts[1] === crNamespace ? `${parts[0] ?? ''}/${parts[2] ?? ''}` : ref;
}
