import { describe, expect, it } from 'vitest';
import { loadKatalog } from './load-katalog.js';

const HEAD = `apiVersion: orkestra.konductor.io/v1alpha1
kind: Katalog
metadata: {name: web}
spec:
  crds:
    shop:
      apiTypes: {group: demo.example.com, version: v1alpha1, kind: Shop, plural: shops}
      operatorBox:
        onReconcile:
`;
// Line 10 is the first line after HEAD.

function load(body: string) {
  return loadKatalog({ text: HEAD + body, file: 'k.yaml' });
}

function errors(body: string) {
  const result = load(body);
  if (result.ok) throw new Error('expected errors');
  return result.errors.map(({ line, column, path, message }) => ({ line, column, path, message }));
}

describe('loadKatalog: readiness and waitFor (ADR 0009)', () => {
  it('accepts ids, waitFor and readyWhen and defaults readiness to children', () => {
    const result = load(`          statefulSets: [{id: db, name: db, image: postgres}]
          jobs:
            - {id: migrate, name: migrate, image: m, waitFor: [db]}
          deployments:
            - id: web
              image: nginx
              waitFor: [migrate]
              readyWhen: [{field: status.readyReplicas, gte: 1}]
`);
    expect(result.ok).toBe(true);
    if (!result.ok) return;
    const entry = result.katalog.spec.crds['shop'];
    expect(entry?.readiness).toBe('children');
    const web = entry?.operatorBox.onReconcile.deployments[0];
    expect(web?.waitFor).toEqual(['migrate']);
    expect(web?.readyWhen).toEqual([
      { field: 'status.readyReplicas', operator: 'gte', value: 1, negate: false },
    ]);
  });

  it('reports unknown targets with a suggestion, self references and duplicate ids at file:line:col', () => {
    expect(
      errors(`          jobs:
            - {id: migrate, name: migrate, image: m, waitFor: [migrate]}
            - {id: migrate, name: other, image: m}
          deployments:
            - {image: nginx, waitFor: [migrat]}
`),
    ).toEqual([
      {
        line: 11,
        column: 64,
        path: 'spec.crds.shop.operatorBox.onReconcile.jobs[0].waitFor[0]',
        message: 'waitFor names the entry itself (migrate)',
      },
      {
        line: 12,
        column: 20,
        path: 'spec.crds.shop.operatorBox.onReconcile.jobs[1].id',
        message: 'duplicate entry id migrate',
      },
      {
        line: 14,
        column: 40,
        path: 'spec.crds.shop.operatorBox.onReconcile.deployments[0].waitFor[0]',
        message: 'waitFor names unknown entry id migrat; did you mean migrate?',
      },
    ]);
  });

  it('reports a waitFor cycle once, across onCreate and onReconcile', () => {
    const found = errors(`          jobs: [{id: a, name: a, image: m, waitFor: [b]}]
        onCreate:
          configMaps: [{id: b, name: b, waitFor: [a]}]
`);
    expect(found).toHaveLength(1);
    // onCreate entries come first, so the cycle is reported from b.
    expect(found[0]?.message).toBe('waitFor cycle: b → a → b');
    expect(found[0]?.path).toMatch(/waitFor\[0\]$/);
  });

  it('rejects an unknown readiness mode', () => {
    const text = HEAD.replace('      operatorBox:\n', '      readiness: always\n      operatorBox:\n');
    const result = loadKatalog({ text: `${text}          configMaps: [{name: a}]\n`, file: 'k.yaml' });
    expect(result.ok).toBe(false);
  });
});
