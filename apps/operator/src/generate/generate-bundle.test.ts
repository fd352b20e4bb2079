import { RUNTIME_TUNING_DEFAULTS } from '@orkestra/reconciler';
import { describe, expect, it } from 'vitest';
import { katalogFrom } from '../../test/katalog-text.js';
import { generateBundle } from './generate-bundle.js';

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
});
