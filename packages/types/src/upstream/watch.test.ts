import { describe, expect, it } from 'vitest';
import { migrateKatalog } from './migrate.js';
import { head, ok, load } from './dialect-fixtures.test-support.js';

/**
 * Upstream dialects, one test per mapping. Every fixture is written here from upstream's
 * documentation and type definitions (pkg/types of orkspace/orkestra and inrundev/inrun), not
 * copied from upstream files.
 */

describe('watch and preReconcile (G3)', () => {
  const box = (body: string) => `${head()}      operatorBox:\n${body}`;

  it('moves a flat operatorBox.watch to the entry, with its defaults, and drops index', () => {
    const text = box(`        watch:
          - apiVersion: apps/v1
            kind: Deployment
          - apiVersion: v1
            kind: ConfigMap
            namespace: platform
            name: shared-config
            on: [update]
            keyFrom: {name: main, namespace: shop}
            index:
              - {name: owner, field: '.metadata.ownerReferences[0].name'}
`);
    const result = ok(load(text));
    expect(result.katalog.spec.crds['website']?.watch).toEqual([
      { apiVersion: 'apps/v1', kind: 'Deployment', on: ['create', 'update', 'delete'] },
      {
        apiVersion: 'v1',
        kind: 'ConfigMap',
        namespace: 'platform',
        name: 'shared-config',
        on: ['update'],
        keyFrom: { name: 'main', namespace: 'shop' },
      },
    ]);
    const migrated = migrateKatalog(text);
    expect(migrated.problems).toEqual([]);
    expect(migrated.text).not.toContain('index:');
    expect(migrated.text).not.toMatch(/operatorBox:\n\s+watch:/);
    expect(ok(load(migrated.text)).katalog.spec.crds['website']?.watch).toEqual(
      result.katalog.spec.crds['website']?.watch,
    );
  });

  it('moves observe.watch to the entry and refuses observe.events at the key, with the reason', () => {
    const good = box(`        observe:
          watch:
            - {apiVersion: v1, kind: Secret, keyFrom: {label: example.io/owner}}
`);
    expect(ok(load(good)).katalog.spec.crds['website']?.watch).toEqual([
      {
        apiVersion: 'v1',
        kind: 'Secret',
        on: ['create', 'update', 'delete'],
        keyFrom: { label: 'example.io/owner' },
      },
    ]);
    const bad = good + '          events:\n            ready: {reason: DatabaseReady}\n';
    const result = load(bad);
    expect(result.ok).toBe(false);
    if (result.ok) return;
    const line = bad.split('\n').findIndex((l) => l.includes('events:')) + 1;
    expect(result.errors).toHaveLength(1);
    expect(result.errors[0]).toMatchObject({ line, path: 'spec.crds.website.operatorBox.observe.events' });
    expect(result.errors[0]?.message).toMatch(/Kubernetes Events are not watched as triggers/);
  });

  it('refuses a keyFrom with both label and name, and an unknown event, at the field', () => {
    const result = load(
      box(`        watch:
          - {apiVersion: v1, kind: Secret, on: [patch], keyFrom: {label: a, name: b}}
`),
    );
    expect(result.ok).toBe(false);
    if (result.ok) return;
    const byPath = Object.fromEntries(result.errors.map((e) => [e.path, e.message]));
    expect(byPath['spec.crds.website.watch[0].on[0]']).toMatch(/expected create, update or delete/);
    expect(byPath['spec.crds.website.watch[0].keyFrom']).toMatch(/exactly one of label or name/);
  });

  it('keeps a preReconcile that only declares sentinels (moved to the entry; pre-reconcile.test.ts has the gates)', () => {
    const sentinels = box('        preReconcile:\n          sentinels: [generationChanged, labelsChanged]\n');
    const loaded = ok(load(sentinels));
    expect(loaded.katalog.spec.crds['website']?.preReconcile?.sentinels).toEqual([
      'generationChanged',
      'labelsChanged',
    ]);
  });
});
