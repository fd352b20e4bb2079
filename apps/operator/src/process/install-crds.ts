import type { KubeClient, KubeObject } from '@orkestra/registry';
import type { Katalog } from '@orkestra/types';
import { generateCrds } from '../generate/generate-crds.js';

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
  return error instanceof Error ? error.message : String(error);
}

/**
 * installCrds server-side applies the CustomResourceDefinitions of `generateCrds(katalog)` (field
 * manager: the client's, `orkestra`; forced) through the operator's one counted client (ADR 0035)
 * and waits until each is Established, so informers started right after can list. Used by
 * `ork run --install-crds`, `ork dev` and `ork demo`. Returns the CRD names.
 *
 * @example
 * const names = await installCrds(client, katalog);
 */
export async function installCrds(
  client: Pick<KubeClient, 'apply' | 'get'>,
  katalog: Katalog,
  options: InstallCrdsOptions = {},
): Promise<string[]> {
  const names: string[] = [];
  for (const crd of generateCrds(katalog)) {
    const name = String((crd['metadata'] as { name?: unknown } | undefined)?.name ?? '');
    try {
      // The manifest is sent as is (its JSON-named `x-kubernetes-*` schema keys included).
      await client.apply(crd as unknown as KubeObject, { force: true });
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
      const crd = await client.get({
        apiVersion: 'apiextensions.k8s.io/v1',
        kind: 'CustomResourceDefinition',
        name,
      });
      const conditions =
        (crd['status'] as { conditions?: { type?: string; status?: string }[] } | undefined)?.conditions ??
        [];
      if (conditions.some((c) => c.type === 'Established' && c.status === 'True')) break;
      if (Date.now() > deadline) {
        throw new InstallCrdsError(`CustomResourceDefinition ${name} was not established in time`);
      }
      await new Promise((resolve) => setTimeout(resolve, options.pollMs ?? 100));
    }
  }
  return names;
}
