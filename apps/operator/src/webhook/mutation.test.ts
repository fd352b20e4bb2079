import type { KubeObject } from '@orkestra/registry';
import { createAdmissionJudge, reconcileOnce } from '@orkestra/reconciler/offline';
import { loadKatalogOrThrow } from '@orkestra/types';
import type { Katalog } from '@orkestra/types';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { planAdmission } from '../generate/admission.js';
import { createAdmissionHandler } from './admission.js';
import type { JsonPatchOp } from './json-patch.js';
import { applyJsonPatch } from './json-patch.test-support.js';

// The mutating webhook (docs/reference/katalog.md §12, ADR 0092) stores what the reconcile's
// mutation step would write: generated CRs get the CRD's schema defaults (as the API server
// applies them before mutating admission), then the webhook's JSONPatch; the result equals the
// spec the real offline pipeline settles on when it reconciles that object stored without the
// webhook (again after each of its mutation patches, as the runtime's watch does), and the
// reconcile then finds nothing to mutate.

const NOW = Date.parse('2026-12-06T10:00:00Z');
const clock = { now: () => NOW, setTimeout: () => ({}), clearTimeout: () => undefined };

const katalogText = (normalize: string): string => `apiVersion: orkestra.konductor.io/v1alpha1
kind: Katalog
metadata: { name: shop }
spec:
  crds:
    shop:
      apiTypes: { group: shop.example.com, version: v1, kind: Shop, plural: shops }
      schema:
        openAPIV3Schema:
          type: object
          properties:
            spec:
              type: object
              x-kubernetes-preserve-unknown-fields: true
              properties:
                replicas: { type: integer }
${normalize}      mutation:
        rules:
          - { field: spec.replicas, default: "2", valueType: int }
          - { field: spec.tier, default: "{{ .metadata.name }}-std" }
          - { field: spec.owner, override: "team-{{ .spec.team }}", when: [{ field: spec.team, exists: true }] }
          - { field: spec.labels.app/name, override: "{{ .metadata.name }}" }
          - { field: spec.db.engine, default: "pg-{{ .spec.tier }}" }
          - { field: spec.size, override: "{{ .spec.replicas }}", valueType: int }
          - { field: spec.ports, default: [80, 443] }
`;
const katalog = loadKatalogOrThrow({ file: 'katalog.yaml', text: katalogText('') });
// The same rules after a normalize: the plan comes from the normalized view, the patch goes on the object sent.
const normalized = loadKatalogOrThrow({
  file: 'katalog.yaml',
  text: katalogText(`      normalize:
        spec:
          tier: "{{ .spec.tier }}-n"
          team: "{{ .spec.team }}x"
`),
});
const entry = katalog.spec.crds['shop'];
if (entry == null) throw new Error('no entry');
const MUTATE = '/mutate/shops.shop.example.com';

const spec = fc.record(
  {
    replicas: fc.integer({ min: 0, max: 5 }),
    tier: fc.constantFrom('gold', '', 'x-std'),
    team: fc.constantFrom('a', 'b', ''),
    owner: fc.constantFrom('me', 'team-a'),
    labels: fc.oneof(
      fc.constant({}),
      fc.constant({ 'app/name': 'other', keep: 'x' }),
      fc.constant({ 'a~b': 'y' }),
    ),
    db: fc.oneof(fc.constant({}), fc.constant({ engine: 'mysql' }), fc.constant({ engine: '', size: 3 })),
    size: fc.integer({ min: 0, max: 9 }),
    ports: fc.oneof(fc.constant([]), fc.constant([8080])),
  },
  { requiredKeys: [] },
);

/** withSchemaDefaults applies the CRD's schema defaults (the plan's) as the API server does before admission. */
function withSchemaDefaults(k: Katalog, object: KubeObject): KubeObject {
  const out = structuredClone(object) as Record<string, unknown>;
  const target = (out['spec'] ??= {}) as Record<string, unknown>;
  for (const { path, value } of planAdmission(k.spec.crds['shop'] as never).defaults) {
    let node = target;
    path.slice(0, -1).forEach((segment) => {
      node = (node[segment] ??= {}) as Record<string, unknown>;
    });
    const last = path[path.length - 1];
    if (last != null && !Object.hasOwn(node, last)) node[last] = value;
  }
  return out as KubeObject;
}

describe('mutating admission webhook', () => {
  it('gives the webhook the rules schema defaults cannot express, and keeps constant defaults in the schema', () => {
    const plan = planAdmission(entry);
    expect(plan.rules.filter((r) => r.rule.startsWith('mutation')).map((r) => r.mechanism)).toEqual([
      'schema-default',
      'webhook-mutate',
      'webhook-mutate',
      'webhook-mutate',
      'webhook-mutate',
      'webhook-mutate',
      'webhook-mutate',
    ]);
    expect(plan.defaults).toEqual([{ path: ['replicas'], value: 2 }]);
  });

  it.each([
    ['', katalog],
    [', after normalize', normalized],
  ])(
    'stores what the reconcile’s mutation writes, on generated CRs%s',
    async (_, k) => {
      const handler = createAdmissionHandler(
        k,
        { list: () => Promise.reject(new Error('no list')) },
        { judge: createAdmissionJudge(k, { clock }) },
      );
      let patched = 0;
      await fc.assert(
        fc.asyncProperty(spec, fc.constantFrom('web', 'shop-1'), fc.boolean(), async (s, name, noSpec) => {
          const sent: KubeObject = {
            apiVersion: 'shop.example.com/v1',
            kind: 'Shop',
            metadata: { name, namespace: 'default', uid: 'uid-me' },
            ...(noSpec ? {} : { spec: s }),
          };
          const object = withSchemaDefaults(k, sent);
          const answer = (
            await handler(MUTATE, {
              request: { uid: 'r1', operation: 'CREATE', object },
            })
          )?.['response'] as { allowed: boolean; patchType?: string; patch?: string };
          expect(answer.allowed).toBe(true);
          const ops = (
            answer.patch == null ? [] : JSON.parse(Buffer.from(answer.patch, 'base64').toString('utf8'))
          ) as JsonPatchOp[];
          if (ops.length > 0) {
            patched++;
            expect(answer.patchType).toBe('JSONPatch');
          }
          const stored = applyJsonPatch(object, ops) as KubeObject;
          // The runtime reads the object the API server stored (schema defaults applied, no webhook)
          // and reconciles it again after each of its mutation patches, until the spec holds still.
          let reconciled = structuredClone(object);
          for (let i = 0; i < 5; i++) {
            const { run } = await reconcileOnce(k, structuredClone(reconciled), [], {}, { clock });
            expect(run.error).toBeUndefined();
            const next = run.cr as KubeObject;
            const settled = JSON.stringify(next['spec']) === JSON.stringify(reconciled['spec']);
            reconciled = next;
            if (settled) break;
          }
          expect(stored['spec']).toEqual(reconciled['spec']);
          // The reconcile of the stored object changes nothing in its spec: admission left it nothing to do.
          const again = await reconcileOnce(k, structuredClone(stored), [], {}, { clock });
          expect(again.run.cr?.['spec']).toEqual(stored['spec']);
        }),
        { numRuns: 300, seed: 92 },
      );
      expect(patched).toBeGreaterThan(0);
      // 300 generated CRs, each reconciled offline up to six times: 12-18 s alone on 2 cores, over
      // 40 s under a loaded test run (a bound on the wait, not a figure).
    },
    120_000,
  );

  it('leaves a CR without a name yet to the reconcile when a rule reads metadata, and refuses a value its valueType cannot hold', async () => {
    const handler = createAdmissionHandler(katalog, { list: () => Promise.reject(new Error('no list')) });
    const named = (
      await handler(MUTATE, {
        request: { uid: 'u', object: { metadata: { generateName: 'web-' }, spec: {} } },
      })
    )?.['response'] as { allowed: boolean; patch?: string; warnings?: string[] };
    expect(named.allowed).toBe(true);
    expect(named.patch).toBeUndefined();
    expect(named.warnings?.[0]).toMatch(/once the API server has named the object/);
    // Rules that read no metadata are applied to it all the same.
    const plain = loadKatalogOrThrow({
      file: 'katalog.yaml',
      text: `apiVersion: orkestra.konductor.io/v1alpha1
kind: Katalog
metadata: { name: shop }
spec:
  crds:
    shop:
      apiTypes: { group: shop.example.com, version: v1, kind: Shop, plural: shops }
      mutation:
        rules:
          - { field: spec.tier, override: gold }
          - { field: spec.id, default: "{{ metadata.uid }}" }
`,
    });
    // The handlebars dialect's metadata.uid (no leading dot) is seen too: that rule stays at reconcile time.
    expect(planAdmission(plain.spec.crds['shop'] as never).rules.map((r) => r.mechanism)).toEqual([
      'webhook-mutate',
      'reconcile-only',
    ]);
    const generated = (
      await createAdmissionHandler(plain, {
        list: () => Promise.reject(new Error('no list')),
      })(MUTATE, {
        request: { uid: 'u', object: { metadata: { generateName: 'web-' }, spec: {} } },
      })
    )?.['response'] as { allowed: boolean; patch?: string; warnings?: string[] };
    expect(generated.warnings).toBeUndefined();
    expect(JSON.parse(Buffer.from(generated.patch ?? '', 'base64').toString('utf8'))).toEqual([
      { op: 'add', path: '/spec/tier', value: 'gold' },
    ]);
    const bad = (
      await handler(MUTATE, {
        request: { uid: 'u', object: { metadata: { name: 'web' }, spec: { replicas: 'many' } } },
      })
    )?.['response'] as { allowed: boolean; status?: { code: number; message: string } };
    expect(bad.allowed).toBe(false);
    expect(bad.status?.code).toBe(422);
    expect(bad.status?.message).toMatch(/cannot convert "many" to int/);
  });
});
