/**
 * installCrds server-side-applies CustomResourceDefinitions and waits until each is Established.
 */
import { ApiextensionsV1Api, KubernetesObjectApi, PatchStrategy, loadAllYaml } from '@kubernetes/client-node';
import type { KubeConfig, KubernetesObject } from '@kubernetes/client-node';
import { sleep } from './sleep.js';

/**
 * installCrds applies the CRDs in `documents` (YAML or JSON text, wire format; field manager
 * `bench`) and resolves once every one is Established.
 *
 * Text, not objects: KubernetesObjectApi serializes a CRD through client-node's typed model, whose
 * property names differ from the wire names for `x-kubernetes-*` keys, so a plain wire-format
 * object silently loses `x-kubernetes-preserve-unknown-fields` (and the API server then prunes
 * every status field). Parsing the text with loadAllYaml yields the typed model it expects.
 */
export async function installCrds(
  kubeConfig: KubeConfig,
  documents: readonly string[],
  timeoutMs = 60_000,
): Promise<void> {
  const crds = documents.flatMap((text) => loadAllYaml(text) as KubernetesObject[]);
  const objects = KubernetesObjectApi.makeApiClient(kubeConfig);
  const ext = kubeConfig.makeApiClient(ApiextensionsV1Api);
  for (const crd of crds) {
    await objects.patch(crd, undefined, undefined, 'bench', true, PatchStrategy.ServerSideApply);
  }
  const deadline = Date.now() + timeoutMs;
  for (const crd of crds) {
    const name = crd.metadata?.name ?? '';
    for (;;) {
      const current = await ext.readCustomResourceDefinition({ name });
      const established = current.status?.conditions?.some(
        (c) => c.type === 'Established' && c.status === 'True',
      );
      if (established === true) break;
      if (Date.now() > deadline) throw new Error(`CRD ${name} not Established after ${timeoutMs} ms`);
      await sleep(200);
    }
  }
}
