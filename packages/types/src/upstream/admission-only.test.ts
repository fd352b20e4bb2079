import { describe, expect, it } from 'vitest';
import { admissionOnlyReason } from '../admission-only.js';
import { head, ok, load } from './dialect-fixtures.test-support.js';

/**
 * Upstream's admission-only calls and rules (`fires.reconcile: false`, ADR 0104). The fixture is
 * written here from upstream's type definitions (pkg/types FiresConfig of orkspace/orkestra), not
 * copied from upstream files.
 */
const text = `${head()}      validation:
        external:
          - name: signature
            url: "https://sign.example.io/verify?image={{ .spec.image }}"
            expectedStatus: 200
            continueOnError: true
            fires:
              reconcile: false
          - name: quota
            url: "https://quota.example.io/{{ .spec.team }}"
            fires: {reconcile: true}
        rules:
          - field: "{{ .external.signature.status }}"
            equals: "200"
            message: "image {{ .spec.image }} is not signed"
          - field: external.quota.json.allowed
            equals: "true"
            message: over quota
          - field: spec.image
            prefix: registry.example.io/
            message: images come from the registry
            fires: {reconcile: false}
          - field: spec.replicas
            lte: 10
            message: at most 10 replicas
            when:
              - field: '{{ index .external "signature" "called" }}'
                equals: "true"
          - field: spec.external.signature
            operator: exists
            message: a spec field named like the call
`;

describe('upstream admission-only calls and rules (fires.reconcile: false)', () => {
  const validation = () => ok(load(text)).katalog.spec.crds['website']?.validation;

  it('loads fires on validation calls and on rules', () => {
    const v = validation();
    expect(v?.external.map((c) => [c.name, c.fires?.reconcile])).toEqual([
      ['signature', false],
      ['quota', true],
    ]);
    expect(v?.rules.map((r) => r.fires?.reconcile)).toEqual([
      undefined,
      undefined,
      false,
      undefined,
      undefined,
    ]);
  });

  it('judges at admission only a rule so marked and a rule reading an admission-only call, in any form', () => {
    const v = validation();
    expect(v?.rules.map((r) => admissionOnlyReason(r, v))).toEqual([
      'it reads external.signature, a call made at admission only (fires.reconcile: false)',
      undefined,
      'fires.reconcile: false',
      'it reads external.signature, a call made at admission only (fires.reconcile: false)',
      undefined,
    ]);
  });

  it('refuses a fires key it does not know, at its place', () => {
    const result = load(text.replace('fires: {reconcile: false}', 'fires: {admission: false}'));
    expect(result.ok).toBe(false);
    if (result.ok) return;
    expect(result.errors.map((e) => `${e.path}: ${e.message}`)).toEqual([
      expect.stringMatching(/^spec\.crds\.website\.validation\.rules\[2\]\.fires.*admission/),
    ]);
  });
});
