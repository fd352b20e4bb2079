import type { KubeObject } from '@orkestra/registry';
import { loadKatalogOrThrow } from '@orkestra/types';
import { describe, expect, it } from 'vitest';
import { createAdmissionJudge } from './admission-judge.js';

// The admission webhook's verdict (ADR 0089) is the reconcile's steps 6–8: normalize, the mutation
// rules merged into the spec, then the rules asked for, `unique` against the CRs given.

const katalog = loadKatalogOrThrow({
  file: 'katalog.yaml',
  text: `apiVersion: orkestra.konductor.io/v1alpha1
kind: Katalog
metadata: { name: shop }
spec:
  crds:
    shop:
      apiTypes: { group: shop.example.com, version: v1, kind: Shop, plural: shops }
      normalize: { spec: { image: "{{ .spec.image | trim }}" } }
      mutation:
        rules:
          - { field: spec.tier, default: "{{ .metadata.name }}-std" }
      validation:
        rules:
          - { field: spec.image, prefix: "r/", message: "{{ .metadata.name }} needs r/" }
          - { field: spec.tier, suffix: "-std", action: warn, message: "{{ .spec.tier }} is unusual" }
          - { field: spec.name, operator: unique, message: "{{ .spec.name }} is taken" }
`,
});
const cr = (name: string, uid: string, spec: Record<string, unknown>): KubeObject => ({
  apiVersion: 'shop.example.com/v1',
  kind: 'Shop',
  metadata: { name, namespace: 'default', uid },
  spec,
});

describe('createAdmissionJudge', () => {
  const judge = createAdmissionJudge(katalog, { clock: { now: () => 0 } });

  it('judges after normalize and mutation, as the reconcile does', () => {
    // The default tier (web-std) is set before the warn rule reads it; the image is trimmed first.
    expect(judge.judge('shop', cr('web', 'u1', { image: '  r/app ' }))).toEqual({
      denied: [],
      warnings: [],
    });
    expect(judge.judge('shop', cr('web', 'u1', { image: '  r/app ', tier: 'x-std' }))).toEqual({
      denied: [],
      warnings: [],
    });
    expect(judge.judge('shop', cr('web', 'u1', { image: 'nginx', tier: 'gold' }))).toEqual({
      denied: ['web needs r/'],
      warnings: ['gold is unusual'],
    });
  });

  it('judges only the rules asked for, and unique against the other CRs', () => {
    const others = [cr('old', 'u0', { name: 'beta' }), cr('web', 'u1', { name: 'alpha' })];
    const verdict = judge.judge('shop', cr('web', 'u1', { image: 'nginx', name: 'beta' }), {
      rules: new Set([2]),
      others: () => others,
    });
    expect(verdict).toEqual({ denied: ['beta is taken'], warnings: [] });
    expect(
      judge.judge('shop', cr('web', 'u1', { name: 'alpha' }), { rules: new Set([2]), others: () => others }),
    ).toEqual({ denied: [], warnings: [] });
    expect(judge.judge('nope', cr('web', 'u1', {}))).toBeUndefined();
  });
});

describe('createAdmissionJudge with mutation.external made at reconcile (ADR 0114)', () => {
  const withCall = loadKatalogOrThrow({
    file: 'katalog.yaml',
    text: `apiVersion: orkestra.konductor.io/v1alpha1
kind: Katalog
metadata: { name: ship }
spec:
  crds:
    ship:
      apiTypes: { group: ship.example.com, version: v1, kind: Ship, plural: ships }
      mutation:
        external:
          - { name: registry, url: "https://registry.example.io/{{ .spec.image }}" }
        rules:
          - { field: spec.digest, override: "r@{{ .external.registry.json.digest }}" }
          - { field: spec.tier, default: std }
      validation:
        rules:
          - { field: spec.digest, prefix: "r@sha256:", message: "digest {{ .spec.digest }}" }
          - { field: spec.tier, equals: std, message: "tier {{ .spec.tier }}" }
`,
  });
  const judge = createAdmissionJudge(withCall, { clock: { now: () => 0 } });
  const ship = (spec: Record<string, unknown>): KubeObject => ({
    apiVersion: 'ship.example.com/v1',
    kind: 'Ship',
    metadata: { name: 's', namespace: 'default', uid: 'u' },
    spec,
  });

  it('judges the digest the mutating webhook set, not one re-rendered without the answer', () => {
    expect(judge.judge('ship', ship({ image: 'r/a', digest: 'r@sha256:1' }))).toEqual({
      denied: [],
      warnings: [],
    });
    // The rule reading no call is still applied first.
    expect(judge.judge('ship', ship({ image: 'r/a', digest: 'r@sha256:1', tier: '' }))).toEqual({
      denied: [],
      warnings: [],
    });
    expect(judge.judge('ship', ship({ image: 'r/a', digest: 'r@md5:1' }))).toEqual({
      denied: ['digest r@md5:1'],
      warnings: [],
    });
  });
});
