import { describe, expect, it } from 'vitest';
import type { KubeObject } from '@orkestra/registry';
import { loadKatalogOrThrow } from '@orkestra/types';
import { reconcileOnce } from '../../offline/offline-engine.js';
import { visibleRoots } from '../table.js';

/**
 * `mutation.external` at reconcile (ADR 0114): the calls not marked `fires: {reconcile: false}`
 * are made before step 7, the mutation rules read their answers as `external.<name>`, and the
 * context of step 8 keeps them for the validation rules and the children. Offline, the scripted
 * `external.<name>` results answer them, as they answer the other calls.
 */
const katalog = loadKatalogOrThrow({
  file: 'katalog.yaml',
  text: `apiVersion: orkestra.konductor.io/v1alpha1
kind: Katalog
metadata: { name: shop }
spec:
  crds:
    shop:
      apiTypes: { group: shop.example.com, version: v1, kind: Shop, plural: shops }
      mutation:
        external:
          - name: registry
            url: "https://registry.example.io/resolve?image={{ .spec.image }}"
        rules:
          - { field: spec.digest, override: "{{ .external.registry.json.digest }}" }
      validation:
        rules:
          - field: external.registry.json.digest
            prefix: "sha256:"
            message: "registry answered {{ .external.registry.json.digest }}"
      operatorBox:
        onReconcile:
          configMaps:
            - name: "{{ .metadata.name }}-image"
              data:
                digest: "{{ .external.registry.json.digest }}"
                spec: "{{ .spec.digest }}"
`,
});
const cr: KubeObject = {
  apiVersion: 'shop.example.com/v1',
  kind: 'Shop',
  metadata: { name: 'web', namespace: 'default' },
  spec: { image: 'r/app:1' },
};
const clock = { now: () => 0, setTimeout: () => ({}), clearTimeout: () => undefined };
const answer = (digest: string) => ({ external: { registry: { json: { digest } } } });

describe('mutation.external at reconcile (ADR 0114)', () => {
  it('the mutation rules read the answer; validation rules and children read it too', async () => {
    const { run, cluster } = await reconcileOnce(katalog, cr, [], answer('sha256:abc'), { clock });
    expect(run.error).toBeUndefined();
    const stored = cluster.list().find((o) => o.kind === 'Shop');
    expect(stored?.['spec']).toMatchObject({ image: 'r/app:1', digest: 'sha256:abc' });
    const map = cluster.list().find((o) => o.kind === 'ConfigMap');
    expect(map?.['data']).toEqual({ digest: 'sha256:abc', spec: 'sha256:abc' });
  });

  it('a validation rule sees the answer the mutation calls got', async () => {
    const { run } = await reconcileOnce(katalog, cr, [], answer('md5:zzz'), { clock });
    expect(run.error?.code).toBe('ValidationFailed');
    expect(run.error?.message).toContain('registry answered md5:zzz');
  });

  it('a failed call fails the reconcile with ExternalCallFailed before any mutation', async () => {
    const failed = { external: { registry: { ok: false, status: 503, error: 'unavailable' } } };
    const { run, cluster } = await reconcileOnce(katalog, cr, [], failed, { clock });
    expect(run.error?.code).toBe('ExternalCallFailed');
    expect(run.error?.message).toContain('mutation.external[0]');
    expect(cluster.list().find((o) => o.kind === 'Shop')?.['spec']).toEqual({ image: 'r/app:1' });
  });

  it('the mutation rules see the roots the mutation phase fills; validation sees those too', () => {
    expect(visibleRoots({ phase: 'mutation' })).toEqual(['external']);
    expect(visibleRoots({ phase: 'validation' })).toEqual(['external']);
  });
});
