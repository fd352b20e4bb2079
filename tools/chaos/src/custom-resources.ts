/**
 * Custom resources for the chaos scenarios, read and written as admin: CRD installation for a
 * Katalog entry's apiTypes, a small typed client, and helpers for the Ready condition.
 */
import { randomBytes } from 'node:crypto';
import {
  ApiextensionsV1Api,
  CoreV1Api,
  CustomObjectsApi,
  PatchStrategy,
  setHeaderOptions,
} from '@kubernetes/client-node';
import type { KubeConfig } from '@kubernetes/client-node';
import type { ApiTypes } from '@orkestra/types';
import { waitFor } from './wait-for.js';

/** uniqueSuffix returns six random hex characters, for API groups and namespaces no other run uses. */
export function uniqueSuffix(): string {
  return randomBytes(3).toString('hex');
}

/** Condition is one entry of `status.conditions`. */
export interface Condition {
  readonly type: string;
  readonly status: string;
  readonly reason: string;
  readonly message: string;
  readonly observedGeneration?: number;
}

/** CrObject is a custom object as read back. */
export interface CrObject {
  readonly metadata: {
    readonly name: string;
    readonly namespace?: string;
    readonly uid: string;
    readonly generation?: number;
    readonly finalizers?: readonly string[];
    readonly deletionTimestamp?: string;
    readonly resourceVersion: string;
  };
  readonly spec?: Record<string, unknown>;
  readonly status?: {
    readonly conditions?: readonly Condition[];
    readonly observedGeneration?: number;
    readonly [key: string]: unknown;
  };
}

/** readyOf returns a CR's Ready condition. */
export function readyOf(cr: CrObject): Condition | undefined {
  return cr.status?.conditions?.find((c) => c.type === 'Ready');
}

/** isReadyAtGeneration tells whether the CR reports Ready=True for its current generation. */
export function isReadyAtGeneration(cr: CrObject): boolean {
  const ready = readyOf(cr);
  return ready?.status === 'True' && ready.observedGeneration === cr.metadata.generation;
}

/** CrClient reads and writes the CRs of one kind. */
export interface CrClient {
  create(namespace: string, name: string, spec: Record<string, unknown>): Promise<CrObject>;
  get(namespace: string, name: string): Promise<CrObject>;
  list(namespace: string): Promise<CrObject[]>;
  patchSpec(namespace: string, name: string, spec: Record<string, unknown>): Promise<void>;
  remove(namespace: string, name: string): Promise<void>;
}

/** crClient returns a {@link CrClient} for apiTypes through `kubeConfig`. */
export function crClient(kubeConfig: KubeConfig, api: ApiTypes): CrClient {
  const custom = kubeConfig.makeApiClient(CustomObjectsApi);
  const base = { group: api.group, version: api.version, plural: api.plural };
  return {
    async create(namespace, name, spec) {
      return (await custom.createNamespacedCustomObject({
        ...base,
        namespace,
        body: { apiVersion: `${api.group}/${api.version}`, kind: api.kind, metadata: { name }, spec },
      })) as CrObject;
    },
    async get(namespace, name) {
      return (await custom.getNamespacedCustomObject({ ...base, namespace, name })) as CrObject;
    },
    async list(namespace) {
      const list = (await custom.listNamespacedCustomObject({ ...base, namespace })) as { items: CrObject[] };
      return list.items;
    },
    async patchSpec(namespace, name, spec) {
      await custom.patchNamespacedCustomObject(
        { ...base, namespace, name, body: { spec } },
        setHeaderOptions('Content-Type', PatchStrategy.MergePatch),
      );
    },
    async remove(namespace, name) {
      await custom.deleteNamespacedCustomObject({ ...base, namespace, name });
    },
  };
}

/**
 * installCrd creates a CRD for apiTypes (namespaced, status subresource, unknown fields kept),
 * waits until it is Established and returns its deleter.
 */
export async function installCrd(kubeConfig: KubeConfig, api: ApiTypes): Promise<() => Promise<void>> {
  const ext = kubeConfig.makeApiClient(ApiextensionsV1Api);
  const name = `${api.plural}.${api.group}`;
  const open = { type: 'object', x_kubernetes_preserve_unknown_fields: true };
  await ext.createCustomResourceDefinition({
    body: {
      apiVersion: 'apiextensions.k8s.io/v1',
      kind: 'CustomResourceDefinition',
      metadata: { name },
      spec: {
        group: api.group,
        scope: 'Namespaced',
        names: { plural: api.plural, kind: api.kind, singular: api.kind.toLowerCase() },
        versions: [
          {
            name: api.version,
            served: true,
            storage: true,
            subresources: { status: {} },
            schema: { openAPIV3Schema: { type: 'object', properties: { spec: open, status: open } } },
          },
        ],
      },
    },
  });
  await waitFor(`CRD ${name} Established`, async () => {
    const crd = await ext.readCustomResourceDefinition({ name });
    return (crd.status?.conditions ?? []).some((c) => c.type === 'Established' && c.status === 'True');
  });
  return async () => {
    await ext.deleteCustomResourceDefinition({ name }).catch(() => undefined);
  };
}

/** createNamespace creates a namespace and returns its deleter. */
export async function createNamespace(kubeConfig: KubeConfig, name: string): Promise<() => Promise<void>> {
  const core = kubeConfig.makeApiClient(CoreV1Api);
  await core.createNamespace({ body: { metadata: { name } } });
  return async () => {
    await core.deleteNamespace({ name }).catch(() => undefined);
  };
}

/** isNotFound tells whether a client-node error is a 404. */
export function isNotFound(error: unknown): boolean {
  return (error as { code?: number } | null)?.code === 404;
}
