import { setTimeout as sleep } from 'node:timers/promises';
import { ApiextensionsV1Api } from '@kubernetes/client-node';
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
    await ext.deleteCustomResourceDefinition({ name }).catch(() => undefined);
  };
}
