import { KubernetesObjectApi, PatchStrategy } from '@kubernetes/client-node';
import type { KubeConfig, KubernetesObject } from '@kubernetes/client-node';
import { parseAllDocuments } from 'yaml';

/** documentsOf parses a multi-document YAML stream into its non-empty documents. */
export function documentsOf(text: string): KubernetesObject[] {
  return parseAllDocuments(text)
    .map((doc) => {
      if (!('errors' in doc) || doc.errors.length > 0) throw new Error(`invalid YAML: ${String(doc)}`);
      return doc.toJS() as KubernetesObject | null;
    })
    .filter((doc): doc is KubernetesObject => doc != null);
}

/** applyAll server-side applies every object (field manager `ork-test`), as a dry run unless `dryRun` is false. */
export async function applyAll(
  kubeConfig: KubeConfig,
  objects: readonly KubernetesObject[],
  options: { dryRun: boolean },
): Promise<KubernetesObject[]> {
  const api = KubernetesObjectApi.makeApiClient(kubeConfig);
  const applied: KubernetesObject[] = [];
  for (const object of objects) {
    try {
      applied.push(
        await api.patch(
          object,
          undefined,
          options.dryRun ? 'All' : undefined,
          'ork-test',
          true,
          PatchStrategy.ServerSideApply,
        ),
      );
    } catch (error) {
      const body = (error as { body?: unknown }).body;
      throw new Error(
        `${object.kind} ${object.metadata?.name ?? ''}: ${typeof body === 'string' ? body : String(error)}`,
        { cause: error },
      );
    }
  }
  return applied;
}
