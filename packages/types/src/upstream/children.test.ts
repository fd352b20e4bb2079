import { describe, expect, it } from 'vitest';
import { migrateKatalog } from './migrate.js';
import { head, ok, load } from './dialect-fixtures.test-support.js';

/**
 * Upstream dialects, one test per mapping. Every fixture is written here from upstream's
 * documentation and type definitions (pkg/types of orkspace/orkestra and inrundev/inrun), not
 * copied from upstream files.
 */

describe('upstream shapes inside children', () => {
  const text = `${head()}      operatorBox:
        onReconcile:
          deployments:
            - name: web
              image: nginx
              labels:
                - key: tier
                  value: frontend
              env:
                MODE: production
                PASSWORD:
                  secretKeyRef: {name: creds, key: password}
                LEVEL:
                  configMapKeyRef: {name: settings, key: level}
                REGION:
                  value: "{{ .spec.region }}"
              envFrom:
                - configMapRef: settings
                - secretRef: creds
          custom:
            - apiVersion: example.io/v1
              kind: Widget
              hasStatus: true
              metadata:
                name: w
                namespaced: false
              spec:
                size: 1
        cross:
          - crd: website
            source: "http://catalog.example.io/items.json"
            selector: {name: "{{ .metadata.name }}"}
`;

  it('turns label lists into maps, env maps into lists and envFrom lists into reference lists', () => {
    const result = ok(load(text));
    const deployment = result.katalog.spec.crds['website']?.operatorBox.onReconcile.deployments[0];
    expect(deployment?.labels).toEqual({ tier: 'frontend' });
    expect(deployment?.env).toEqual([
      { name: 'MODE', value: 'production' },
      { name: 'PASSWORD', valueFrom: { secretKeyRef: { name: 'creds', key: 'password' } } },
      { name: 'LEVEL', valueFrom: { configMapKeyRef: { name: 'settings', key: 'level' } } },
      { name: 'REGION', value: '{{ .spec.region }}' },
    ]);
    expect(deployment?.envFrom).toEqual({
      configMapRef: [{ name: 'settings' }],
      secretRef: [{ name: 'creds' }],
    });
  });

  it('moves a custom child’s metadata.namespaced up and drops hasStatus from the manifest', () => {
    const result = ok(load(text));
    const custom = result.katalog.spec.crds['website']?.operatorBox.onReconcile.custom[0];
    expect(custom?.['namespaced']).toBe(false);
    expect(custom).not.toHaveProperty('hasStatus');
    expect(custom?.['metadata']).not.toHaveProperty('namespaced');
  });

  it('renames cross[].source to endpoint', () => {
    const result = ok(load(text));
    expect(result.katalog.spec.crds['website']?.operatorBox.cross[0]?.endpoint).toBe(
      'http://catalog.example.io/items.json',
    );
  });
});

describe('upstream child shapes: replicasets and forEach.as', () => {
  const lineOf = (text: string, needle: string): number =>
    text.split('\n').findIndex((l) => l.includes(needle)) + 1;
  const box = (body: string): string => `${head()}      operatorBox:\n${body}`;

  it('renames upstream’s `replicasets:` spelling to replicaSets', () => {
    const text = box(`        onCreate:
          replicasets:
            - image: nginx:1.25
              replicas: "3"
              port: "8080"
`);
    const result = ok(load(text));
    expect(result.katalog.spec.crds['website']?.operatorBox.onCreate.replicaSets[0]).toMatchObject({
      image: 'nginx:1.25',
    });
    expect(migrateKatalog(text).changes).toContainEqual(
      expect.objectContaining({ message: 'renamed to replicaSets', line: lineOf(text, 'replicasets') }),
    );
  });

  it('drops forEach.as: item (the default) instead of refusing it', () => {
    const text = box(`        onReconcile:
          configMaps:
            - name: "{{ .metadata.name }}-{{ .item }}"
              forEach: {field: spec.queues, as: item}
              data: {queue: "{{ .item }}"}
`);
    const entry = ok(load(text)).katalog.spec.crds['website']?.operatorBox.onReconcile.configMaps[0];
    expect(entry?.forEach).toEqual({ field: 'spec.queues' });
  });
});
