import { RUNTIME_TUNING_DEFAULTS } from '@orkestra/reconciler';
import { describe, expect, it } from 'vitest';
import { katalogFrom } from '../../test/katalog-text.js';
import { VERSIONED_KATALOG } from '../conversion/fixture.test-support.js';
import { loadKatalogOrThrow } from '@orkestra/types';
import { generateBundle } from './generate-bundle.js';
import type { Manifest } from './manifest-meta.js';

const nameOf = (m: Manifest): unknown => (m['metadata'] as { name?: string } | undefined)?.name;

describe('generateBundle', () => {
  it('gives the work directory and /tmp an emptyDir sizeLimit above the runtime cap on git checkouts', () => {
    const bundle = generateBundle(katalogFrom(`operatorBox: { onReconcile: { configMaps: [{}] } }`), {
      namespace: 'ops',
      katalogText: '',
      image: 'example.com/orkestra/operator:dev',
    });
    const deployment = bundle.manifests.find((m) => m.kind === 'Deployment') as unknown as {
      spec: { template: { spec: { volumes: { name: string; emptyDir?: { sizeLimit?: string } }[] } } };
    };
    const limits = Object.fromEntries(
      deployment.spec.template.spec.volumes.map((v) => [v.name, v.emptyDir?.sizeLimit]),
    );
    expect(limits).toMatchObject({ work: '2Gi', tmp: '256Mi' });
    expect(RUNTIME_TUNING_DEFAULTS.maxWorkDirBytes).toBeLessThan(2 * 1024 ** 3);
  });

  it('serves a converting Katalog: the CRDs point at the webhook Service of its namespace, which reaches the pods', () => {
    const bundle = generateBundle(loadKatalogOrThrow({ text: VERSIONED_KATALOG, file: 'v.yaml' }), {
      namespace: 'ops',
      katalogText: '',
      image: 'example.com/orkestra/operator:dev',
    });
    const crd = bundle.manifests.find((m) => m.kind === 'CustomResourceDefinition') as unknown as {
      spec: { conversion: { webhook: { clientConfig: unknown } } };
    };
    expect(crd.spec.conversion.webhook.clientConfig).toEqual({
      service: { namespace: 'ops', name: 'orkestra-webhook', port: 443, path: '/convert' },
    });
    const service = bundle.manifests.find(
      (m) => m.kind === 'Service' && nameOf(m) === 'orkestra-webhook',
    ) as unknown as { metadata: { namespace: string }; spec: { ports: unknown[] } };
    expect(service.metadata.namespace).toBe('ops');
    expect(service.spec.ports).toEqual([
      { name: 'webhook', port: 443, targetPort: 'webhook', protocol: 'TCP' },
    ]);
    const deployment = bundle.manifests.find((m) => m.kind === 'Deployment') as unknown as {
      spec: { template: { spec: { containers: { ports: { name: string; containerPort: number }[] }[] } } };
    };
    expect(deployment.spec.template.spec.containers[0]?.ports).toContainEqual(
      expect.objectContaining({ name: 'webhook', containerPort: 9443 }),
    );
    // Without conversion, no webhook Service.
    const plain = generateBundle(katalogFrom(`operatorBox: { onReconcile: { configMaps: [{}] } }`), {
      namespace: 'ops',
      katalogText: '',
      image: 'x',
    });
    expect(plain.manifests.filter((m) => nameOf(m) === 'orkestra-webhook')).toEqual([]);
  });
});
