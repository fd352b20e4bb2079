import { describe, expect, it } from 'vitest';
import { head, ok, load } from './dialect-fixtures.test-support.js';

/**
 * Upstream dialects, one test per mapping. Every fixture is written here from upstream's
 * documentation and type definitions (pkg/types of orkspace/orkestra and inrundev/inrun), not
 * copied from upstream files.
 */

describe('upstream ordered deletion stages, envFrom names and valueType', () => {
  const katalog = (box: string) => `${head()}      operatorBox:\n${box}`;

  it('names unnamed stages, drops kinds with no items and keeps only name and namespace of an item', () => {
    const text = katalog(`        onDelete:
          ordered: true
          groups:
            - clusterRoleBindings:
            - deployments:
                - name: "{{ .metadata.name }}-web"
                  image: nginx
            - name: stage-1
              clusterRoles: [{name: "{{ .metadata.name }}-reader"}]
              secrets:
`);
    const groups = ok(load(text)).katalog.spec.crds['website']?.operatorBox.onDelete?.groups ?? [];
    expect(groups.map((g) => g.name)).toEqual(['stage-1-2', 'stage-2', 'stage-1']);
    expect(groups[1]?.deployments).toEqual([{ name: '{{ .metadata.name }}-web' }]);
    expect(groups[2]?.custom).toEqual([
      {
        apiVersion: 'rbac.authorization.k8s.io/v1',
        kind: 'ClusterRole',
        metadata: { name: '{{ .metadata.name }}-reader' },
      },
    ]);
    expect(groups[0]?.deployments).toEqual([]);
  });

  it('makes the flat kind lists of an ordered onDelete its one stage, and removes them without ordered', () => {
    const flat = (ordered: string) =>
      katalog(
        `        onDelete:\n${ordered}          services: [{name: a}]\n          jobs: [{name: cleanup, image: busybox}]\n`,
      );
    const staged = ok(load(flat('          ordered: true\n'))).katalog.spec.crds['website']?.operatorBox
      .onDelete;
    expect(staged?.groups.map((g) => [g.name, g.services])).toEqual([['stage-1', [{ name: 'a' }]]]);
    expect(staged?.jobs.map((j) => j.name)).toEqual(['cleanup']);
    const unordered = ok(load(flat(''))).katalog.spec.crds['website']?.operatorBox.onDelete;
    expect(unordered?.groups).toEqual([]);
    expect(unordered?.jobs.map((j) => j.name)).toEqual(['cleanup']);
  });

  it('reads envFrom names as references and drops a validation rule’s valueType', () => {
    const text = katalog(`        onReconcile:
          deployments:
            - image: nginx
              envFrom:
                secretRef: ["{{ .metadata.name }}-creds", {name: shared, optional: true}]
                configMapRef: [settings]
`).replace(
      '      operatorBox:\n',
      '      validation:\n        rules:\n          - {field: spec.replicas, greaterThan: 0, valueType: integer, message: at least 1}\n      operatorBox:\n',
    );
    const entry = ok(load(text)).katalog.spec.crds['website'];
    expect(entry?.operatorBox.onReconcile.deployments[0]?.envFrom).toEqual({
      secretRef: [{ name: '{{ .metadata.name }}-creds' }, { name: 'shared', optional: true }],
      configMapRef: [{ name: 'settings' }],
    });
    expect(entry?.validation?.rules[0]).toMatchObject({
      condition: { field: 'spec.replicas', operator: 'gt' },
    });
    expect(entry?.validation?.rules[0]).not.toHaveProperty('valueType');
  });
});
