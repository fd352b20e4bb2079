import { loadKatalog } from '@orkestra/types';
import type { Katalog } from '@orkestra/types';
import { describe, expect, it } from 'vitest';
import { admissionPolicies, planAdmission } from './admission.js';
import { deletionProtectionPolicies } from './deletion-protection.js';
import { crdFor } from './generate-crds.js';

function load(text: string): Katalog {
  const result = loadKatalog({ text, file: 'katalog.yaml' });
  if (!result.ok) throw new Error(result.errors.map((e) => `${e.path}: ${e.message}`).join('\n'));
  return result.katalog;
}

const katalog = (entry: string, top = ''): Katalog =>
  load(`apiVersion: orkestra.konductor.io/v1alpha1
kind: Katalog
metadata: { name: shop }
spec:
${top}  crds:
    shop:
      apiTypes: { group: shop.example.com, version: v1, kind: Shop, plural: shops }
${entry}`);

const SCHEMA = `      schema:
        openAPIV3Schema:
          type: object
          properties:
            spec:
              type: object
              properties:
                image: { type: string }
                replicas: { type: integer }
                nested: { type: object, properties: { size: { type: integer } } }
`;

const entryOf = (k: Katalog) => {
  const entry = k.spec.crds['shop'];
  if (entry == null) throw new Error('no entry');
  return entry;
};

describe('planAdmission', () => {
  it('gives each rule its mechanism, and a reason to those kept at reconcile time', () => {
    const k = katalog(`${SCHEMA}      mutation:
        rules:
          - { field: spec.replicas, default: "2", valueType: int }
          - { field: spec.nested.size, default: 3 }
          - { field: spec.image, override: nginx }
          - { field: spec.other, default: x }
      validation:
        rules:
          - { field: spec.replicas, lte: 10, message: at most 10 }
          - { field: spec.replicas, gt: 20, action: warn, message: big }
          - { field: spec.image, prefix: "r/", message: "{{ .metadata.name }} needs r/" }
          - { field: spec.name, operator: unique, message: taken }
          - { field: spec.loose, contains: a, message: contains }
          - { field: spec.loose, regex: "^a", message: regex }
          - { field: spec.loose, equals: b, message: untyped deny }
          - { field: spec.other, exists: true, message: defaulted by the runtime }
          - { field: status.phase, exists: true, message: not spec }
`);
    const lines = planAdmission(entryOf(k)).rules.map(
      (r) => `${r.rule}: ${r.mechanism}${r.reason == null ? '' : ` (${r.reason})`}`,
    );
    expect(lines).toEqual([
      'mutation.rules[0]: schema-default',
      'mutation.rules[1]: schema-default',
      'mutation.rules[2]: webhook-mutate (override replaces what the client sent, which a schema default does not (a MutatingAdmissionPolicy could; the API server does not serve one by default))',
      "mutation.rules[3]: webhook-mutate (spec.other has no declared type in the entry's schema)",
      'validation.rules[0]: crd-rule',
      'validation.rules[1]: policy-warn',
      'validation.rules[2]: webhook-deny (the message is a template rendered with the reconcile’s context)',
      'validation.rules[3]: webhook-deny (unique compares with the other CRs of the entry, which CEL does not see)',
      'validation.rules[4]: webhook-deny (contains on a field of any type reads a map’s JSON text)',
      'validation.rules[5]: webhook-deny (a regex on a field of any type reads numbers, maps and lists as text)',
      'validation.rules[6]: policy-deny',
      'validation.rules[7]: webhook-deny (mutation.rules[3] sets spec.other before validation, which admission does not do the same way)',
      'validation.rules[8]: reconcile-only (status.phase is not a field under spec (admission checks what the client sends), and it reads status, which the runtime writes after admission)',
    ]);
  });

  it('gives the mutating webhook every mutation rule but those reading what mutating admission does not have, and the rules after them', () => {
    const k = katalog(`${SCHEMA}      mutation:
        rules:
          - { field: spec.replicas, default: "2", valueType: int }
          - { field: spec.image, default: "{{ .metadata.name }}" }
          - { field: spec.other, override: "{{ .metadata.uid }}" }
          - { field: spec.more, default: "{{ .spec.image }}" }
          - { field: spec.phase, default: x, when: [{ field: status.phase, exists: true }] }
`);
    const plan = planAdmission(entryOf(k));
    expect(plan.rules.map((r) => `${r.mechanism}: ${r.reason ?? ''}`)).toEqual([
      'schema-default: ',
      'webhook-mutate: a template is rendered with the reconcile’s context',
      'reconcile-only: override replaces what the client sent, which a schema default does not (a MutatingAdmissionPolicy could; the API server does not serve one by default), and it reads metadata the API server sets after mutating admission',
      'reconcile-only: a template is rendered with the reconcile’s context, and mutation.rules[2], before it, is applied at reconcile time only',
      'reconcile-only: a gated default is decided by the runtime, and it reads status, which the runtime writes after admission',
    ]);
    expect(plan.webhook.mutate).toEqual([0, 1]);
    // Only schema defaults: no mutating webhook.
    const constant = katalog(`${SCHEMA}      mutation:
        rules:
          - { field: spec.replicas, default: "2", valueType: int }
`);
    expect(planAdmission(entryOf(constant)).webhook.mutate).toEqual([]);
  });

  it('keeps at reconcile time a rule that reads what admission does not have yet, and judges one reading validation.external after the calls', () => {
    const k = katalog(`      validation:
        rules:
          - { field: external.quota.json.allowed, equals: "true", message: quota }
          - { field: spec.a, exists: true, message: "{{ .external.q.status }}" }
          - { field: spec.a, exists: true, message: "{{ .status.phase }}" }
          - { field: spec.a, exists: true, message: "{{ .metadata.resourceVersion }}" }
          - { field: spec.a, exists: true, message: "{{ .spec.status }} {{ .metadata.name }}" }
`);
    expect(planAdmission(entryOf(k)).rules.map((r) => `${r.mechanism}: ${r.reason ?? ''}`)).toEqual([
      'webhook-deny: external.quota.json.allowed is not a field under spec (admission checks what the client sends); the webhook makes the validation.external calls first (3 s bound)',
      'webhook-deny: the message is a template rendered with the reconcile’s context; the webhook makes the validation.external calls first (3 s bound)',
      'reconcile-only: the message is a template rendered with the reconcile’s context, and it reads status, which the runtime writes after admission',
      'reconcile-only: the message is a template rendered with the reconcile’s context, and it reads metadata set after admission',
      'webhook-deny: the message is a template rendered with the reconcile’s context',
    ]);
  });

  it('sends every rule to the webhook when normalize rewrites the spec first', () => {
    const k = katalog(`${SCHEMA}      normalize: { types: { replicas: int } }
      validation:
        rules:
          - { field: spec.replicas, lte: 10, message: at most 10 }
`);
    expect(planAdmission(entryOf(k)).rules).toEqual([
      {
        rule: 'validation.rules[0]',
        mechanism: 'webhook-deny',
        reason: 'normalize rewrites the spec before validation',
        message: 'at most 10',
      },
    ]);
  });
});

describe('generated CRD and policies', () => {
  it('puts defaults and CRD rules on spec, and guards a CR without spec when a rule fails on {}', () => {
    const k = katalog(`${SCHEMA}      mutation:
        rules:
          - { field: spec.nested.size, default: 3 }
      validation:
        rules:
          - { field: spec.image, exists: true, message: image is required }
          - { field: spec.replicas, lte: 10, message: at most 10 }
`);
    const crd = crdFor(k, entryOf(k)) as unknown as {
      spec: { versions: { schema: { openAPIV3Schema: Record<string, unknown> } }[] };
    };
    const root = crd.spec.versions[0]?.schema.openAPIV3Schema as {
      'x-kubernetes-validations': unknown;
      properties: { spec: Record<string, unknown> & { properties: Record<string, Record<string, unknown>> } };
    };
    const spec = root.properties.spec;
    expect(spec['default']).toBeUndefined();
    expect(spec.properties['nested']).toMatchObject({ default: {}, properties: { size: { default: 3 } } });
    expect(spec['x-kubernetes-validations']).toEqual([
      { rule: "((has(self.image)) && (self.image != ''))", message: 'image is required' },
      { rule: '((has(self.replicas) ? double(self.replicas) : 0.0) <= 10.0)', message: 'at most 10' },
    ]);
    // Only the rule an empty spec fails guards the root.
    expect(root['x-kubernetes-validations']).toEqual([
      { rule: 'has(self.spec)', message: 'image is required' },
    ]);
  });

  it('writes a Deny and a Warn policy only for the rules that need one', () => {
    const k = katalog(`      validation:
        rules:
          - { field: spec.image, prefix: "r/", message: deny me }
          - { field: spec.tier, exists: true, action: warn, message: warn me }
`);
    const policies = admissionPolicies(k);
    expect(policies.map((p) => `${p.kind} ${String((p['metadata'] as { name: string }).name)}`)).toEqual([
      'ValidatingAdmissionPolicy shops.shop.example.com.orkestra-deny',
      'ValidatingAdmissionPolicyBinding shops.shop.example.com.orkestra-deny',
      'ValidatingAdmissionPolicy shops.shop.example.com.orkestra-warn',
      'ValidatingAdmissionPolicyBinding shops.shop.example.com.orkestra-warn',
    ]);
    expect(policies[3]?.['spec']).toEqual({
      policyName: 'shops.shop.example.com.orkestra-warn',
      validationActions: ['Warn'],
    });
  });
});

describe('per-version admission (docs/reference/katalog.md §12, ADR 0069)', () => {
  const VERSIONED = `      versions:
        - name: v1alpha1
          schema:
            openAPIV3Schema:
              type: object
              properties:
                spec: { type: object, properties: { size: { type: integer }, engine: { type: string } } }
        - name: v1
          storage: true
          schema:
            openAPIV3Schema:
              type: object
              properties:
                spec: { type: object, properties: { replicas: { type: integer } } }
      conversion:
        paths:
          - { from: v1alpha1, to: v1, rules: [ { rename: { from: spec.size, to: spec.replicas } } ] }
      validation:
        rules:
          - { field: spec.replicas, lte: 10, message: at most 10 }
          - { field: spec.size, lte: 5, version: v1alpha1, message: v1alpha1 allows at most 5 }
          - { field: spec.loose, equals: x, version: v1alpha1, message: untyped v1alpha1 rule }
          - { field: spec.engine, exists: true, action: warn, version: v1alpha1, message: engine is deprecated }
`;

  it('puts a rule scoped to a version on that version only: its CRD schema, or its own policy matching its requests exactly', () => {
    const k = katalog(VERSIONED);
    const crd = crdFor(k, entryOf(k)) as unknown as {
      spec: {
        versions: {
          name: string;
          schema: { openAPIV3Schema: { properties: { spec: Record<string, unknown> } } };
        }[];
      };
    };
    const rulesOf = (name: string): unknown =>
      crd.spec.versions.find((v) => v.name === name)?.schema.openAPIV3Schema.properties.spec[
        'x-kubernetes-validations'
      ];
    expect(rulesOf('v1')).toEqual([
      { rule: '((has(self.replicas) ? double(self.replicas) : 0.0) <= 10.0)', message: 'at most 10' },
    ]);
    // v1alpha1: v1's rule with its field renamed (ADR 0102), then the rule scoped to v1alpha1.
    expect(rulesOf('v1alpha1')).toEqual([
      { rule: '((has(self.size) ? double(self.size) : 0.0) <= 10.0)', message: 'at most 10' },
      { rule: '((has(self.size) ? double(self.size) : 0.0) <= 5.0)', message: 'v1alpha1 allows at most 5' },
    ]);
    const policies = admissionPolicies(k);
    expect(policies.map((p) => String((p['metadata'] as { name: string }).name))).toEqual([
      'shops.shop.example.com.orkestra-deny-v1alpha1',
      'shops.shop.example.com.orkestra-deny-v1alpha1',
      'shops.shop.example.com.orkestra-warn-v1alpha1',
      'shops.shop.example.com.orkestra-warn-v1alpha1',
    ]);
    expect(policies[0]?.['spec']).toMatchObject({
      matchConstraints: {
        matchPolicy: 'Exact',
        resourceRules: [{ apiVersions: ['v1alpha1'] }],
      },
      validations: [{ message: 'untyped v1alpha1 rule' }],
    });
    expect(planAdmission(entryOf(k)).rules.map((r) => r.rule)).toEqual(['validation.rules[0]']);
    expect(planAdmission(entryOf(k), 'v1alpha1').rules.map((r) => `${r.rule} ${r.mechanism}`)).toEqual([
      'validation.rules[1] crd-rule',
      'validation.rules[2] policy-deny',
      'validation.rules[3] policy-warn',
    ]);
  });

  it('refuses a rule scoped to a version the entry does not serve, at its version', () => {
    const result = loadKatalog({
      text: `apiVersion: orkestra.konductor.io/v1alpha1
kind: Katalog
metadata: { name: shop }
spec:
  crds:
    shop:
      apiTypes: { group: shop.example.com, version: v1, kind: Shop, plural: shops }
      validation:
        rules:
          - { field: spec.a, exists: true, version: v2, message: m }
`,
      file: 'k.yaml',
    });
    expect(
      result.ok ? [] : result.errors.map((e) => `${e.line}:${e.column} ${e.path}: ${e.message}`),
    ).toEqual([
      expect.stringMatching(
        /^10:53 spec\.crds\.shop\.validation\.rules\[0\]\.version: version v2 is not a served version \(v1\)/,
      ),
    ]);
  });
});

describe('deletionProtectionPolicies', () => {
  it('writes nothing unless the Katalog asks', () => {
    expect(deletionProtectionPolicies(katalog(''), { namespace: 'ops' })).toEqual([]);
  });

  it('protects the CRDs by name, and the children except from the operator and the cluster’s controllers', () => {
    const k = katalog('', '  deletionProtection: { children: true }\n');
    const policies = deletionProtectionPolicies(k, { namespace: 'ops', users: ['dev-user'] });
    expect(policies.map((p) => `${p.kind} ${String((p['metadata'] as { name: string }).name)}`)).toEqual([
      'ValidatingAdmissionPolicy shop.orkestra-protect-crds',
      'ValidatingAdmissionPolicyBinding shop.orkestra-protect-crds',
      'ValidatingAdmissionPolicy shop.orkestra-protect-children',
      'ValidatingAdmissionPolicyBinding shop.orkestra-protect-children',
    ]);
    expect(JSON.stringify(policies[0])).toContain('"resourceNames":["shops.shop.example.com"]');
    const children = JSON.stringify(policies[2]);
    expect(children).toContain('system:serviceaccounts:ops');
    expect(children).toContain('system:serviceaccounts:kube-system');
    expect(children).toContain('request.userInfo.username != \\"dev-user\\"');
    expect(children).toContain('"values":["shop"]');
  });
});
