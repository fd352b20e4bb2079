import { describe, expect, it } from 'vitest';
import { katalogFrom } from '../../test/katalog-text.js';
import { generateRbac } from './generate-rbac.js';

const kinds = (m: readonly { kind: string }[]): string[] => m.map((x) => x.kind);

describe('generateRbac', () => {
  it('grants tokenreviews and subjectaccessreviews create only with controlCenter (docs/reference/runtime.md §23)', () => {
    const katalog = katalogFrom(`operatorBox: { onReconcile: { configMaps: [{}] } }`);
    const reviews = (manifests: readonly Record<string, unknown>[]): string[] =>
      manifests.flatMap((m) =>
        ((m['rules'] as { resources: string[]; verbs: string[] }[] | undefined) ?? [])
          .filter((r) => r.resources.some((x) => x.endsWith('reviews')))
          .map((r) => `${String(m['kind'])}: ${r.resources.join(',')} ${r.verbs.join(',')}`),
      );
    expect(reviews(generateRbac(katalog, { namespace: 'ops' }).manifests)).toEqual([]);
    const on = generateRbac(katalog, { namespace: 'ops', controlCenter: true });
    expect(reviews(on.manifests)).toEqual([
      'ClusterRole: tokenreviews create',
      'ClusterRole: subjectaccessreviews create',
    ]);
    expect(kinds(on.manifests).filter((k) => k === 'ClusterRoleBinding')).toHaveLength(2);
  });

  it('grants every Lease of the operator namespace only with sharding (docs/reference/runtime.md §25)', () => {
    const katalog = katalogFrom(`operatorBox: { onReconcile: { configMaps: [{}] } }`);
    const leaseRules = (manifests: readonly Record<string, unknown>[]): string[] =>
      manifests.flatMap((m) =>
        (
          (m['rules'] as { resources: string[]; verbs: string[]; resourceNames?: string[] }[] | undefined) ??
          []
        )
          .filter(
            (r) => r.resources.includes('leases') && r.resourceNames == null && r.verbs.includes('list'),
          )
          .map((r) => `${String(m['kind'])}: ${r.verbs.join(',')}`),
      );
    expect(leaseRules(generateRbac(katalog, { namespace: 'ops' }).manifests)).toEqual([]);
    expect(leaseRules(generateRbac(katalog, { namespace: 'ops', sharding: true }).manifests)).toEqual([
      'Role: get,list,watch,update,delete',
    ]);
  });

  /** eventRules lists `<manifest kind> <namespace>: <group>/events` for every rule on events. */
  const eventRules = (manifests: readonly Record<string, unknown>[]): string[] =>
    manifests.flatMap((m) => {
      const rules = (m['rules'] as { apiGroups: string[]; resources: string[] }[] | undefined) ?? [];
      const ns = (m['metadata'] as { namespace?: string }).namespace ?? '-';
      return rules
        .filter((r) => r.resources.includes('events'))
        .map((r) => `${String(m['kind'])} ${ns}: ${r.apiGroups.join(',') || 'core'}/events`);
    });

  it('grants core v1 events in exactly one Role: the ClusterRole covers the leader-election event', () => {
    const rbac = generateRbac(katalogFrom(`operatorBox: { onReconcile: { configMaps: [{}] } }`), {
      namespace: 'ops',
    });
    expect(eventRules(rbac.manifests)).toEqual(['ClusterRole -: core/events']);
  });

  it('grants events in the operator namespace through the leader-election Role when pinned elsewhere', () => {
    const elsewhere = generateRbac(
      katalogFrom(`allowedNamespaces: [team-a]\noperatorBox: { onReconcile: { configMaps: [{}] } }`),
      { namespace: 'ops' },
    );
    expect(eventRules(elsewhere.manifests)).toEqual(['Role team-a: core/events', 'Role ops: core/events']);
    const same = generateRbac(
      katalogFrom(`allowedNamespaces: [ops]\noperatorBox: { onReconcile: { configMaps: [{}] } }`),
      { namespace: 'ops' },
    );
    expect(eventRules(same.manifests)).toEqual(['Role ops: core/events']);
  });

  it('grants CR, status, finalizers, child kinds and events, never a wildcard', () => {
    const rbac = generateRbac(
      katalogFrom(`operatorBox:
  onReconcile:
    jobs: [{ image: busybox }]
    custom: [{ apiVersion: cert-manager.io/v1, kind: Certificate, metadata: { name: x } }]`),
      { namespace: 'ops' },
    );
    expect(kinds(rbac.manifests)).toEqual([
      'ServiceAccount',
      'ClusterRole',
      'ClusterRoleBinding',
      'Role',
      'RoleBinding',
    ]);
    const flat = rbac.rules.flatMap((r) =>
      r.resources.map((res) => `${r.apiGroups[0] ?? ''}/${res}:${r.verbs.join(',')}`),
    );
    expect(flat).toEqual(
      expect.arrayContaining([
        't.example.com/apps:list,watch,patch',
        't.example.com/apps/status:patch',
        't.example.com/apps/finalizers:update',
        'batch/jobs:get,list,watch,create,patch,delete',
        'cert-manager.io/certificates:get,list,watch,create,patch,delete',
        '/events:create',
      ]),
    );
    expect(JSON.stringify(rbac.manifests)).not.toContain('"*"');
    expect(flat.some((r) => r.startsWith('/secrets'))).toBe(false);
    expect(rbac.notes.join('\n')).toContain('Certificate');
  });

  it('adds literal role rules, reports templated ones, and reads Secrets for providers', () => {
    const rbac = generateRbac(
      katalogFrom(
        `operatorBox:
  providers: { aws: [{ s3: { bucket: b } }] }
  onReconcile:
    roles:
      - name: reader
        rules:
          - { apiGroups: [''], resources: [pods], verbs: [get, list] }
          - { apiGroups: [''], resources: ['{{ spec.resource }}'], verbs: [get] }`,
        `  providers: [{ name: aws, package: '@orkestra/provider-aws', config: { region: eu-west-1 } }]\n`,
      ),
      { namespace: 'ops' },
    );
    const flat = rbac.rules.flatMap((r) =>
      r.resources.map((res) => `${r.apiGroups[0] ?? ''}/${res}:${r.verbs.join(',')}`),
    );
    expect(flat).toContain('/pods:get,list');
    expect(flat).toContain('/configmaps:get');
    expect(flat).toContain('rbac.authorization.k8s.io/roles:get,list,watch,create,patch,delete');
    expect(flat.some((r) => r.includes('{{'))).toBe(false);
    expect(rbac.notes.some((n) => n.includes('roles[0].rules[1] is templated'))).toBe(true);
  });

  it('adds the literal rules of custom ClusterRoles, and notes a binding to a role the Katalog does not define', () => {
    const rbac = generateRbac(
      katalogFrom(`operatorBox:
  onReconcile:
    custom:
      - apiVersion: rbac.authorization.k8s.io/v1
        kind: ClusterRole
        namespaced: false
        metadata: { name: "{{ metadata.name }}-viewer" }
        rules: [{ apiGroups: [apps], resources: [deployments], verbs: [get, list] }]
      - apiVersion: rbac.authorization.k8s.io/v1
        kind: ClusterRoleBinding
        namespaced: false
        metadata: { name: "{{ metadata.name }}-viewer" }
        roleRef: { apiGroup: rbac.authorization.k8s.io, kind: ClusterRole, name: "{{ metadata.name }}-viewer" }
        subjects: [{ kind: ServiceAccount, name: app, namespace: default }]
      - apiVersion: rbac.authorization.k8s.io/v1
        kind: ClusterRoleBinding
        namespaced: false
        metadata: { name: "{{ metadata.name }}-admin" }
        roleRef: { apiGroup: rbac.authorization.k8s.io, kind: ClusterRole, name: admin }
        subjects: [{ kind: ServiceAccount, name: app, namespace: default }]`),
      { namespace: 'ops' },
    );
    const flat = rbac.rules.flatMap((r) =>
      r.resources.map((res) => `${r.apiGroups[0] ?? ''}/${res}:${r.verbs.join(',')}`),
    );
    expect(flat).toContain('apps/deployments:get,list');
    expect(flat).toContain('rbac.authorization.k8s.io/clusterroles:get,list,watch,create,patch,delete');
    const bindings = rbac.notes.filter((n) => n.includes('refers to ClusterRole'));
    expect(bindings).toHaveLength(1);
    expect(bindings[0]).toContain('ClusterRole admin');
  });

  it('uses a Role in the pinned namespace when every entry allows exactly one namespace', () => {
    const pinned = generateRbac(
      katalogFrom(`allowedNamespaces: [team-a]\noperatorBox: { onReconcile: { configMaps: [{}] } }`),
      {
        namespace: 'ops',
      },
    );
    expect(pinned.pinnedNamespace).toBe('team-a');
    const role = pinned.manifests[1] as unknown as { kind: string; metadata: { namespace?: string } };
    expect(role.kind).toBe('Role');
    expect(role.metadata.namespace).toBe('team-a');
    const wide = generateRbac(katalogFrom(`allowedNamespaces: [team-*]`), { namespace: 'ops' });
    expect(wide.pinnedNamespace).toBeUndefined();
    const nsChild = generateRbac(
      katalogFrom(`allowedNamespaces: [team-a]\noperatorBox: { onReconcile: { namespaces: [{}] } }`),
      {
        namespace: 'ops',
      },
    );
    expect(nsChild.pinnedNamespace).toBeUndefined();
  });
  it('grants list/watch on watched kinds (by name when named) and literal copyFrom sources; a watch outside the pinned namespace needs a ClusterRole', () => {
    const watchOf = (rbac: ReturnType<typeof generateRbac>): string[] =>
      rbac.rules
        .filter((r) => r.verbs.join(',') === 'list,watch')
        .flatMap((r) =>
          r.resources.map((res) => `${r.apiGroups[0] ?? ''}/${res}[${(r.resourceNames ?? []).join(',')}]`),
        );
    const rbac = generateRbac(
      katalogFrom(`watch:
  - {apiVersion: v1, kind: Node}
  - {apiVersion: v1, kind: ConfigMap, namespace: platform, name: shared}
  - {apiVersion: example.org/v1, kind: Gadget}
operatorBox:
  onReconcile:
    secrets:
      - { name: pull, copyFrom: { name: registry, namespace: platform } }
      - { name: mine, copyFrom: { name: "{{ .spec.source }}" } }`),
      { namespace: 'ops' },
    );
    expect(watchOf(rbac).sort()).toEqual(
      ['/configmaps[shared]', '/nodes[]', '/secrets[registry]', 'example.org/gadgets[]'].sort(),
    );
    expect(rbac.notes.join('\n')).toContain(
      'watched kind Gadget (example.org/v1) is granted as resource "gadgets"',
    );
    const pinnedWatch = (namespace: string) =>
      generateRbac(
        katalogFrom(`allowedNamespaces: [team-a]
watch: [{apiVersion: v1, kind: ConfigMap, namespace: ${namespace}, name: shared}]
operatorBox: { onReconcile: { configMaps: [{}] } }`),
        { namespace: 'ops' },
      ).pinnedNamespace;
    expect(pinnedWatch('team-a')).toBe('team-a');
    expect(pinnedWatch('platform')).toBeUndefined();
  });

  it('reads the credential Secrets of validation.external calls, in their namespace too', () => {
    const rbac = generateRbac(
      katalogFrom(`allowedNamespaces: [team-a]
validation:
  external:
    - { name: quota, url: 'http://quota', auth: { secretRef: { name: token, key: t, namespace: platform } } }`),
      { namespace: 'ops' },
    );
    const flat = rbac.rules.flatMap((r) =>
      r.resources.map((res) => `${r.apiGroups[0] ?? ''}/${res}:${r.verbs.join(',')}`),
    );
    expect(flat).toContain('/secrets:get');
    expect(rbac.notes.join('\n')).toContain('Secrets of namespace platform are read');
  });

  it('grants get on secrets for copyFrom Secrets, and notes a source a pinned Role cannot reach', () => {
    const flatOf = (rbac: ReturnType<typeof generateRbac>): string[] =>
      rbac.rules.flatMap((r) =>
        r.resources.map((res) => `${r.apiGroups[0] ?? ''}/${res}:${r.verbs.join(',')}`),
      );
    const wide = generateRbac(
      katalogFrom(`operatorBox:
  onReconcile:
    secrets: [{ name: pull, copyFrom: { name: shared, namespace: platform } }]`),
      { namespace: 'ops' },
    );
    expect(flatOf(wide)).toContain('/secrets:get,list,watch,create,patch,delete');
    expect(wide.notes.join('\n')).not.toContain('platform');
    const pinned = generateRbac(
      katalogFrom(`allowedNamespaces: [team-a]
operatorBox:
  onReconcile:
    secrets: [{ name: pull, copyFrom: { name: shared, namespace: platform } }]`),
      { namespace: 'ops' },
    );
    expect(pinned.pinnedNamespace).toBe('team-a');
    expect(pinned.notes.join('\n')).toContain(
      'Secrets of namespace platform are read (copyFrom or auth.secretRef.namespace)',
    );
  });

  it('grants get on Secrets cluster-wide for a cluster-scoped entry whose copy source is a template, and watches none of it', () => {
    const rbac = generateRbac(
      katalogFrom(`namespaced: false
operatorBox:
  onReconcile:
    secrets: [{ name: copy, namespace: team-a, copyFrom: { name: shared, namespace: "{{ .spec.from }}" } }]`),
      { namespace: 'ops' },
    );
    const secrets = rbac.rules.filter((r) => r.resources.includes('secrets'));
    expect(secrets.some((r) => r.verbs.includes('get') && r.resourceNames == null)).toBe(true);
    expect(secrets.some((r) => (r.resourceNames ?? []).includes('shared'))).toBe(false);
    expect(rbac.notes.join('\n')).not.toContain('{{');
  });
});
