import { describe, expect, it } from 'vitest';
import { katalogFrom } from '../../test/katalog-text.js';
import { generateRbac } from './generate-rbac.js';

const kinds = (m: readonly { kind: string }[]): string[] => m.map((x) => x.kind);

describe('generateRbac', () => {
  it('grants the kinds of a remote reconciler’s managedResources, and Secrets get for its auth (ADR 0046)', () => {
    const katalog = katalogFrom(`operatorBox:
  remote:
    endpoint: "https://reconciler.internal/reconcile"
    managedResources: [{ group: apps, plural: deployments }, { group: db.example.com, plural: databases, version: v1, kind: Database }]
    auth: { secretRef: { name: token, key: token } }`);
    const rules = generateRbac(katalog, { namespace: 'ops' }).manifests.flatMap(
      (m) =>
        (m['rules'] as { apiGroups: string[]; resources: string[]; verbs: string[] }[] | undefined) ?? [],
    );
    const grant = (group: string, resource: string): string[] =>
      rules
        .filter((r) => r.apiGroups.includes(group) && r.resources.includes(resource))
        .flatMap((r) => r.verbs);
    expect(grant('apps', 'deployments')).toEqual(['get', 'list', 'watch', 'create', 'patch', 'delete']);
    expect(grant('db.example.com', 'databases')).toEqual([
      'get',
      'list',
      'watch',
      'create',
      'patch',
      'delete',
    ]);
    expect(grant('', 'secrets')).toContain('get');
  });

  it('grants the kinds only rollback.onRollback writes (docs/reference/katalog.md §20.4)', () => {
    const katalog = katalogFrom(`rollback:
  onRollback:
    deployments: [{ name: "{{ .previous.metadata.name }}", image: "{{ .previous.spec.image }}" }]
operatorBox: { onReconcile: { configMaps: [{}] } }`);
    const rules = generateRbac(katalog, { namespace: 'ops' }).manifests.flatMap(
      (m) =>
        (m['rules'] as { apiGroups: string[]; resources: string[]; verbs: string[] }[] | undefined) ?? [],
    );
    const deployments = rules.filter(
      (r) => r.apiGroups.includes('apps') && r.resources.includes('deployments'),
    );
    expect(deployments.flatMap((r) => r.verbs)).toEqual([
      'get',
      'list',
      'watch',
      'create',
      'patch',
      'delete',
    ]);
  });

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
        '/events:create,patch',
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
  it('grants list/watch on pods and endpointslices for enrich, only what is enriched (katalog.md §3.5)', () => {
    const readsOf = (rbac: ReturnType<typeof generateRbac>): string[] =>
      rbac.rules
        .filter((r) => r.verbs.join(',') === 'list,watch')
        .flatMap((r) => r.resources.map((res) => `${r.apiGroups[0] ?? ''}/${res}`))
        .filter((r) => !r.includes('customresourcedefinitions'));
    expect(
      readsOf(generateRbac(katalogFrom(`enrich: [pods, endpoints]`), { namespace: 'ops' })).sort(),
    ).toEqual(['/pods', 'discovery.k8s.io/endpointslices']);
    expect(readsOf(generateRbac(katalogFrom(`enrich: [endpoints]`), { namespace: 'ops' }))).toEqual([
      'discovery.k8s.io/endpointslices',
    ]);
    expect(readsOf(generateRbac(katalogFrom(`enrich: []`), { namespace: 'ops' }))).toEqual([]);
    // ADR 0087: each cached target grants its kind; owner reads the child itself; the cluster-scoped
    // kinds (nodes, persistentvolumes, storageclasses) are granted in the ClusterRole.
    expect(
      readsOf(
        generateRbac(
          katalogFrom(
            `enrich: [owner, backingpods, replicasets, pvcs, cronjob, node, pvc, storageclass, events]`,
          ),
          {
            namespace: 'ops',
          },
        ),
      ).sort(),
    ).toEqual([
      '/nodes',
      '/persistentvolumeclaims',
      '/persistentvolumes',
      '/pods',
      'apps/replicasets',
      'batch/jobs',
      'storage.k8s.io/storageclasses',
    ]);
    expect(readsOf(generateRbac(katalogFrom(`enrich: [owner]`), { namespace: 'ops' }))).toEqual([]);
    // events adds list/watch to the rule that already lets the runtime write its Events.
    const eventVerbs = (enrich: string): readonly string[] =>
      generateRbac(katalogFrom(`enrich: [${enrich}]`), { namespace: 'ops' }).rules.find(
        (r) => r.apiGroups[0] === '' && r.resources.includes('events'),
      )?.verbs ?? [];
    expect(eventVerbs('events')).toEqual(expect.arrayContaining(['list', 'watch']));
    expect(eventVerbs('owner')).not.toContain('watch');
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
      [
        '/configmaps[shared]',
        '/nodes[]',
        'example.org/gadgets[]',
        // runtime.md §2.9: the entry's own CRD, by name (CRD self-healing).
        'apiextensions.k8s.io/customresourcedefinitions[apps.t.example.com]',
      ].sort(),
    );
    // The literal copy source would be watched in its namespace only, by name; the entry's Secret
    // children already hold every read verb on Secrets, so no Role of its own is needed.
    expect(rbac.namespaceRoles).toEqual([]);
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
    expect(flat.some((rule) => rule.startsWith('/secrets'))).toBe(false);
    expect(rbac.namespaceRoles).toEqual([
      {
        namespace: 'platform',
        rules: [{ apiGroups: [''], resources: ['secrets'], verbs: ['get'], resourceNames: ['token'] }],
      },
    ]);
  });

  it("grants get on copyFrom sources: a literal namespace in a Role there (pinned or not), the CR's namespace cluster-wide", () => {
    const secretRules = (rules: readonly { resources: readonly string[] }[]) =>
      rules.filter((r) => r.resources.includes('secrets'));
    const wide = generateRbac(
      katalogFrom(`operatorBox:
  onReconcile:
    secrets: [{ name: pull, copyFrom: { name: shared, namespace: platform } }]`),
      { namespace: 'ops' },
    );
    // The copy's own Secret child is written anywhere; the source is read in platform only.
    expect(wide.namespaceRoles).toEqual([]);
    expect(wide.notes.join('\n')).not.toContain('platform');
    const pinned = generateRbac(
      katalogFrom(`allowedNamespaces: [team-a]
operatorBox:
  onReconcile:
    secrets: [{ name: pull, copyFrom: { name: shared, namespace: platform } }]`),
      { namespace: 'ops' },
    );
    expect(pinned.pinnedNamespace).toBe('team-a');
    expect(pinned.namespaceRoles.map((r) => r.namespace)).toEqual(['platform']);
    expect(secretRules(pinned.namespaceRoles[0]?.rules ?? [])).toEqual([
      { apiGroups: [''], resources: ['secrets'], verbs: ['get', 'list', 'watch'], resourceNames: ['shared'] },
    ]);
    const own = generateRbac(
      katalogFrom(`operatorBox:
  onCreate:
    secrets: [{ name: pull, copyFrom: { name: shared } }]
    configMaps: [{}]`),
      { namespace: 'ops' },
    );
    expect(own.namespaceRoles).toEqual([]);
    expect(own.notes.join('\n')).toContain('`get` on Secrets is granted cluster-wide');
    expect(own.notes.join('\n')).toContain("copyFrom (no namespace: the CR's)");
  });

  it("grants ConfigMap copy sources as configmaps, the Secret copy's way (ADR 0115)", () => {
    const pinned = generateRbac(
      katalogFrom(`allowedNamespaces: [team-a]
operatorBox:
  onReconcile:
    configMaps: [{ name: settings, copyFrom: { name: base, namespace: platform } }]`),
      { namespace: 'ops' },
    );
    // A literal source outside the pinned namespace: a Role there, by name, get and list/watch (watched).
    expect(pinned.namespaceRoles).toEqual([
      {
        namespace: 'platform',
        rules: [
          {
            apiGroups: [''],
            resources: ['configmaps'],
            verbs: ['get', 'list', 'watch'],
            resourceNames: ['base'],
          },
        ],
      },
    ]);
    const chosen = generateRbac(
      katalogFrom(`allowedNamespaces: [team-a]
operatorBox:
  onReconcile:
    configMaps: [{ name: settings, copyFrom: { name: base, namespace: "{{ .spec.from }}" } }]`),
      { namespace: 'ops' },
    );
    expect(chosen.namespaceRoles).toEqual([]);
    expect(chosen.notes.join('\n')).toContain(
      'copies configmaps from a namespace its CRs choose (copyFrom.namespace is a template), but the generated Role is limited to namespace team-a: grant `get` on configmaps',
    );
    // Not pinned: the ConfigMap children's own rules already get ConfigMaps everywhere; Secrets are not touched.
    const wide = generateRbac(
      katalogFrom(`operatorBox:
  onReconcile:
    configMaps: [{ name: settings, copyFrom: { name: "{{ .spec.base }}", namespace: "{{ .spec.from }}" } }]`),
      { namespace: 'ops' },
    );
    const clusterRole = wide.manifests.find((m) => m.kind === 'ClusterRole');
    expect(JSON.stringify(clusterRole)).not.toContain('secrets');
    expect(
      wide.rules.some(
        (r) => r.resources.includes('configmaps') && r.verbs.includes('get') && r.resourceNames == null,
      ),
    ).toBe(true);
  });

  it('grants an auth.secretRef in a literal namespace as a Role and RoleBinding there, never cluster-wide', () => {
    const rbac = generateRbac(
      katalogFrom(`operatorBox:
  onReconcile: { configMaps: [{}] }
  external:
    - { name: quota, url: 'https://quota.example.com/v1', auth: { secretRef: { name: quota-token, key: t, namespace: platform } } }
  cross:
    - { crd: app, as: peer, url: 'https://peer.example.com/v1/x', auth: { secretRef: { name: peer-token, key: t, namespace: vault } } }`),
      { namespace: 'ops' },
    );
    const clusterRole = rbac.manifests.find((m) => m.kind === 'ClusterRole');
    expect(JSON.stringify(clusterRole)).not.toContain('secrets');
    const placed = rbac.manifests
      .filter((m) => (m['metadata'] as { name?: string }).name === 'orkestra:test-operator:reads')
      .map((m) => `${String(m['kind'])}/${(m['metadata'] as { namespace?: string }).namespace ?? ''}`);
    expect(placed).toEqual(['Role/platform', 'RoleBinding/platform', 'Role/vault', 'RoleBinding/vault']);
    expect(rbac.namespaceRoles).toEqual([
      {
        namespace: 'platform',
        rules: [{ apiGroups: [''], resources: ['secrets'], verbs: ['get'], resourceNames: ['quota-token'] }],
      },
      {
        namespace: 'vault',
        rules: [{ apiGroups: [''], resources: ['secrets'], verbs: ['get'], resourceNames: ['peer-token'] }],
      },
    ]);
    expect(rbac.notes.join('\n')).not.toContain('cluster-wide');
  });

  it('grants the Secrets and the CA ConfigMap of team notifications by name in their namespaces (docs/reference/katalog.md §15.4)', () => {
    const rbac = generateRbac(
      katalogFrom(
        `operatorBox:
  onReconcile: { deployments: [{ image: nginx }] }`,
        `  notification:
    smtp:
      host: smtp.example.com
      from: ork@example.com
      caConfigMap: { name: trust-bundle, key: ca.crt, namespace: certs }
      auth:
        user: { name: smtp, key: user, namespace: mail }
        password: { name: smtp, key: password, namespace: mail }
    teams:
      ops: { email: [ops@example.com], webhook: { secretRef: { name: ops-hook, key: url, namespace: mail } } }
`,
      ),
      { namespace: 'ops' },
    );
    expect(rbac.namespaceRoles).toEqual([
      {
        namespace: 'certs',
        rules: [
          { apiGroups: [''], resources: ['configmaps'], verbs: ['get'], resourceNames: ['trust-bundle'] },
        ],
      },
      {
        namespace: 'mail',
        rules: [
          { apiGroups: [''], resources: ['secrets'], verbs: ['get'], resourceNames: ['ops-hook'] },
          { apiGroups: [''], resources: ['secrets'], verbs: ['get'], resourceNames: ['smtp'] },
        ],
      },
    ]);
    expect(JSON.stringify(rbac.rules)).not.toContain('secrets');
  });

  it("grants an autoscale source's auth.secretRef by name in the operator namespace (or the one it names), never cluster-wide (ADR 0079)", () => {
    const rbac = generateRbac(
      katalogFrom(`autoscale:
  sources:
    - { as: billing, endpoint: 'https://billing.example.com', auth: { secretRef: { name: billing-reader, key: token } } }
    - { as: ledger, url: 'https://ledger.example.com/m', auth: { secretRef: { name: ledger-reader, key: token, namespace: finance } } }
  conditions:
    when:
      - { field: cross.billing.metrics.queueDepth, greaterThan: 10 }
      - { field: cross.ledger.metrics.queueDepth, greaterThan: 10 }
  do: { workers: 4 }
operatorBox:
  onReconcile: { configMaps: [{}] }`),
      { namespace: 'ops' },
    );
    expect(JSON.stringify(rbac.rules)).not.toContain('secrets');
    expect(rbac.namespaceRoles).toEqual([
      {
        namespace: 'finance',
        rules: [
          { apiGroups: [''], resources: ['secrets'], verbs: ['get'], resourceNames: ['ledger-reader'] },
        ],
      },
      {
        namespace: 'ops',
        rules: [
          { apiGroups: [''], resources: ['secrets'], verbs: ['get'], resourceNames: ['billing-reader'] },
        ],
      },
    ]);
    expect(rbac.notes.join('\n')).not.toContain('cluster-wide');
  });

  it("grants an auth.secretRef of the CR's namespace cluster-wide, and says why", () => {
    const rbac = generateRbac(
      katalogFrom(`operatorBox:
  onReconcile: { configMaps: [{}] }
  external:
    - { name: quota, url: 'https://quota.example.com/v1', auth: { secretRef: { name: quota-token, key: t } } }`),
      { namespace: 'ops' },
    );
    expect(rbac.rules).toContainEqual({ apiGroups: [''], resources: ['secrets'], verbs: ['get'] });
    expect(rbac.namespaceRoles).toEqual([]);
    expect(rbac.notes).toContainEqual(
      expect.stringContaining(
        "`get` on Secrets is granted cluster-wide because a Secret's namespace follows from the CR: App: an external call's auth.secretRef (no namespace: the CR's)",
      ),
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

describe('generateRbac with conversion (docs/reference/runtime.md §26, ADR 0057)', () => {
  it('grants get/patch on the converting CRD and its status, and the webhook Secret in the operator namespace', async () => {
    const { VERSIONED_KATALOG } = await import('../conversion/fixture.test-support.js');
    const { loadKatalogOrThrow } = await import('@orkestra/types');
    const katalog = loadKatalogOrThrow({ text: VERSIONED_KATALOG, file: 'v.yaml' });
    const rules = generateRbac(katalog, { namespace: 'ops' }).manifests.flatMap((m) =>
      (
        (m['rules'] as { resources: string[]; verbs: string[]; resourceNames?: string[] }[] | undefined) ?? []
      ).map(
        (r) =>
          `${String((m['metadata'] as { namespace?: string }).namespace ?? '')} ${r.resources.join(',')} ${r.verbs.join(',')} ${(r.resourceNames ?? []).join(',')}`,
      ),
    );
    // get and patch for the caBundle, list and watch for CRD self-healing (runtime.md §2.9), in one rule.
    expect(rules).toContain(' customresourcedefinitions get,list,watch,patch databases.demo.example.io');
    expect(rules).toContain(' customresourcedefinitions/status patch databases.demo.example.io');
    expect(rules).toContain('ops secrets create ');
    expect(rules).toContain('ops secrets get,update orkestra-webhook-tls');
  });
});
