import { ApiextensionsV1Api, PatchStrategy, setHeaderOptions } from '@kubernetes/client-node';
import type { KubeConfig } from '@kubernetes/client-node';
import type { Katalog } from '@orkestra/types';
import { generateCrds } from '../generate/generate-crds.js';

/** CRD_FIELD_MANAGER is the server-side apply field manager of CRDs installed by `--install-crds`. */
const CRD_FIELD_MANAGER = 'orkestra';

/** InstallCrdsError reports a CRD the API server refused or did not establish in time. */
class InstallCrdsError extends Error {
  override readonly name = 'InstallCrdsError';
  readonly code = 'InstallCrdsFailed';
}

/** InstallCrdsOptions configures installCrds. */
export interface InstallCrdsOptions {
  /** How long to wait for every CRD to be Established. Default 60 000 ms. */
  readonly timeoutMs?: number;
  /** Between polls of the CRD's conditions. Default 100 ms. */
  readonly pollMs?: number;
}

function bodyOf(error: unknown): string {
  const body = (error as { body?: unknown } | null)?.body;
  if (typeof body === 'string') return body;
  return error instanceof Error ? error.message : String(error);
}

/**
 * installCrds server-side applies the CustomResourceDefinitions of `generateCrds(katalog)` (field
 * manager `orkestra`, forced) and waits until each is Established, so informers started right
 * after can list. Used by `ork run --install-crds`, `ork dev` and `ork demo`. Returns the CRD names.
 *
 * @example
 * const names = await installCrds(kubeConfig, katalog);
 */
export async function installCrds(
  kubeConfig: KubeConfig,
  katalog: Katalog,
  options: InstallCrdsOptions = {},
): Promise<string[]> {
  const extensions = kubeConfig.makeApiClient(ApiextensionsV1Api);
  const names: string[] = [];
  for (const crd of generateCrds(katalog)) {
    const name = String((crd['metadata'] as { name?: unknown } | undefined)?.name ?? '');
    try {
      // A patch body is sent as is; the typed create/replace (and KubernetesObjectApi) would drop
      // the JSON-named `x-kubernetes-*` schema keys while serializing.
      await extensions.patchCustomResourceDefinition(
        { name, body: crd, fieldManager: CRD_FIELD_MANAGER, force: true },
        setHeaderOptions('Content-Type', PatchStrategy.ServerSideApply),
      );
    } catch (error) {
      throw new InstallCrdsError(`cannot apply CustomResourceDefinition ${name}: ${bodyOf(error)}`, {
        cause: error,
      });
    }
    names.push(name);
  }
  const deadline = Date.now() + (options.timeoutMs ?? 60_000);
  for (const name of names) {
    for (;;) {
      const crd = await extensions.readCustomResourceDefinition({ name });
      const conditions = crd.status?.conditions ?? [];
      if (conditions.some((c) => c.type === 'Established' && c.status === 'True')) break;
      if (Date.now() > deadline) {
        throw new InstallCrdsError(`CustomResourceDefinition ${name} was not established in time`);
      }
      await new Promise((resolve) => setTimeout(resolve, options.pollMs ?? 100));
    }
  }
  return names;
}
