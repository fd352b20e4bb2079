import { describe, expect, it } from 'vitest';
import { loadKatalog } from '../load-katalog.js';
import { KATALOG_API_VERSION } from '../metadata.js';
import { ok } from './dialect-fixtures.test-support.js';

/**
 * The older upstream form of an entry's `validation` and `mutation`: the list of rules itself
 * (docs/reference/katalog.md §24). Fixtures written here from upstream's documented rule shape.
 */

const rules = `      validation:
        - field: spec.image
          prefix: "registry.example.com/"
          message: images come from the internal registry
          action: deny
      mutation:
        - field: spec.replicas
          default: 2
`;

const g1 = (body: string) => `apiVersion: orkestra.konductor.io/v1Alpha
kind: Katalog
metadata:
  name: sites
spec:
  crds:
    - name: site
      apiTypes:
        group: demo.example.io
        version: v1alpha1
        kind: Site
        plural: sites
${body}`;

const g2 = (body: string) => `apiVersion: orkestra.orkspace.io/v1
kind: Katalog
metadata:
  name: sites
spec:
  crds:
    site:
      apiTypes:
        group: demo.example.io
        version: v1alpha1
        kind: Site
        plural: sites
${body.replace(/^ {6}/gm, '      ')}`;

const load = (text: string) => loadKatalog({ text, file: 'katalog.yaml' });

describe('validation and mutation written as their list of rules', () => {
  it.each([
    ['older generation (list of entries)', g1],
    ['newer generation', g2],
  ])('are read as their rules in the %s', (_, doc) => {
    const result = ok(load(doc(rules)));
    const entry = result.katalog.spec.crds['site'];
    expect(entry?.validation?.rules).toEqual([
      expect.objectContaining({ message: 'images come from the internal registry', action: 'deny' }),
    ]);
    expect(entry?.mutation?.rules).toEqual([expect.objectContaining({ default: 2 })]);
  });

  it('stay refused in a canonical Katalog, at the list', () => {
    const canonical = g2(rules).replace('orkestra.orkspace.io/v1', KATALOG_API_VERSION);
    const result = load(canonical);
    expect(result.ok).toBe(false);
    const errors = result.ok ? [] : result.errors;
    expect(errors[0]).toMatchObject({ file: 'katalog.yaml', line: 14, path: 'spec.crds.site.validation' });
  });
});
