/**
 * Helpers for the runtime integration tests: CRD installation from a Katalog's apiTypes, polling,
 * typed access to custom objects, and a quiet logger.
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
import { loadKatalog } from '@orkestra/types';
import type { ApiTypes, Katalog, Logger } from '@orkestra/types';
import { pino } from 'pino';

/** uniqueGroup returns an API group no other test file uses. */
export function uniqueGroup(prefix: string): string {
  return `${prefix}${randomBytes(3).toString('hex')}.example.com`;
}

/** katalogFrom loads inline Katalog text or throws with every issue. */
export function katalogFrom(text: string): Katalog {
  const result = loadKatalog({ text });
  if (!result.ok) throw new Error(result.errors.map((e) => `${e.path}: ${e.message}`).join('\n'));
  return result.katalog;
}

/** installCrd creates a CRD for apiTypes (status subresource, unknown fields preserved) and waits until it is established. */
export async function installCrd(
  kubeConfig: KubeConfig,
  api: ApiTypes,
  namespaced = true,
): Promise<() => Promise<void>> {
  const ext = kubeConfig.makeApiClient(ApiextensionsV1Api);
  const name = `${api.plural}.${api.group}`;
  await ext.createCustomResourceDefinition({
    body: {
      apiVersion: 'apiextensions.k8s.io/v1',
      kind: 'CustomResourceDefinition',
      metadata: { name },
      spec: {
        group: api.group,
        scope: namespaced ? 'Namespaced' : 'Cluster',
        names: { plural: api.plural, kind: api.kind, singular: api.kind.toLowerCase() },
        versions: [
          {
            name: api.version,
            served: true,
            storage: true,
            subresources: { status: {} },
            schema: {
              openAPIV3Schema: {
                type: 'object',
                properties: {
                  spec: { type: 'object', x_kubernetes_preserve_unknown_fields: true },
                  status: { type: 'object', x_kubernetes_preserve_unknown_fields: true },
                },
              },
            },
          },
        ],
      },
    },
  });
  await waitFor(`CRD ${name} established`, async () => {
    const crd = await ext.readCustomResourceDefinition({ name });
    return (crd.status?.conditions ?? []).some((c) => c.type === 'Established' && c.status === 'True');
  });
  return async () => {
    await ext.deleteCustomResourceDefinition({ name }).catch(() => undefined);
  };
}

/** waitFor polls until `check` is true; the deadline only turns a hang into a failure. */
export async function waitFor(
  what: string,
  check: () => boolean | Promise<boolean>,
  deadlineMs = 30_000,
  intervalMs = 50,
): Promise<void> {
  const until = Date.now() + deadlineMs;
  let last: unknown;
  for (;;) {
    try {
      if (await check()) return;
    } catch (error) {
      last = error;
    }
    if (Date.now() > until) {
      throw new Error(
        `timed out after ${deadlineMs} ms waiting for ${what}${last == null ? '' : ` (last error: ${String(last)})`}`,
      );
    }
    await sleep(intervalMs);
  }
}

/** sleep resolves after `ms`. */
export function sleep(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms));
}

/** quietLogger is a pino logger at `warn` (set ORKESTRA_TEST_LOG=debug to see every reconcile). */
export function quietLogger(): Logger {
  return pino({ level: process.env['ORKESTRA_TEST_LOG'] ?? 'warn' }) as unknown as Logger;
}

/** CrClient reads and writes the CRs of one kind as admin. */
export interface CrClient {
  create(namespace: string, name: string, spec: Record<string, unknown>): Promise<Record<string, unknown>>;
  get(namespace: string, name: string): Promise<CrObject>;
  patchSpec(namespace: string, name: string, spec: Record<string, unknown>): Promise<void>;
  remove(namespace: string, name: string): Promise<void>;
  exists(namespace: string, name: string): Promise<boolean>;
}

/** CrObject is a custom object as read back. */
export interface CrObject {
  readonly metadata: {
    readonly name: string;
    readonly uid: string;
    readonly generation?: number;
    readonly finalizers?: string[];
    readonly resourceVersion: string;
  };
  readonly spec?: Record<string, unknown>;
  readonly status?: {
    readonly conditions?: {
      type: string;
      status: string;
      reason: string;
      message: string;
      observedGeneration?: number;
      lastTransitionTime: string;
    }[];
    readonly inventory?: { kind: string; name: string; namespace?: string; mode: string; source: string }[];
    readonly observedGeneration?: number;
    readonly [key: string]: unknown;
  };
}

/** crClient returns a CrClient for apiTypes. */
export function crClient(kubeConfig: KubeConfig, api: ApiTypes): CrClient {
  const custom = kubeConfig.makeApiClient(CustomObjectsApi);
  const base = { group: api.group, version: api.version, plural: api.plural };
  return {
    async create(namespace, name, spec) {
      return (await custom.createNamespacedCustomObject({
        ...base,
        namespace,
        body: { apiVersion: `${api.group}/${api.version}`, kind: api.kind, metadata: { name }, spec },
      })) as Record<string, unknown>;
    },
    async get(namespace, name) {
      return (await custom.getNamespacedCustomObject({ ...base, namespace, name })) as CrObject;
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
    async exists(namespace, name) {
      try {
        await custom.getNamespacedCustomObject({ ...base, namespace, name });
        return true;
      } catch (error) {
        if ((error as { code?: number }).code === 404) return false;
        throw error;
      }
    },
  };
}

/** readyOf returns a CR's Ready condition. */
export function readyOf(cr: CrObject):
  | {
      status: string;
      reason: string;
      message: string;
      observedGeneration?: number;
      lastTransitionTime: string;
    }
  | undefined {
  return cr.status?.conditions?.find((c) => c.type === 'Ready');
}

/** createNamespace creates a namespace and returns its deleter. */
export async function createNamespace(kubeConfig: KubeConfig, name: string): Promise<() => Promise<void>> {
  const core = kubeConfig.makeApiClient(CoreV1Api);
  await core.createNamespace({ body: { metadata: { name } } });
  return async () => {
    await core.deleteNamespace({ name }).catch(() => undefined);
  };
}
