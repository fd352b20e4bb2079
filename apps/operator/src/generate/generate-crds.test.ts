import { describe, expect, it } from 'vitest';
import { katalogFrom } from '../../test/katalog-text.js';
import { crdSchema, generateCrds, untypedProperties } from './generate-crds.js';

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
