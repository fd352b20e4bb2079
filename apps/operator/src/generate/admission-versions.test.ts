import { loadKatalogOrThrow } from '@orkestra/types';
import { describe, expect, it } from 'vitest';
import { VERSIONED_KATALOG } from '../conversion/fixture.test-support.js';
import { planAdmission } from './admission.js';
import { admissionWebhookConfiguration } from './admission-webhook.js';
import { fieldMap } from './admission-versions.js';
import { crdFor } from './generate-crds.js';

// A deny rule of the runtime's version reaches requests at every served version (ADR 0102):
// translated into the other schemas where the conversion carries its fields one-to-one, else
// judged by the admission webhook on the converted object.

const RULES = `          - { field: spec.size, lte: 100, version: v1alpha1, message: v1alpha1 allows at most 100 }
          - { field: spec.replicas, lte: 5, message: at most 5 replicas }
          - { field: spec.tier, prefix: st, message: tier starts with st }
          - { field: spec.network.port, gt: 1024, message: unprivileged ports only }
`;
const katalog = loadKatalogOrThrow({
  file: 'v.yaml',
  text: VERSIONED_KATALOG.replace(
    '          - { field: spec.size, lte: 100, version: v1alpha1, message: v1alpha1 allows at most 100 }\n',
    RULES,
  ),
});
const entry = katalog.spec.crds['database']!;

describe('fieldMap', () => {
  it('follows renames and moves either way and through the storage version', () => {
    expect(fieldMap(entry, 'v1', 'v1alpha1')(['replicas'])).toEqual(['size']);
    expect(fieldMap(entry, 'v1', 'v2')(['replicas'])).toEqual(['count']);
    expect(fieldMap(entry, 'v2', 'v1')(['count'])).toEqual(['replicas']);
    expect(fieldMap(entry, 'v1', 'v1alpha1')(['network', 'port'])).toEqual(['nested', 'port']);
    expect(fieldMap(entry, 'v1alpha1', 'v2')(['size'])).toEqual(['count']);
    expect(fieldMap(entry, 'v1', 'v2')(['image'])).toEqual(['container', 'image']);
  });

  it('says why a field has no one-to-one home at the other version', () => {
    expect(fieldMap(entry, 'v1', 'v1alpha1')(['tier'])).toEqual({
      reason: 'spec.tier has no home at v1alpha1 (default in the conversion)',
    });
    expect(fieldMap(entry, 'v1', 'v2')(['apiLevel'])).toEqual({
      reason: 'spec.apiLevel has no home at v2 (drop in the conversion)',
    });
    expect(fieldMap(entry, 'v1', 'v1alpha1')(['engine'])).toEqual({
      reason: 'enum on spec.databaseEngine changes the field between versions',
    });
    expect(fieldMap(entry, 'v1', 'v2')(['backup', 'schedule'])).toEqual({
      reason: 'unwrap on spec.backup changes the field between versions',
    });
  });
});

describe('planAdmission at several versions', () => {
  it('plans each CRD rule of the runtime version at every other served version', () => {
    const plan = planAdmission(entry);
    const replicas = plan.rules.find((r) => r.rule === 'validation.rules[1]');
    expect(replicas?.atVersions?.map((j) => [j.version, j.mechanism])).toEqual([
      ['v1alpha1', 'crd-rule'],
      ['v2', 'crd-rule'],
    ]);
    expect(replicas?.atVersions?.[0]?.cel).toContain('self.size');
    expect(replicas?.atVersions?.[1]?.cel).toContain('self.count');
    const tier = plan.rules.find((r) => r.rule === 'validation.rules[2]');
    expect(tier?.atVersions?.map((j) => [j.version, j.mechanism])).toEqual([
      ['v1alpha1', 'webhook-deny'],
      ['v2', 'crd-rule'],
    ]);
    expect(plan.webhook.denyAt).toEqual([2]);
    expect(plan.webhook.denyAtVersions).toEqual(['v1alpha1']);
    const port = plan.rules.find((r) => r.rule === 'validation.rules[3]');
    expect(port?.atVersions?.[0]?.cel).toContain('self.nested.port');
  });

  it('writes the translated rules into each version of the CRD', () => {
    const crd = crdFor(katalog, entry) as unknown as {
      spec: { versions: { name: string; schema: { openAPIV3Schema: Record<string, unknown> } }[] };
    };
    const rulesOf = (name: string): { rule: string; message: string }[] => {
      const schema = crd.spec.versions.find((v) => v.name === name)?.schema.openAPIV3Schema;
      const spec = (schema?.['properties'] as Record<string, Record<string, unknown>>)['spec'];
      return (spec?.['x-kubernetes-validations'] as { rule: string; message: string }[] | undefined) ?? [];
    };
    expect(rulesOf('v1').map((r) => r.message)).toEqual([
      'at most 5 replicas',
      'tier starts with st',
      'unprivileged ports only',
    ]);
    // v1alpha1: the translated rules, then its own scoped rule; the tier rule goes to the webhook.
    expect(rulesOf('v1alpha1').map((r) => r.message)).toEqual([
      'at most 5 replicas',
      'unprivileged ports only',
      'v1alpha1 allows at most 100',
    ]);
    expect(rulesOf('v2').map((r) => r.message)).toEqual([
      'at most 5 replicas',
      'tier starts with st',
      'unprivileged ports only',
    ]);
  });

  it('sends requests at the versions no translation reaches to the deny-versions webhook', () => {
    const config = admissionWebhookConfiguration(katalog, { url: 'https://127.0.0.1:9443' }) as unknown as {
      webhooks: {
        name: string;
        clientConfig: { url: string };
        rules: { apiVersions: string[] }[];
        matchConditions: { name: string; expression: string }[];
      }[];
    };
    const hook = config.webhooks.find((w) => w.clientConfig.url.endsWith('/deny-versions'));
    expect(hook?.rules[0]?.apiVersions).toEqual(['v1']);
    expect(hook?.matchConditions.find((c) => c.name === 'request-version')?.expression).toBe(
      'request.requestKind.version in ["v1alpha1"]',
    );
  });

  it('keeps the paths an empty rule list keeps, and sends a rule on a schema-defaulted field to the webhook', () => {
    const k = loadKatalogOrThrow({
      file: 'k.yaml',
      text: `apiVersion: orkestra.konductor.io/v1alpha1
kind: Katalog
metadata: { name: shop }
spec:
  crds:
    shop:
      apiTypes: { group: shop.example.com, version: v2, kind: Shop, plural: shops }
      versions:
        - { name: v1, schema: { openAPIV3Schema: { type: object, properties: { spec: { type: object, properties: { replicas: { type: integer }, size: { type: integer } } } } } } }
        - { name: v2, storage: true, schema: { openAPIV3Schema: { type: object, properties: { spec: { type: object, properties: { replicas: { type: integer }, size: { type: integer } } } } } } }
      conversion:
        paths: [{ from: v1, to: v2, rules: [] }]
      mutation:
        rules:
          - { field: spec.size, default: 3 }
      validation:
        rules:
          - { field: spec.replicas, lte: 5, message: at most 5 }
          - { field: spec.size, lte: 5, message: size at most 5 }
`,
    });
    const plan = planAdmission(k.spec.crds['shop']!);
    expect(plan.rules.filter((r) => r.rule.startsWith('validation')).map((r) => r.atVersions)).toEqual([
      [{ version: 'v1', mechanism: 'crd-rule', cel: expect.stringContaining('self.replicas') }],
      [{ version: 'v1', mechanism: 'webhook-deny', reason: "spec.size is defaulted in v2's schema only" }],
    ]);
  });
});
