import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { migrateKatalog } from './migrate.js';
import type { LoadKatalogResult } from '../load-katalog.js';
import { head, ok, load } from './dialect-fixtures.test-support.js';

/**
 * Upstream dialects, one test per mapping. Every fixture is written here from upstream's
 * documentation and type definitions (pkg/types of orkspace/orkestra and inrundev/inrun), not
 * copied from upstream files.
 */

describe('upstream list keys without a built-in list', () => {
  const lineOf = (text: string, needle: string): number =>
    text.split('\n').findIndex((l) => l.includes(needle)) + 1;
  const columnOf = (text: string, needle: string): number =>
    (text.split('\n').find((l) => l.includes(needle)) ?? '').indexOf(needle) + 1;
  const errors = (result: LoadKatalogResult) => (result.ok ? [] : result.errors);
  const onReconcile = (body: string, apiVersion?: string): string =>
    `${head(apiVersion)}      operatorBox:\n        onReconcile:\n${body}`;
  const customOf = (result: LoadKatalogResult) =>
    ok(result).katalog.spec.crds['website']?.operatorBox.onReconcile.custom ?? [];
  const base = 'spec.crds.website.operatorBox.onReconcile';

  it('reads upstream pods as the pods list, with labels lists mapped and restartPolicy defaulted', () => {
    const text = onReconcile(`          pods:
            - name: "{{ .metadata.name }}-worker"
              image: busybox:1.36
              port: "9090"
              labels:
                - key: role
                  value: worker
`);
    const pod = ok(load(text)).katalog.spec.crds['website']?.operatorBox.onReconcile.pods[0];
    expect(pod).toMatchObject({
      name: '{{ .metadata.name }}-worker',
      image: 'busybox:1.36',
      port: '9090',
      labels: { role: 'worker' },
      restartPolicy: 'Always',
    });
    const noImage = load(onReconcile('          pods:\n            - name: solo\n'));
    expect(errors(noImage).map((e) => e.path)).toEqual([`${base}.pods[0].image`]);
  });

  it('maps clusterRoles onto custom ClusterRole entries, keeping common keys and defaulting apiGroups to [""]', () => {
    const text = onReconcile(`          clusterRoles:
            - name: "{{ .metadata.name }}-reader"
              labels:
                - key: tier
                  value: web
              when:
                - field: spec.rbac
                  equals: "true"
              reconcile: true
              sleep: 1s
              rules:
                - resources: [namespaces]
                  verbs: [get, list]
                - apiGroups: [apps]
                  resources: [deployments]
                  verbs: [get]
            - rules:
                - nonResourceURLs: [/healthz]
                  verbs: [get]
              aggregationRule:
                clusterRoleSelectors:
                  - matchLabels: {aggregate: "true"}
`);
    const result = load(text);
    expect(customOf(result)).toEqual([
      expect.objectContaining({
        apiVersion: 'rbac.authorization.k8s.io/v1',
        kind: 'ClusterRole',
        namespaced: false,
        metadata: { name: '{{ .metadata.name }}-reader', labels: { tier: 'web' }, annotations: {} },
        rules: [
          { apiGroups: [''], resources: ['namespaces'], verbs: ['get', 'list'] },
          { apiGroups: ['apps'], resources: ['deployments'], verbs: ['get'] },
        ],
        when: [expect.objectContaining({ field: 'spec.rbac', operator: 'equals', value: 'true' })],
        reconcile: true,
      }),
      expect.objectContaining({
        kind: 'ClusterRole',
        namespaced: false,
        metadata: expect.objectContaining({ name: '{{ .metadata.name }}-cluster-role' }),
        rules: [{ apiGroups: [''], nonResourceURLs: ['/healthz'], verbs: ['get'] }],
        aggregationRule: { clusterRoleSelectors: [{ matchLabels: { aggregate: 'true' } }] },
      }),
    ]);
    expect(customOf(result)[0]).not.toHaveProperty('sleep');
    const migrated = migrateKatalog(text);
    const moved = migrated.changes.filter((c) => c.message.startsWith('moved to custom'));
    expect(moved.map((c) => [c.path, c.line, c.message])).toEqual([
      [
        `${base}.clusterRoles[0]`,
        lineOf(text, '-reader'),
        'moved to custom[0] (rbac.authorization.k8s.io/v1 ClusterRole, namespaced: false)',
      ],
      [
        `${base}.clusterRoles[1]`,
        lineOf(text, '- rules:'),
        'moved to custom[1] (rbac.authorization.k8s.io/v1 ClusterRole, namespaced: false)',
      ],
    ]);
    const note = ok(result).warnings.find((w) => w.message.includes('ork migrate'));
    expect(note?.message).toContain(`${migrated.changes.length} keys were mapped`);
  });

  it('appends clusterRoleBindings to the group’s own custom list, completing roleRef and subjects', () => {
    const result = load(
      onReconcile(`          custom:
            - apiVersion: v1
              kind: ConfigMap
              metadata: {name: own}
          clusterRoleBindings:
            - name: "{{ .metadata.name }}-readers"
              forEach: {field: spec.teams, as: team}
              roleRef: {name: "{{ .metadata.name }}-reader"}
              subjects:
                - name: "{{ .metadata.name }}"
                  namespace: "{{ .metadata.namespace }}"
                - kind: User
                  name: "{{ .team }}"
                - kind: Group
                  name: auditors
`),
    );
    const custom = customOf(result);
    expect(custom.map((c) => c['kind'])).toEqual(['ConfigMap', 'ClusterRoleBinding']);
    expect(custom[1]).toEqual(
      expect.objectContaining({
        apiVersion: 'rbac.authorization.k8s.io/v1',
        namespaced: false,
        metadata: expect.objectContaining({ name: '{{ .metadata.name }}-readers' }),
        forEach: { field: 'spec.teams', as: 'team' },
        roleRef: {
          apiGroup: 'rbac.authorization.k8s.io',
          kind: 'ClusterRole',
          name: '{{ .metadata.name }}-reader',
        },
        subjects: [
          { kind: 'ServiceAccount', name: '{{ .metadata.name }}', namespace: '{{ .metadata.namespace }}' },
          { kind: 'User', name: '{{ .team }}', apiGroup: 'rbac.authorization.k8s.io' },
          { kind: 'Group', name: 'auditors', apiGroup: 'rbac.authorization.k8s.io' },
        ],
      }),
    );
  });

  it('maps persistentVolumes onto custom PersistentVolume entries with a spec', () => {
    const result = load(
      onReconcile(`          persistentVolumes:
            - name: "{{ .metadata.name }}-data"
              capacity: "{{ .spec.size }}"
              hostPath: /mnt/data
              storageClassName: manual
              reclaimPolicy: Delete
              volumeMode: Filesystem
            - name: scratch
              capacity: 1Gi
              accessModes: [ReadWriteMany]
              hostPath: {path: /tmp/scratch, type: DirectoryOrCreate}
`),
    );
    const custom = customOf(result);
    expect(custom[0]).toEqual(
      expect.objectContaining({
        apiVersion: 'v1',
        kind: 'PersistentVolume',
        namespaced: false,
        metadata: expect.objectContaining({ name: '{{ .metadata.name }}-data' }),
        spec: {
          capacity: { storage: '{{ .spec.size }}' },
          accessModes: ['ReadWriteOnce'],
          hostPath: { path: '/mnt/data' },
          storageClassName: 'manual',
          persistentVolumeReclaimPolicy: 'Delete',
          volumeMode: 'Filesystem',
        },
      }),
    );
    expect(custom[1]?.['spec']).toEqual({
      capacity: { storage: '1Gi' },
      accessModes: ['ReadWriteMany'],
      hostPath: { path: '/tmp/scratch', type: 'DirectoryOrCreate' },
    });
  });

  it('refuses a ServiceAccount subject without namespace, and a roleRef to a Role, at their paths', () => {
    const text = onReconcile(`          clusterRoleBindings:
            - name: readers
              roleRef: {kind: Role, name: reader}
              subjects:
                - kind: User
                  name: alice
                - name: robot
`);
    const found = errors(load(text));
    expect(found.map((e) => [e.path, e.line, e.column])).toEqual([
      [`${base}.clusterRoleBindings[0].roleRef.kind`, lineOf(text, 'kind: Role'), columnOf(text, 'Role,')],
      [
        `${base}.clusterRoleBindings[0].subjects[1]`,
        lineOf(text, '- name: robot'),
        columnOf(text, 'name: robot'),
      ],
    ]);
    expect(found[0]?.message).toContain('a ClusterRoleBinding can only refer to a ClusterRole');
    expect(found[1]?.message).toBe('a ServiceAccount subject of a ClusterRoleBinding needs `namespace`');
  });

  it('refuses an unknown persistentVolumes key, and a missing name or capacity, each at its path', () => {
    const text = onReconcile(`          persistentVolumes:
            - name: cloud
              capacity: 10Gi
              csiDriver: ebs.csi.aws.com
              hostPath: /mnt/cloud
            - capacity: 1Gi
              hostPath: /mnt/a
            - name: sizeless
              hostPath: /mnt/b
`);
    const found = errors(load(text));
    expect(found.map((e) => [e.path, e.line, e.column])).toEqual([
      [`${base}.persistentVolumes[0].csiDriver`, lineOf(text, 'csiDriver'), columnOf(text, 'csiDriver')],
      [`${base}.persistentVolumes[1]`, lineOf(text, '- capacity: 1Gi'), columnOf(text, 'capacity: 1Gi')],
      [`${base}.persistentVolumes[2]`, lineOf(text, 'sizeless'), columnOf(text, 'name: sizeless')],
    ]);
    expect(found[0]?.message).toContain('no key `csiDriver`');
    expect(found[1]?.message).toContain('needs `name`');
    expect(found[2]?.message).toContain('needs `capacity`');
    expect(found.some((e) => e.message.startsWith('unknown key'))).toBe(false);
  });

  it('migrates the three lists to custom entries that load as a canonical Katalog and render the same', () => {
    const text = onReconcile(`          configMaps:
            - name: settings
          # cluster-wide read access
          clusterRoles:
            - name: reader
              rules:
                - resources: [pods]
                  verbs: [get]
          clusterRoleBindings:
            - name: readers
              roleRef: {name: reader}
              subjects:
                - {name: robot, namespace: ops}
          persistentVolumes:
            - name: disk
              capacity: 1Gi
              hostPath: /mnt/disk
`);
    const migrated = migrateKatalog(text);
    expect(migrated.problems).toEqual([]);
    for (const gone of ['clusterRoles:', 'clusterRoleBindings:', 'persistentVolumes:'])
      expect(migrated.text).not.toContain(gone);
    expect(migrated.text).toContain('# cluster-wide read access\n          custom:');
    const again = ok(load(migrated.text));
    expect(again.warnings).toEqual([]);
    expect(customOf(load(migrated.text))).toEqual(customOf(load(text)));
    expect(migrated.changes.filter((c) => c.message.startsWith('moved to custom'))).toHaveLength(3);
    expect(customOf(load(text)).map((c) => c['kind'])).toEqual([
      'ClusterRole',
      'ClusterRoleBinding',
      'PersistentVolume',
    ]);
  });

  it('maps the lists of a motif’s resources too, positioning problems in the motif file', () => {
    const dir = mkdtempSync(join(tmpdir(), 'ork-cluster-'));
    try {
      writeFileSync(
        join(dir, 'rbac.yaml'),
        `kind: Motif
resources:
  clusterRoles:
    - name: '{{ index .inputs "role" }}'
      rules: [{resources: [nodes], verbs: [list]}]
  clusterRoleBindings:
    - name: bad
      roleRef: {name: x}
      subjects: [{name: robot}]
`,
      );
      const katalog = (role: string) => `${head()}      imports:
        - motif: ./rbac.yaml
          with: {role: ${role}}
`;
      const found = errors(load(katalog('viewer'), dir));
      expect(found.map((e) => [e.file, e.line, e.column, e.path])).toEqual([
        [
          join(dir, 'rbac.yaml'),
          9,
          18,
          'spec.crds.website.operatorBox.onReconcile.clusterRoleBindings[0].subjects[0]',
        ],
      ]);
      writeFileSync(
        join(dir, 'rbac.yaml'),
        `kind: Motif
resources:
  clusterRoles:
    - name: '{{ index .inputs "role" }}'
      rules: [{resources: [nodes], verbs: [list]}]
`,
      );
      expect(customOf(load(katalog('viewer'), dir))).toEqual([
        expect.objectContaining({
          kind: 'ClusterRole',
          namespaced: false,
          metadata: expect.objectContaining({ name: 'viewer' }),
          rules: [{ apiGroups: [''], resources: ['nodes'], verbs: ['list'] }],
        }),
      ]);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it('still refuses the three lists in a canonical Katalog, naming the custom spelling', () => {
    const text = onReconcile(
      `          clusterRoles:
            - name: reader
          clusterRoleBindings:
            - name: reader
          persistentVolumes:
            - name: disk
`,
      'orkestra.konductor.io/v1alpha1',
    );
    const found = errors(load(text));
    expect(found.map((e) => [e.line, e.column, e.path])).toEqual([
      [15, 11, `${base}.clusterRoles`],
      [17, 11, `${base}.clusterRoleBindings`],
      [19, 11, `${base}.persistentVolumes`],
    ]);
    expect(found[0]?.message).toContain('mapped only in an upstream Katalog');
    expect(found[0]?.message).toContain('`kind: ClusterRole`');
    expect(found[2]?.message).toContain('`apiVersion: v1`, `kind: PersistentVolume`');
  });
});
