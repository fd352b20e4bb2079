import { setTimeout as sleep } from 'node:timers/promises';
import {
  ApiextensionsV1Api,
  CustomObjectsApi,
  PatchStrategy,
  setHeaderOptions,
} from '@kubernetes/client-node';
import type { KubeConfig } from '@kubernetes/client-node';
import { TestenvError, TestenvErrorCode } from './testenv-error.js';

/** CustomResourceType names a custom resource kind: a Katalog entry's `apiTypes` fits as is. */
export interface CustomResourceType {
  readonly group: string;
  readonly version: string;
  readonly kind: string;
  readonly plural: string;
  /** Namespaced (default) or cluster-scoped. */
  readonly namespaced?: boolean;
}

/** InstallCrdOptions tunes {@link installCrd}. */
export interface InstallCrdOptions {
  /** How long to wait for the CRD to be Established; only turns a hang into a failure. Default 30 000 ms. */
  readonly timeoutMs?: number;
}

/**
 * installCrd creates a CustomResourceDefinition for `type` with an open schema (`spec` and
 * `status` keep unknown fields) and the status subresource, waits until it is Established, and
 * returns a function that deletes it. For tests that need a kind to exist, not a real schema.
 *
 * The returned function first removes the finalizers of every object of the kind that still has
 * some (an operator stopped before its CRs were finalized): the run shares one control plane, and
 * the API server's CRD finalizer has a few workers, each of which waits up to a minute for a
 * CRD's objects to go. CRDs left terminating by earlier test files would otherwise hold those
 * workers, and a later test that deletes a CRD waits minutes for its objects to be deleted at all.
 *
 * @example
 * const removeCrd = await installCrd(env.kubeConfig, { group: 'shop.example.com', version: 'v1', kind: 'Shop', plural: 'shops' });
 * const shops = crClient(env.kubeConfig, { group: 'shop.example.com', version: 'v1', kind: 'Shop', plural: 'shops' });
 * await shops.create(env.namespace, 'one', { image: 'nginx' });
 * await removeCrd();
 */
export async function installCrd(
  kubeConfig: KubeConfig,
  type: CustomResourceType,
  options: InstallCrdOptions = {},
): Promise<() => Promise<void>> {
  const ext = kubeConfig.makeApiClient(ApiextensionsV1Api);
  const name = `${type.plural}.${type.group}`;
  const open = { type: 'object', x_kubernetes_preserve_unknown_fields: true };
  await ext.createCustomResourceDefinition({
    body: {
      apiVersion: 'apiextensions.k8s.io/v1',
      kind: 'CustomResourceDefinition',
      metadata: { name },
      spec: {
        group: type.group,
        scope: type.namespaced === false ? 'Cluster' : 'Namespaced',
        names: { plural: type.plural, kind: type.kind, singular: type.kind.toLowerCase() },
        versions: [
          {
            name: type.version,
            served: true,
            storage: true,
            subresources: { status: {} },
            schema: { openAPIV3Schema: { type: 'object', properties: { spec: open, status: open } } },
          },
        ],
      },
    },
  });
  const timeoutMs = options.timeoutMs ?? 30_000;
  const started = performance.now();
  let last: unknown;
  for (;;) {
    try {
      const crd = await ext.readCustomResourceDefinition({ name });
      if ((crd.status?.conditions ?? []).some((c) => c.type === 'Established' && c.status === 'True')) break;
    } catch (error) {
      last = error;
    }
    if (performance.now() - started > timeoutMs) {
      throw new TestenvError(`CRD ${name} was not Established within ${timeoutMs} ms`, {
        code: TestenvErrorCode.RequestFailed,
        cause: last,
      });
    }
    await sleep(50);
  }
  return async () => {
    await deleteCrd(kubeConfig, type);
  };
}

/**
 * deleteCrd deletes the CRD of `type` after clearing the finalizers its objects still hold (see
 * {@link installCrd}: an operator that stopped first would leave the CRD terminating for minutes,
 * holding the API server's CRD finalizer for every later test of the run). Never throws.
 */
export async function deleteCrd(kubeConfig: KubeConfig, type: CustomResourceType): Promise<void> {
  await releaseObjects(kubeConfig, type).catch(() => undefined);
  await kubeConfig
    .makeApiClient(ApiextensionsV1Api)
    .deleteCustomResourceDefinition({ name: `${type.plural}.${type.group}` })
    .catch(() => undefined);
}

/** releaseObjects clears the finalizers of every object of `type` that has any; returns how many. */
async function releaseObjects(kubeConfig: KubeConfig, type: CustomResourceType): Promise<number> {
  const custom = kubeConfig.makeApiClient(CustomObjectsApi);
  const base = { group: type.group, version: type.version, plural: type.plural };
  const list = (await custom.listClusterCustomObject(base)) as {
    items: { metadata?: { name?: string; namespace?: string; finalizers?: string[] } }[];
  };
  let released = 0;
  for (const item of list.items) {
    const { name = '', namespace, finalizers = [] } = item.metadata ?? {};
    if (finalizers.length === 0) continue;
    const body = { metadata: { finalizers: null } };
    const merge = setHeaderOptions('Content-Type', PatchStrategy.MergePatch);
    const patched =
      namespace == null || namespace === ''
        ? custom.patchClusterCustomObject({ ...base, name, body }, merge)
        : custom.patchNamespacedCustomObject({ ...base, namespace, name, body }, merge);
    await patched.catch(() => undefined);
    released++;
  }
  return released;
}
