import type { KubeObject } from '@orkestra/registry';
import { renderTemplate } from '@orkestra/template';
import { loadKatalogOrThrow } from '@orkestra/types';
import { describe, expect, it } from 'vitest';
import { createNamespaceGuard } from '../../namespace-guard.js';
import { compileKatalog } from '../compile-katalog.js';
import { namespaceRestriction, normalizeCr, planMutation, validateCr } from './admission.js';

const katalog = loadKatalogOrThrow({
  text: `
apiVersion: orkestra.konductor.io/v1alpha1
kind: Katalog
metadata: {name: t}
spec:
  crds:
    app:
      apiTypes: {group: a.example.com, version: v1, kind: App, plural: apps}
      restrictedNamespaces: ["kube-*"]
      normalize:
        spec:
          size: '{{ lower spec.size }}'
      mutation:
        rules:
          - {field: spec.replicas, default: "2", valueType: int}
          - {field: spec.tier, override: large, when: [{field: spec.replicas, equals: "2"}]}
          - {field: spec.size, default: small}
      validation:
        rules:
          - {field: spec.host, operator: unique, message: 'host {{ spec.host }} is taken'}
          - {field: spec.replicas, lte: 5, action: warn, message: many replicas}
          - {field: spec.tier, in: [small, large], message: 'tier {{ spec.tier }} is unknown'}
`,
});
const crd = compileKatalog(katalog).crds.get('app');
if (crd == null) throw new Error('no crd');
const conditions = { renderTemplate, now: () => new Date('2026-01-01T00:00:00Z') };

function app(spec: Record<string, unknown>, uid = 'u1'): KubeObject {
  return {
    apiVersion: 'a.example.com/v1',
    kind: 'App',
    metadata: { name: 'a', namespace: 'web', uid },
    spec,
  };
}

describe('namespaceRestriction', () => {
  it('rejects a CR in a restricted namespace with a terminal NamespaceRestricted, and passes others', () => {
    const guard = createNamespaceGuard({ restricted: ['kube-*'] });
    expect(namespaceRestriction(crd, guard, 'kube-system')?.code).toBe('NamespaceRestricted');
    expect(namespaceRestriction(crd, guard, 'web')).toBeUndefined();
    expect(namespaceRestriction(crd, guard, undefined)).toBeUndefined();
  });
});

describe('normalizeCr', () => {
  it('applies the entry normalize to the spec only', () => {
    const view = normalizeCr(crd, app({ size: 'LARGE' }));
    expect(view['spec']).toMatchObject({ size: 'large' });
    expect(view.metadata.name).toBe('a');
  });
});

describe('planMutation', () => {
  it('lets each gate see the spec as the earlier rules left it (the runtime semantics)', () => {
    // replicas is defaulted to 2 first; the tier rule's gate then sees replicas 2.
    expect(planMutation(crd, app({ size: 'small' }), conditions)?.changes).toEqual({
      replicas: 2,
      tier: 'large',
    });
  });

  it('fills defaults only for absent or empty fields and converts to valueType', () => {
    expect(planMutation(crd, app({ replicas: 3, size: '' }), conditions)?.changes).toEqual({ size: 'small' });
    expect(planMutation(crd, app({ replicas: 3, size: 'small' }), conditions)).toBeUndefined();
  });
});

describe('validateCr', () => {
  it('denies with the rendered message and collects warnings', () => {
    const outcome = validateCr(crd, app({ replicas: 9, tier: 'huge', host: 'x' }), conditions, () => []);
    expect(outcome.denied).toEqual(['tier huge is unknown']);
    expect(outcome.warnings).toEqual(['many replicas']);
  });

  it('checks unique against the other CRs of the entry, not against the CR itself', () => {
    const mine = app({ replicas: 1, tier: 'small', host: 'shop.example.com' });
    expect(validateCr(crd, mine, conditions, () => [mine]).denied).toEqual([]);
    const other = app({ host: 'shop.example.com' }, 'u2');
    expect(validateCr(crd, mine, conditions, () => [mine, other]).denied).toEqual([
      'host shop.example.com is taken',
    ]);
  });
  it('does not judge a rule scoped to another served version (admission only, docs/reference/katalog.md §12)', () => {
    const scoped = compileKatalog(
      loadKatalogOrThrow({
        text: `
apiVersion: orkestra.konductor.io/v1alpha1
kind: Katalog
metadata: {name: t}
spec:
  crds:
    app:
      apiTypes: {group: a.example.com, version: v1, kind: App, plural: apps}
      versions: [{name: v1alpha1}, {name: v1, storage: true}]
      conversion:
        paths: [{from: v1alpha1, to: v1, rules: [{rename: {from: spec.size, to: spec.replicas}}]}]
      validation:
        rules:
          - {field: spec.replicas, lte: 5, message: at most 5}
          - {field: spec.size, exists: true, version: v1alpha1, message: size is required at v1alpha1}
          - {field: spec.replicas, gt: 0, version: v1, message: at least 1}
`,
      }),
    ).crds.get('app');
    if (scoped == null) throw new Error('no crd');
    expect(validateCr(scoped, app({ replicas: 9 }), conditions, () => []).denied).toEqual(['at most 5']);
    expect(validateCr(scoped, app({ replicas: 0 }), conditions, () => []).denied).toEqual(['at least 1']);
  });
});
