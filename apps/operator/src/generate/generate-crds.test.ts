import { describe, expect, it } from 'vitest';
import { katalogFrom } from '../../test/katalog-text.js';
import { crdFor, crdSchema, generateCrds, untypedProperties } from './generate-crds.js';

describe('generateCrds', () => {
  it('preserves unknown spec and status fields when the entry has no schema', () => {
    const [crd] = generateCrds(katalogFrom('namespaced: false'));
    const spec = crd?.['spec'] as { scope: string; versions: { schema: unknown; subresources: unknown }[] };
    expect(spec.scope).toBe('Cluster');
    expect(spec.versions[0]?.subresources).toEqual({ status: {} });
    expect(spec.versions[0]?.schema).toEqual({
      openAPIV3Schema: {
        type: 'object',
        properties: {
          spec: { type: 'object', 'x-kubernetes-preserve-unknown-fields': true },
          status: { type: 'object', 'x-kubernetes-preserve-unknown-fields': true },
        },
      },
    });
  });

  it('keeps a declared schema and adds the status keys the runtime writes', () => {
    const katalog = katalogFrom(`schema:
  openAPIV3Schema:
    type: object
    properties:
      spec: { type: object, properties: { image: { type: string } } }
      status: { type: object, properties: { phase: { type: string } } }`);
    const schema = crdSchema(katalog.spec.crds['app']!) as {
      properties: { status: { properties: Record<string, unknown> } };
    };
    expect(Object.keys(schema.properties.status.properties)).toEqual([
      'phase',
      'observedGeneration',
      'conditions',
      'inventory',
      'providers',
      'katalogRevision',
    ]);
  });
});

describe('untyped schema fields', () => {
  it('are left out of the CRD and their parent keeps unknown fields', () => {
    const katalog = katalogFrom(`schema:
  openAPIV3Schema:
    type: object
    properties:
      spec:
        type: object
        properties:
          schedule: { x-kubernetes-preserve-unknown-fields: true }
          retain: { type: integer }`);
    const entry = katalog.spec.crds['app']!;
    expect(untypedProperties(entry.schema?.openAPIV3Schema)).toEqual(['spec.schedule']);
    const spec = (crdSchema(entry) as { properties: { spec: Record<string, unknown> } }).properties.spec;
    expect(spec).toEqual({
      type: 'object',
      'x-kubernetes-preserve-unknown-fields': true,
      properties: { retain: { type: 'integer' } },
    });
  });
});

describe('versions and conversion (docs/reference/katalog.md §3.4, ADR 0056)', () => {
  it('writes every version with its own schema, the storage version marked, and a conversion webhook', async () => {
    const { versionedEntry, VERSIONED_KATALOG } = await import('../conversion/fixture.test-support.js');
    const { loadKatalogOrThrow } = await import('@orkestra/types');
    const katalog = loadKatalogOrThrow({ text: VERSIONED_KATALOG, file: 'v.yaml' });
    const crd = crdFor(katalog, versionedEntry()) as unknown as {
      spec: {
        versions: {
          name: string;
          served: boolean;
          storage: boolean;
          schema: { openAPIV3Schema: { properties: { spec: { properties: object } } } };
        }[];
        conversion: unknown;
      };
    };
    expect(crd.spec.versions.map((v) => [v.name, v.served, v.storage])).toEqual([
      ['v1alpha1', true, false],
      ['v1', true, true],
      ['v2', true, false],
    ]);
    expect(Object.keys(crd.spec.versions[0]!.schema.openAPIV3Schema.properties.spec.properties)).toContain(
      'size',
    );
    expect(Object.keys(crd.spec.versions[2]!.schema.openAPIV3Schema.properties.spec.properties)).toContain(
      'count',
    );
    expect(crd.spec.conversion).toEqual({
      strategy: 'Webhook',
      webhook: {
        conversionReviewVersions: ['v1'],
        clientConfig: {
          service: { namespace: 'orkestra-system', name: 'orkestra-webhook', port: 443, path: '/convert' },
        },
      },
    });
    const local = crdFor(katalog, versionedEntry(), {
      webhook: { url: 'https://127.0.0.1:9443' },
      caBundle: 'PEM',
    });
    expect((local as unknown as { spec: { conversion: unknown } }).spec.conversion).toMatchObject({
      webhook: {
        clientConfig: {
          url: 'https://127.0.0.1:9443/convert',
          caBundle: Buffer.from('PEM').toString('base64'),
        },
      },
    });
  });
});
