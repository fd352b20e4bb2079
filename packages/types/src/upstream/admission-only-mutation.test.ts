import { describe, expect, it } from 'vitest';
import { admissionOnlyReason, readsCalls } from '../admission-only.js';
import { head, ok, load } from './dialect-fixtures.test-support.js';

/**
 * Upstream's admission-only mutation (ADR 0112): `fires` on mutation rules and the calls of
 * `mutation.external`, whose answers the rules read. The fixture is written here from upstream's
 * type definitions (pkg/types MutationRule.Fires and MutationConfig.External of orkspace/orkestra),
 * not copied from upstream files.
 */
const text = `${head()}      admission:
        mutation:
          external:
            - name: registry
              url: "https://registry.example.io/resolve?image={{ .spec.image }}"
              continueOnError: true
              fires:
                reconcile: false
          rules:
            - field: spec.digest
              override: "{{ .external.registry.json.digest }}"
            - field: spec.owner
              default: platform
              fires: {reconcile: false}
            - field: spec.resolvedBy
              default: registry
              when:
                - field: '{{ index .external "registry" "called" }}'
                  equals: "true"
            - field: spec.replicas
              default: 2
              valueType: int
            - field: spec.external.registry
              default: a spec field named like the call
`;

describe('upstream admission-only mutation (fires on rules, mutation.external)', () => {
  const mutation = () => ok(load(text)).katalog.spec.crds['website']?.mutation;

  it('loads mutation.external calls and fires on mutation rules', () => {
    const m = mutation();
    expect(m?.external.map((c) => [c.name, c.fires?.reconcile, c.continueOnError])).toEqual([
      ['registry', false, true],
    ]);
    expect(m?.rules.map((r) => r.fires?.reconcile)).toEqual([
      undefined,
      false,
      undefined,
      undefined,
      undefined,
    ]);
  });

  it('applies at admission only a rule so marked and a rule reading a mutation.external answer, in any form', () => {
    const m = mutation();
    const reason = 'it reads external.registry, a call made at admission only (fires.reconcile: false)';
    expect(m?.rules.map((r) => admissionOnlyReason(r, m))).toEqual([
      reason,
      'fires.reconcile: false',
      reason,
      undefined,
      undefined,
    ]);
    expect(m?.rules.map((r) => readsCalls(r, m.external))).toEqual([['registry'], [], ['registry'], [], []]);
  });

  it('loads a mutation.external call made at reconcile time too, and the rules reading it apply at both (ADR 0114)', () => {
    const result = load(text.replace(/ {14}fires:\n {16}reconcile: false\n/, ''));
    const m = ok(result).katalog.spec.crds['website']?.mutation;
    expect(m?.external.map((c) => [c.name, c.fires])).toEqual([['registry', undefined]]);
    // Only `fires.reconcile: false` on the rule itself keeps a rule at admission now.
    expect(m?.rules.map((r) => admissionOnlyReason(r, m))).toEqual([
      undefined,
      'fires.reconcile: false',
      undefined,
      undefined,
      undefined,
    ]);
    expect(m?.rules.map((r) => readsCalls(r, m.external))).toEqual([['registry'], [], ['registry'], [], []]);
  });

  it('refuses a fires key it does not know on a mutation rule, at its place', () => {
    const result = load(text.replace('fires: {reconcile: false}', 'fires: {admission: false}'));
    expect(result.ok).toBe(false);
    if (result.ok) return;
    expect(result.errors.map((e) => `${e.path}: ${e.message}`)).toEqual([
      expect.stringMatching(/^spec\.crds\.website\.(admission\.)?mutation\.rules\[1\]\.fires.*admission/),
    ]);
  });
});
