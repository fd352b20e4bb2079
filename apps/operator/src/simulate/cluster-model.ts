/**
 * The simulator's in-memory cluster as one operator sees it: the CR and the children it owns,
 * each with the mode, source and prune flag it was written with.
 */
import { kindFor } from '@orkestra/registry';
import type { KubeObject } from '@orkestra/registry';

type Json = Record<string, unknown>;

/** ModelChild is one child in the simulated cluster. */
export interface ModelChild {
  /** `apiVersion/kind/namespace/name`, the identity the runtime compares (docs/reference/runtime.md §9.1). */
  readonly id: string;
  /** The object as the cluster holds it: the written manifest plus the observed state the scenario set. */
  object: KubeObject;
  mode: 'create' | 'apply';
  source: string;
  prune: boolean;
  /** Jobs: finished with a Complete condition (recorded so a deleted Job is not created again). */
  completed: boolean;
}

/** InventoryItem is one `status.inventory` entry (docs/reference/katalog.md §13.1). */
export interface InventoryItem {
  readonly apiVersion: string;
  readonly kind: string;
  readonly namespace?: string;
  readonly name: string;
  readonly mode: 'create' | 'apply';
  readonly source: string;
  readonly prune?: false;
  readonly completed?: true;
}

/** childId returns a manifest's identity: `apiVersion/kind/namespace/name`. */
export function childId(object: KubeObject): string {
  return `${object.apiVersion}/${object.kind}/${object.metadata.namespace ?? ''}/${object.metadata.name}`;
}

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

/** listKeyOf returns the resource list of a child's source, e.g. `deployments` for `onReconcile.deployments[0]`. */
export function listKeyOf(source: string): string {
  return /^[^.]+\.([A-Za-z]+)\[/.exec(source)?.[1] ?? 'custom';
}

/** waveOf returns a child's write wave (docs/reference/runtime.md §9.4); unknown lists count as custom (6). */
export function waveOf(child: ModelChild): number {
  return kindFor(listKeyOf(child.source))?.wave ?? 6;
}

/** jobCompleted tells whether a Job carries a `Complete=True` condition. */
export function jobCompleted(object: KubeObject): boolean {
  const status = object['status'] as Json | undefined;
  const conditions = Array.isArray(status?.['conditions']) ? (status['conditions'] as unknown[]) : [];
  return conditions.some(
    (c) =>
      c != null &&
      typeof c === 'object' &&
      (c as Json)['type'] === 'Complete' &&
      (c as Json)['status'] === 'True',
  );
}

/** mergePatch applies an RFC 7386 JSON merge patch: maps merge, `null` removes, anything else replaces. */
export function mergePatch(target: unknown, patch: unknown): unknown {
  if (patch == null || typeof patch !== 'object' || Array.isArray(patch)) return structuredClone(patch);
  const base: Json =
    target != null && typeof target === 'object' && !Array.isArray(target) ? { ...(target as Json) } : {};
  for (const [key, value] of Object.entries(patch as Json)) {
    if (value === null) delete base[key];
    else {
      // Keys come from scenario YAML: read own properties only, and define rather than assign, so
      // a `__proto__` key is an ordinary field and never reaches the object prototype.
      const current = Object.hasOwn(base, key) ? base[key] : undefined;
      Object.defineProperty(base, key, {
        value: mergePatch(current, value),
        enumerable: true,
        writable: true,
        configurable: true,
      });
    }
  }
  return base;
}

/** inventoryItemOf returns a child's inventory entry. */
export function inventoryItemOf(child: ModelChild): InventoryItem {
  const { object } = child;
  return {
    apiVersion: object.apiVersion,
    kind: object.kind,
    ...(object.metadata.namespace == null ? {} : { namespace: object.metadata.namespace }),
    name: object.metadata.name ?? '',
    mode: child.mode,
    source: child.source,
    ...(child.prune ? {} : { prune: false as const }),
    ...(child.completed ? { completed: true as const } : {}),
  };
}
