import type { KubeClient } from '@orkestra/registry';

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
