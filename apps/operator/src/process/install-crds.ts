import type { KubeClient, KubeObject } from '@orkestra/registry';
import type { Katalog } from '@orkestra/types';
import { generatePolicies } from '../generate/generate-bundle.js';
import { generateCrds } from '../generate/generate-crds.js';
import type { CrdOptions } from '../generate/generate-crds.js';
import { instanceLabels } from '../generate/manifest-meta.js';

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
  /**
   * The operator's namespace: its service accounts may delete protected children (ADR 0050). With
   * it, the Katalog's admission policies are applied too; the user the client authenticates as
   * (a SelfSubjectReview) may delete children as well, for an operator run outside the cluster.
   */
  readonly namespace?: string;
  /** Where the CRDs of entries with `conversion` send ConversionReviews, and the CA bundle (ADR 0057). */
  readonly crds?: CrdOptions;
  /** The operator runs sharded: with `crds.webhook`, the shard-assignment webhook's configuration too (ADR 0110). */
  readonly sharding?: boolean;
  /** False: the endpoint serves only the shard-assignment webhook; the Katalog rules' webhook configurations are not applied. */
  readonly katalogRules?: boolean;
}

function bodyOf(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}

/**
 * installCrds server-side applies the CustomResourceDefinitions of `generateCrds(katalog)` (field
 * manager: the client's, `orkestra`; forced) through the operator's one counted client (ADR 0035)
 * and waits until each is Established, so informers started right after can list; with
 * `namespace`, then applies the Katalog's ValidatingAdmissionPolicies and bindings (ADR 0049,
 * ADR 0050) and, with `crds.webhook`, its admission webhook's configuration (ADR 0089) and with
 * `sharding` the shard-assignment webhook's (ADR 0110), and deletes the Katalog's policies it no longer asks for. Used by
 * `ork run --install-crds`, `ork dev` and `ork demo`. Returns the CRD names.
 *
 * @example
 * const names = await installCrds(client, katalog);
 */
export async function installCrds(
  client: Pick<KubeClient, 'apply' | 'get' | 'create' | 'delete' | 'list'>,
  katalog: Katalog,
  options: InstallCrdsOptions = {},
): Promise<string[]> {
  const names: string[] = [];
  for (const crd of generateCrds(katalog, options.crds)) {
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
  if (options.namespace != null)
    await installPolicies(client, katalog, options.namespace, options.crds, {
      sharding: options.sharding === true,
      katalogRules: options.katalogRules !== false,
    });
  return names;
}

async function installPolicies(
  client: Pick<KubeClient, 'apply' | 'create' | 'delete' | 'list'>,
  katalog: Katalog,
  namespace: string,
  crds: CrdOptions | undefined,
  served: { readonly sharding: boolean; readonly katalogRules: boolean },
): Promise<void> {
  let users: string[] = [];
  if (katalog.spec.deletionProtection?.children === true) {
    const review = await client.create({
      apiVersion: 'authentication.k8s.io/v1',
      kind: 'SelfSubjectReview',
      metadata: {},
    } as unknown as KubeObject);
    const username = (review['status'] as { userInfo?: { username?: string } } | undefined)?.userInfo
      ?.username;
    users = username == null || username.startsWith('system:serviceaccount:') ? [] : [username];
  }
  // The admission webhook's configuration points at the running endpoint, with its bundle (ADR 0089);
  // none when the operator serves no webhook.
  const webhook =
    crds?.webhook == null
      ? false
      : {
          target: crds.webhook,
          ...(crds.caBundle == null ? {} : { caBundle: crds.caBundle }),
          ...(served.sharding ? { sharding: true } : {}),
          ...(served.katalogRules ? {} : { katalogRules: false }),
        };
  const policies = generatePolicies(katalog, namespace, users, webhook);
  for (const policy of policies) {
    try {
      await client.apply(policy as unknown as KubeObject, { force: true });
    } catch (error) {
      throw new InstallCrdsError(
        `cannot apply ${String(policy['kind'])} ${String((policy['metadata'] as { name?: unknown }).name)}: ${bodyOf(error)}`,
        { cause: error },
      );
    }
  }
  // Policies of this Katalog that it no longer asks for (a rule removed, protection turned off).
  const kept = new Set(
    policies.map((p) => `${p.kind}/${String((p['metadata'] as { name?: unknown }).name)}`),
  );
  const selector = Object.entries(instanceLabels(katalog))
    .map(([k, v]) => `${k}=${v}`)
    .join(',');
  for (const kind of [
    'ValidatingAdmissionPolicyBinding',
    'ValidatingAdmissionPolicy',
    'ValidatingWebhookConfiguration',
    'MutatingWebhookConfiguration',
  ]) {
    const list = await client.list(
      { apiVersion: 'admissionregistration.k8s.io/v1', kind },
      { labelSelector: selector },
    );
    for (const item of list.items) {
      const name = item.metadata.name ?? '';
      if (kept.has(`${kind}/${name}`)) continue;
      await client
        .delete({ apiVersion: 'admissionregistration.k8s.io/v1', kind, name })
        .catch(() => undefined);
    }
  }
}
