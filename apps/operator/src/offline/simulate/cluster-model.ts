/**
 * How `ork simulate` names the children of its CR in reports and expectations.
 */
import type { KubeObject } from '@orkestra/registry';

/**
 * formatChildRef names a child for the report: `Kind/name` when it lives in the CR's namespace or
 * is cluster-scoped, `Kind/namespace/name` otherwise.
 */
export function formatChildRef(object: KubeObject, crNamespace: string | undefined): string {
  const ns = object.metadata.namespace;
  return ns == null || ns === crNamespace
    ? `${object.kind}/${object.metadata.name}`
    : `${object.kind}/${ns}/${object.metadata.name}`;
}

/** normalizeChildRef turns `Kind/<crNamespace>/name` into `Kind/name`, so expectations may use either form. */
export function normalizeChildRef(ref: string, crNamespace: string | undefined): string {
  const parts = ref.split('/');
  return parts.length === 3 && parts[1] === crNamespace ? `${parts[0] ?? ''}/${parts[2] ?? ''}` : ref;
}
