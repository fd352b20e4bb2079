import { CoreV1Api } from '@kubernetes/client-node';
import type { KubeConfig } from '@kubernetes/client-node';

/**
 * createNamespace creates the namespace `name` and returns a function that deletes it (ignoring
 * errors, so it can run in any cleanup).
 *
 * @example
 * const removeNamespace = await createNamespace(env.kubeConfig, 'other-ns');
 */
export async function createNamespace(kubeConfig: KubeConfig, name: string): Promise<() => Promise<void>> {
  const core = kubeConfig.makeApiClient(CoreV1Api);
  await core.createNamespace({ body: { metadata: { name } } });
  return async () => {
    await core.deleteNamespace({ name }).catch(() => undefined);
  };
}
