import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parseAllDocuments } from 'yaml';
import { describe, expect, it } from 'vitest';
import { runOrk } from '../../test/run-ork.js';
import { VERSIONED_KATALOG } from '../conversion/fixture.test-support.js';

// `ork generate crd` points a converting CRD at the webhook Service of the operator namespace the
// chart is installed in (docs/reference/runtime.md §26), or at the URL `--webhook-service` names.

const file = join(mkdtempSync(join(tmpdir(), 'ork-generate-')), 'versioned.yaml');
writeFileSync(file, VERSIONED_KATALOG);

async function clientConfig(args: string[]): Promise<unknown> {
  const run = await runOrk(['generate', 'crd', file, ...args]);
  expect(run.code, run.stderr).toBe(0);
  const [crd] = parseAllDocuments(run.stdout).map(
    (d) => d.toJS() as { spec?: { conversion?: { webhook?: { clientConfig?: unknown } } } },
  );
  return crd?.spec?.conversion?.webhook?.clientConfig;
}

describe('ork generate crd: where conversions go', () => {
  it('the chart Service of the -n namespace (orkestra-system by default)', async () => {
    expect(await clientConfig([])).toEqual({
      service: { namespace: 'orkestra-system', name: 'orkestra-webhook', port: 443, path: '/convert' },
    });
    expect(await clientConfig(['-n', 'team-a'])).toEqual({
      service: { namespace: 'team-a', name: 'orkestra-webhook', port: 443, path: '/convert' },
    });
  });

  it('--webhook-service: another Service name, or an https URL', async () => {
    expect(await clientConfig(['-n', 'team-a', '--webhook-service', 'conv'])).toEqual({
      service: { namespace: 'team-a', name: 'conv', port: 443, path: '/convert' },
    });
    expect(await clientConfig(['--webhook-service', 'https://127.0.0.1:9443'])).toEqual({
      url: 'https://127.0.0.1:9443/convert',
    });
  });

  it('refuses --webhook-service that is neither, and on other targets', async () => {
    const bad = await runOrk(['generate', 'crd', file, '--webhook-service', 'http://x']);
    expect(bad.code).not.toBe(0);
    expect(bad.stderr).toContain('neither a Service name nor an https:// URL');
    const other = await runOrk(['generate', 'rbac', file, '--webhook-service', 'conv']);
    expect(other.code).not.toBe(0);
    expect(other.stderr).toContain('--webhook-service applies to crd and policies only');
  });
});

describe('ork generate policies: the admission webhook configuration (ADR 0089)', () => {
  const hooked = join(mkdtempSync(join(tmpdir(), 'ork-generate-')), 'hooked.yaml');
  writeFileSync(
    hooked,
    `apiVersion: orkestra.konductor.io/v1alpha1
kind: Katalog
metadata: { name: shop }
spec:
  crds:
    shop:
      apiTypes: { group: shop.example.com, version: v1, kind: Shop, plural: shops }
      namespaced: false
      validation:
        rules:
          - { field: spec.image, prefix: "r/", message: "{{ .metadata.name }} needs r/" }
          - { field: spec.tier, exists: true, action: warn, message: "{{ .metadata.name }} has no tier" }
`,
  );
  const webhooks = async (args: string[]) => {
    const run = await runOrk(['generate', 'policies', hooked, ...args]);
    expect(run.code, run.stderr).toBe(0);
    const config = parseAllDocuments(run.stdout)
      .map((d) => d.toJS() as { kind: string; webhooks?: Record<string, unknown>[] })
      .find((d) => d.kind === 'ValidatingWebhookConfiguration');
    return config?.webhooks ?? [];
  };

  it('a deny webhook failing closed and a warn webhook failing open, on the Service or --webhook-service', async () => {
    const [deny, warn] = await webhooks(['-n', 'team-a']);
    expect(deny).toMatchObject({
      name: 'deny.shops.shop.example.com',
      clientConfig: {
        service: {
          namespace: 'team-a',
          name: 'orkestra-webhook',
          port: 443,
          path: '/validate/shops.shop.example.com/deny',
        },
      },
      rules: [
        {
          apiGroups: ['shop.example.com'],
          apiVersions: ['v1'],
          operations: ['CREATE', 'UPDATE'],
          resources: ['shops'],
          scope: 'Cluster',
        },
      ],
      failurePolicy: 'Fail',
      sideEffects: 'None',
      timeoutSeconds: 5,
      matchPolicy: 'Equivalent',
    });
    expect(warn).toMatchObject({ name: 'warn.shops.shop.example.com', failurePolicy: 'Ignore' });
    const [byUrl] = await webhooks(['--webhook-service', 'https://hooks.example.com:8443/']);
    expect(byUrl?.['clientConfig']).toEqual({
      url: 'https://hooks.example.com:8443/validate/shops.shop.example.com/deny',
    });
  });
});
