import { NotFoundError } from '@orkestra/registry';
import type { KubeClient, KubeObject } from '@orkestra/registry';

/**
 * patchConversionCaBundle writes the webhook's CA bundle into each CRD's conversion config
 * (`spec.conversion.webhook.clientConfig.caBundle`, ADR 0057) with a merge patch, which leaves
 * the rest of the client config (the Service or URL `ork generate` wrote) as it is. A CRD whose
 * bundle is already that one is not written.
 */
export async function patchConversionCaBundle(
  client: Pick<KubeClient, 'get' | 'mergePatch'>,
  crdNames: readonly string[],
  caBundle: string,
): Promise<number> {
  const encoded = Buffer.from(caBundle, 'utf8').toString('base64');
  let written = 0;
  for (const name of crdNames) {
    const ref = { apiVersion: 'apiextensions.k8s.io/v1', kind: 'CustomResourceDefinition', name };
    const crd = (await client.get(ref)) as unknown as {
      spec?: { conversion?: { strategy?: string; webhook?: { clientConfig?: { caBundle?: string } } } };
    };
    const conversion = crd.spec?.conversion;
    if (conversion?.strategy !== 'Webhook') continue;
    if (conversion.webhook?.clientConfig?.caBundle === encoded) continue;
    await client.mergePatch(ref, {
      spec: { conversion: { webhook: { clientConfig: { caBundle: encoded } } } },
    });
    written++;
  }
  return written;
}

/**
 * patchWebhookCaBundle writes the CA bundle into every webhook of the named Validating- and
 * MutatingWebhookConfigurations (the admission webhooks, ADR 0089, ADR 0092): read, then replaced with the
 * read resource version (a merge patch would replace the whole `webhooks` list). An absent
 * configuration or one whose bundles are already that one is not written.
 */
async function patchWebhookCaBundle(
  client: Pick<KubeClient, 'get' | 'replace'>,
  configurations: readonly WebhookConfigurationRef[],
  caBundle: string,
): Promise<number> {
  const encoded = Buffer.from(caBundle, 'utf8').toString('base64');
  let written = 0;
  for (const { kind, name } of configurations) {
    const ref = { apiVersion: 'admissionregistration.k8s.io/v1', kind, name };
    const config = (await client.get(ref).catch((error: unknown) => {
      if (error instanceof NotFoundError) return undefined;
      throw error;
    })) as (KubeObject & { webhooks?: { clientConfig?: { caBundle?: string } }[] }) | undefined;
    const webhooks = config?.webhooks ?? [];
    if (config == null || webhooks.every((w) => w.clientConfig?.caBundle === encoded)) continue;
    await client.replace({
      ...config,
      webhooks: webhooks.map((w) => ({ ...w, clientConfig: { ...w.clientConfig, caBundle: encoded } })),
    } as KubeObject);
    written++;
  }
  return written;
}

/** WebhookConfigurationRef names one admission webhook configuration. */
export interface WebhookConfigurationRef {
  readonly kind: 'ValidatingWebhookConfiguration' | 'MutatingWebhookConfiguration';
  readonly name: string;
}

/**
 * patchCaBundles writes the CA bundle wherever the API server reads it: the converting CRDs'
 * conversion config and the admission webhook's configurations.
 */
export async function patchCaBundles(
  client: Pick<KubeClient, 'get' | 'mergePatch' | 'replace'>,
  targets: {
    readonly crds: readonly string[];
    readonly webhookConfigurations: readonly WebhookConfigurationRef[];
  },
  caBundle: string,
): Promise<number> {
  return (
    (await patchConversionCaBundle(client, targets.crds, caBundle)) +
    (await patchWebhookCaBundle(client, targets.webhookConfigurations, caBundle))
  );
}
