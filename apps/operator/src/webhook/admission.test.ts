import type { KubeObject } from '@orkestra/registry';
import { createAdmissionJudge, reconcileOnce } from '@orkestra/reconciler/offline';
import { loadKatalogOrThrow } from '@orkestra/types';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { planAdmission } from '../generate/admission.js';
import { createAdmissionHandler } from './admission.js';

// The admission webhook (docs/reference/katalog.md §12, ADR 0089) gives, for each rule it judges,
// the verdict the reconcile pipeline gives on the same CR: generated CRs run through the real
// offline pipeline and through the webhook's AdmissionReview handler, and the deny messages and
// warnings agree.

const NOW = Date.parse('2026-12-06T10:00:00Z');
const clock = { now: () => NOW, setTimeout: () => ({}), clearTimeout: () => undefined };

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
        rules:
          - { field: spec.tier, default: "{{ .metadata.name }}-std" }
      validation:
        rules:
          - { field: spec.image, prefix: "r/", message: "{{ .metadata.name }} needs an image from r/" }
          - { field: spec.size, lte: "{{ .spec.limit }}", message: size above the limit }
          - { field: spec.name, operator: unique, message: "{{ .spec.name }} is taken" }
          - { field: spec.loose, regex: "^a", message: loose must start with a }
          - { field: spec.tier, suffix: "-std", action: warn, message: "{{ .spec.tier }} is not a standard tier" }
          - { field: spec.loose, contains: "b", action: warn, when: [{ field: spec.size, exists: true }], message: loose has no b }
`,
});
const entry = katalog.spec.crds['shop'];
if (entry == null) throw new Error('no entry');
const DENY = '/validate/shops.shop.example.com/deny';
const WARN = '/validate/shops.shop.example.com/warn';

const loose = fc.oneof(
  fc.constantFrom('abc', 'ab', 'a', 'ab', '', 'xb'),
  fc
    .integer({ min: -3, max: 300 })
    .map(String)
    .map((t) => `a${t}`),
  fc.integer({ min: -3, max: 300 }),
  fc.double({ noNaN: true, noDefaultInfinity: true }),
  fc.constant(['b']),
  fc.constant({ a: 'b' }),
  fc.boolean(),
);
const spec = fc.record(
  {
    image: fc.constantFrom('r/app', 'r/app', 'r/app', 'r/', 'nginx', '', 'R/app'),
    size: fc.oneof(fc.integer({ min: -5, max: 8 }), fc.constantFrom('3', '7', 'x', '')),
    limit: fc.oneof(fc.integer({ min: 0, max: 10 }), fc.constantFrom('5', '9', 'none')),
    name: fc.constantFrom('alpha', 'beta', ''),
    loose,
    tier: fc.constantFrom('gold', 'x-std', '', 'silver'),
  },
  { requiredKeys: [] },
);

const cr = (name: string, uid: string, s: Record<string, unknown>): KubeObject => ({
  apiVersion: 'shop.example.com/v1',
  kind: 'Shop',
  metadata: { name, namespace: 'default', uid },
  spec: s,
});
const others = [cr('other', 'uid-other', { name: 'beta' })];

describe('admission webhook', () => {
  it('judges exactly the rules CEL cannot express', () => {
    const plan = planAdmission(entry);
    expect(plan.webhook).toEqual({
      deny: [0, 1, 2, 3],
      warn: [4, 5],
      mutate: [0],
      denyAt: [],
      denyAtVersions: [],
    });
  });

  it('gives each rule the reconcile pipeline’s verdict on generated CRs', async () => {
    const handler = createAdmissionHandler(
      katalog,
      { list: () => Promise.resolve({ items: others, resourceVersion: '1' }) },
      { judge: createAdmissionJudge(katalog, { clock }) },
    );
    const review = (object: KubeObject) => ({
      apiVersion: 'admission.k8s.io/v1',
      kind: 'AdmissionReview',
      request: { uid: 'r1', operation: 'CREATE', object },
    });
    let denials = 0;
    let warnings = 0;
    let passes = 0;
    await fc.assert(
      fc.asyncProperty(spec, fc.constantFrom('web', 'shop-1'), async (s, name) => {
        const object = cr(name, 'uid-me', s);
        const denyAnswer = (await handler(DENY, review(object)))?.['response'] as {
          allowed: boolean;
          uid: string;
          status?: { message: string };
        };
        const warnAnswer = (await handler(WARN, review(object)))?.['response'] as {
          allowed: boolean;
          warnings?: string[];
        };
        expect(denyAnswer.uid).toBe('r1');
        expect(warnAnswer.allowed).toBe(true);
        const { run } = await reconcileOnce(katalog, structuredClone(object), others, {}, { clock });
        const failed = run.error?.code === 'ValidationFailed';
        if (denyAnswer.allowed) expect(failed, run.error?.message).toBe(false);
        else {
          denials++;
          expect(failed).toBe(true);
          expect(run.error?.message.endsWith(denyAnswer.status?.message ?? '?')).toBe(true);
          return;
        }
        // Warnings: the reconcile records them when nothing was denied.
        const conditions = (
          run.cr?.['status'] as { conditions?: { type: string; status: string; message: string }[] }
        ).conditions;
        const warning = conditions?.find((c) => c.type === 'ValidationWarning');
        const said = warnAnswer.warnings ?? [];
        if (said.length > 0) warnings++;
        else passes++;
        expect(warning?.status === 'True' ? warning.message : '').toBe(said.join('; '));
      }),
      { numRuns: 300, seed: 89 },
    );
    // The generated CRs reach both verdicts.
    expect(denials).toBeGreaterThan(0);
    expect(warnings).toBeGreaterThan(0);
    expect(passes).toBeGreaterThan(0);
  });

  it('lists the other CRs for unique in the one namespace a pinned entry watches', async () => {
    const pinned = loadKatalogOrThrow({
      file: 'katalog.yaml',
      text: `apiVersion: orkestra.konductor.io/v1alpha1
kind: Katalog
metadata: { name: shop }
spec:
  crds:
    shop:
      apiTypes: { group: shop.example.com, version: v1, kind: Shop, plural: shops }
      allowedNamespaces: [team-a]
      validation:
        rules:
          - { field: spec.name, operator: unique, message: taken }
`,
    });
    const asked: unknown[] = [];
    const handler = createAdmissionHandler(pinned, {
      list: (kind, options) => {
        asked.push([kind, options]);
        return Promise.resolve({ items: [], resourceVersion: '1' });
      },
    });
    const answer = await handler(DENY, { request: { uid: 'u', object: cr('web', 'uid-me', { name: 'x' }) } });
    expect(answer?.['response']).toEqual({ uid: 'u', allowed: true });
    expect(asked).toEqual([[{ apiVersion: 'shop.example.com/v1', kind: 'Shop' }, { namespace: 'team-a' }]]);
  });

  it('answers an unknown path with nothing, and an UPDATE of another CR’s name with the unique denial', async () => {
    const handler = createAdmissionHandler(katalog, {
      list: () => Promise.resolve({ items: others, resourceVersion: '1' }),
    });
    expect(await handler('/validate/nope/deny', {})).toBeUndefined();
    const answer = await handler(DENY, {
      request: {
        uid: 'u',
        operation: 'UPDATE',
        object: cr('web', 'uid-me', { image: 'r/x', name: 'beta', size: 1, limit: 5, loose: 'a' }),
      },
    });
    expect(answer?.['response']).toEqual({
      uid: 'u',
      allowed: false,
      status: { code: 403, reason: 'Forbidden', message: 'beta is taken' },
    });
  });
});
