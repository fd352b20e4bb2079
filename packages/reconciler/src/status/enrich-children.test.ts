import { describe, expect, it } from 'vitest';
import type { KubeObject } from '@orkestra/registry';
import { renderTemplate } from '@orkestra/template';
import type { EnrichRule } from '@orkestra/types';
import { activeEnrichTargets, enrichChild } from './enrich-children.js';
import type { EnrichSources } from './enrich-children.js';

/** What `enrich` adds to children (docs/reference/katalog.md §3.5), from objects in the API's shapes. */

const job: KubeObject = {
  apiVersion: 'batch/v1',
  kind: 'Job',
  metadata: { name: 'p-probe', namespace: 'ns', uid: 'job-1' },
};
const service: KubeObject = {
  apiVersion: 'v1',
  kind: 'Service',
  metadata: { name: 'p-svc', namespace: 'ns', uid: 'svc-1' },
};
const pod = (name: string, owner: string, phase: string, exitCode?: number): KubeObject => ({
  apiVersion: 'v1',
  kind: 'Pod',
  metadata: {
    name,
    namespace: 'ns',
    ownerReferences: [{ apiVersion: 'batch/v1', kind: 'Job', name: 'x', uid: owner }],
  },
  spec: { nodeName: 'kwok-node-0' },
  status: {
    phase,
    podIP: '10.0.0.9',
    conditions: [{ type: 'Ready', status: phase === 'Running' ? 'True' : 'False' }],
    containerStatuses: [
      {
        name: 'c',
        restartCount: 1,
        state: exitCode == null ? { running: {} } : { terminated: { exitCode } },
      },
    ],
  },
});
const slice = (name: string, service: string, endpoints: unknown[]): KubeObject => ({
  apiVersion: 'discovery.k8s.io/v1',
  kind: 'EndpointSlice',
  metadata: { name, namespace: 'ns', labels: { 'kubernetes.io/service-name': service } },
  ports: [{ name: 'http', port: 8080, protocol: 'TCP' }],
  endpoints,
});
const sources = (pods: KubeObject[], slices: KubeObject[]): EnrichSources => ({
  pods: (ns) => pods.filter((p) => p.metadata.namespace === ns),
  endpointSlices: (ns) => slices.filter((s) => s.metadata.namespace === ns),
});

describe('enrichChild', () => {
  it('adds the pods a Job owns, by name, with phase, exit code (-1 while running) and placement', () => {
    const pods = [
      pod('p-probe-b', 'job-1', 'Succeeded', 0),
      pod('p-probe-a', 'job-1', 'Running'),
      pod('other', 'job-2', 'Failed', 1),
    ];
    const enriched = enrichChild(job, ['pods'], sources(pods, []));
    expect(enriched['_pods']).toEqual([
      {
        name: 'p-probe-a',
        phase: 'Running',
        ip: '10.0.0.9',
        node: 'kwok-node-0',
        ready: true,
        restartCount: 1,
        exitCode: -1,
        ordinal: -1,
        containers: [{ name: 'c', image: '', state: 'Running', reason: '', ready: false, restartCount: 1 }],
      },
      {
        name: 'p-probe-b',
        phase: 'Succeeded',
        ip: '10.0.0.9',
        node: 'kwok-node-0',
        ready: false,
        restartCount: 1,
        exitCode: 0,
        ordinal: -1,
        containers: [
          { name: 'c', image: '', state: 'Terminated', reason: '', ready: false, restartCount: 1 },
        ],
      },
    ]);
    expect(enrichChild(job, ['pods'], sources([], []))['_pods']).toEqual([]);
  });

  it('adds a Service’s endpoints from its EndpointSlices; an absent ready condition means ready', () => {
    const slices = [
      slice('p-svc-b', 'p-svc', [{ addresses: ['10.0.0.3'], conditions: { ready: false } }]),
      slice('p-svc-a', 'p-svc', [{ addresses: ['10.0.0.1', '10.0.0.2'], conditions: {} }]),
      slice('else-a', 'else', [{ addresses: ['10.0.0.7'] }]),
    ];
    expect(enrichChild(service, ['endpoints'], sources([], slices))['_endpoints']).toEqual([
      { ip: '10.0.0.1', port: 8080, ready: true },
      { ip: '10.0.0.2', port: 8080, ready: true },
      { ip: '10.0.0.3', port: 8080, ready: false },
    ]);
    expect(enrichChild(service, ['endpoints'], sources([], []))['_endpoints']).toEqual([]);
  });

  it('adds nothing a target does not cover', () => {
    const all = sources([pod('p', 'job-1', 'Running')], [slice('s', 'p-svc', [{ addresses: ['10.0.0.1'] }])]);
    expect(enrichChild(job, ['endpoints'], all)).toBe(job);
    expect(enrichChild(service, ['pods'], all)).toBe(service);
    const deployment: KubeObject = { apiVersion: 'apps/v1', kind: 'Deployment', metadata: { name: 'd' } };
    expect(enrichChild(deployment, ['endpoints'], all)).toBe(deployment);
    const configMap: KubeObject = { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'c' } };
    expect(enrichChild(configMap, ['pods', 'endpoints'], all)).toBe(configMap);
  });
});

/** A workload pod: labels, a controller owner, and container states as the kubelet reports them. */
const workloadPod = (
  name: string,
  labels: Record<string, string>,
  owner: { kind: string; name: string; uid: string },
  states: Record<string, unknown>[] = [{ running: {} }],
  namespace = 'ns',
): KubeObject => ({
  apiVersion: 'v1',
  kind: 'Pod',
  metadata: {
    name,
    namespace,
    labels,
    ownerReferences: [{ apiVersion: 'apps/v1', controller: true, ...owner }],
  },
  spec: { nodeName: 'kwok-node-0' },
  status: {
    phase: 'Running',
    podIP: '10.0.1.1',
    conditions: [{ type: 'Ready', status: 'True' }],
    containerStatuses: states.map((state, i) => ({
      name: `c${i}`,
      image: 'nginx:1.27',
      ready: 'running' in state,
      restartCount: i,
      state,
    })),
  },
});
const workload = (kind: string, name: string, selector: unknown): KubeObject => ({
  apiVersion: 'apps/v1',
  kind,
  metadata: { name, namespace: 'ns', uid: `${name}-uid` },
  spec: { selector },
});

describe('enrichChild over Deployments, StatefulSets and ReplicaSets (pods by selector, §3.5)', () => {
  const web = workload('Deployment', 'web', { matchLabels: { app: 'web' } });
  const rs = { kind: 'ReplicaSet', name: 'web-5f7c', uid: 'rs-1' };

  it("a Deployment's pods: selected by its selector, run by one of its ReplicaSets, by name", () => {
    const pods = [
      workloadPod('web-5f7c-b', { app: 'web', 'pod-template-hash': '5f7c' }, rs),
      workloadPod('web-5f7c-a', { app: 'web', 'pod-template-hash': '5f7c' }, rs, [
        { waiting: { reason: 'CrashLoopBackOff' } },
        { terminated: { reason: 'OOMKilled', exitCode: 137 } },
      ]),
      // A Job's pod with the same labels is not the Deployment's.
      workloadPod('web-job-x', { app: 'web' }, { kind: 'Job', name: 'web-job', uid: 'job-9' }),
      // Another Deployment's ReplicaSet whose name starts the same.
      workloadPod(
        'web2-5f7c-z',
        { app: 'web', 'pod-template-hash': '5f7c' },
        {
          kind: 'ReplicaSet',
          name: 'web2-5f7c',
          uid: 'rs-2',
        },
      ),
      // Unselected labels, and another namespace.
      workloadPod('web-5f7c-c', { app: 'db', 'pod-template-hash': '5f7c' }, rs),
      workloadPod('web-5f7c-d', { app: 'web', 'pod-template-hash': '5f7c' }, rs, undefined, 'other'),
    ];
    const enriched = enrichChild(web, ['pods'], sources(pods, []))['_pods'] as Record<string, unknown>[];
    expect(enriched.map((p) => p['name'])).toEqual(['web-5f7c-a', 'web-5f7c-b']);
    expect(enriched[0]).toMatchObject({ ordinal: -1, exitCode: 137, restartCount: 1 });
    expect(enriched[0]?.['containers']).toEqual([
      {
        name: 'c0',
        image: 'nginx:1.27',
        state: 'Waiting',
        reason: 'CrashLoopBackOff',
        ready: false,
        restartCount: 0,
      },
      {
        name: 'c1',
        image: 'nginx:1.27',
        state: 'Terminated',
        reason: 'OOMKilled',
        ready: false,
        restartCount: 1,
      },
    ]);
  });

  it("a StatefulSet's pods carry their ordinal, from the pod-index label or the name", () => {
    const db = workload('StatefulSet', 'db', {
      matchLabels: { app: 'db' },
      matchExpressions: [{ key: 'tier', operator: 'In', values: ['data'] }],
    });
    const owner = { kind: 'StatefulSet', name: 'db', uid: 'db-uid' };
    const pods = [
      workloadPod('db-1', { app: 'db', tier: 'data' }, owner),
      workloadPod('db-0', { app: 'db', tier: 'data', 'apps.kubernetes.io/pod-index': '0' }, owner),
      workloadPod('db-2', { app: 'db', tier: 'cache' }, owner),
      workloadPod('db-x', { app: 'db', tier: 'data' }, owner),
      workloadPod('db-3', { app: 'db', tier: 'data' }, { ...owner, uid: 'other-set' }),
    ];
    const enriched = enrichChild(db, ['pods'], sources(pods, []))['_pods'] as Record<string, unknown>[];
    expect(enriched.map((p) => [p['name'], p['ordinal']])).toEqual([
      ['db-0', 0],
      ['db-1', 1],
      ['db-x', -1],
    ]);
  });

  it("a ReplicaSet's pods are those it owns by uid; matchExpressions follow the API's operators", () => {
    const set = workload('ReplicaSet', 'cache', {
      matchExpressions: [
        { key: 'app', operator: 'Exists' },
        { key: 'canary', operator: 'DoesNotExist' },
        { key: 'tier', operator: 'NotIn', values: ['web'] },
      ],
    });
    const owner = { kind: 'ReplicaSet', name: 'cache', uid: 'cache-uid' };
    const pods = [
      workloadPod('cache-a', { app: 'cache' }, owner),
      workloadPod('cache-b', { app: 'cache', canary: 'yes' }, owner),
      workloadPod('cache-c', { app: 'cache', tier: 'web' }, owner),
      workloadPod('cache-d', { tier: 'data' }, owner),
    ];
    const enriched = enrichChild(set, ['pods'], sources(pods, []))['_pods'] as Record<string, unknown>[];
    expect(enriched.map((p) => p['name'])).toEqual(['cache-a']);
  });

  it('a workload without a selector (not read yet) gets an empty list', () => {
    const pods = [workloadPod('web-5f7c-a', { app: 'web', 'pod-template-hash': '5f7c' }, rs)];
    const bare = workload('Deployment', 'web', undefined);
    expect(enrichChild(bare, ['pods'], sources(pods, []))['_pods']).toEqual([]);
  });

  it('reads only the namespace cache: one pods() call per child, no other source', () => {
    let calls = 0;
    const counting: EnrichSources = {
      pods: (ns) => {
        calls += 1;
        return ns === 'ns'
          ? [workloadPod('web-5f7c-a', { app: 'web', 'pod-template-hash': '5f7c' }, rs)]
          : [];
      },
      endpointSlices: () => {
        throw new Error('not read');
      },
    };
    expect((enrichChild(web, ['pods'], counting)['_pods'] as unknown[]).length).toBe(1);
    expect(calls).toBe(1);
  });
});

describe('enrichChild: owner, backingpods, replicasets, pvcs, cronjob', () => {
  const obj = (
    apiVersion: string,
    kind: string,
    metadata: KubeObject['metadata'],
    rest: Record<string, unknown> = {},
  ): KubeObject => ({
    apiVersion,
    kind,
    metadata: { namespace: 'ns', ...metadata },
    ...rest,
  });
  const none: EnrichSources = { pods: () => [], endpointSlices: () => [] };

  it('owner: the controller owner reference, for any kind; none without one', () => {
    const rs = obj('apps/v1', 'ReplicaSet', {
      name: 'web-5f7c',
      ownerReferences: [
        { apiVersion: 'v1', kind: 'ConfigMap', name: 'not-controller', uid: 'u0' },
        { apiVersion: 'apps/v1', kind: 'Deployment', name: 'web', uid: 'u1', controller: true },
      ],
    });
    expect(enrichChild(rs, ['owner'], none)['_owner']).toEqual({
      name: 'web',
      kind: 'Deployment',
      uid: 'u1',
    });
    const cm = obj('v1', 'ConfigMap', { name: 'c' });
    expect(enrichChild(cm, ['owner'], none)).toBe(cm);
  });

  it('backingpods: the pods a Service selector selects, by name; left out for none or no selector', () => {
    const svc = obj('v1', 'Service', { name: 'web' }, { spec: { selector: { app: 'web', tier: 'fe' } } });
    const p = (name: string, labels: Record<string, string>): KubeObject =>
      obj('v1', 'Pod', { name, labels }, { status: { phase: 'Running' } });
    const pods = [
      p('web-b', { app: 'web', tier: 'fe', x: 'y' }),
      p('web-a', { app: 'web', tier: 'fe' }),
      p('db', { app: 'web' }),
    ];
    const with_ = { ...none, pods: () => pods };
    const added = enrichChild(svc, ['backingpods'], with_)['_backingPods'] as Record<string, unknown>[];
    expect(added.map((x) => [x['name'], x['phase'], x['ordinal']])).toEqual([
      ['web-a', 'Running', -1],
      ['web-b', 'Running', -1],
    ]);
    expect(
      enrichChild(obj('v1', 'Service', { name: 'h' }, { spec: {} }), ['backingpods'], with_)['_backingPods'],
    ).toBeUndefined();
    // `endpoints` and `backingpods` together both apply.
    const both = enrichChild(svc, ['endpoints', 'backingpods'], with_);
    expect(both['_endpoints']).toEqual([]);
    expect((both['_backingPods'] as unknown[]).length).toBe(2);
  });

  it('replicasets: the ReplicaSets a Deployment owns (by uid), by name', () => {
    const dep = obj('apps/v1', 'Deployment', { name: 'web', uid: 'd1' });
    const rs = (name: string, uid: string): KubeObject =>
      obj('apps/v1', 'ReplicaSet', {
        name,
        ownerReferences: [{ apiVersion: 'apps/v1', kind: 'Deployment', name: 'web', uid }],
      });
    const all = [rs('web-b', 'd1'), rs('web-a', 'd1'), rs('other', 'd2')];
    const added = enrichChild(dep, ['replicasets'], { ...none, replicaSets: () => all })[
      '_replicaSets'
    ] as KubeObject[];
    expect(added.map((r) => r.metadata.name)).toEqual(['web-a', 'web-b']);
    expect(enrichChild(dep, ['replicasets'], none)['_replicaSets']).toBeUndefined();
  });

  it('pvcs: <template>-<set>-<ordinal> below spec.replicas (absent counts as 1), those that exist', () => {
    const set = (replicas: number | undefined): KubeObject =>
      obj(
        'apps/v1',
        'StatefulSet',
        { name: 'db' },
        {
          spec: {
            ...(replicas == null ? {} : { replicas }),
            volumeClaimTemplates: [{ metadata: { name: 'data' } }, { metadata: { name: 'wal' } }],
          },
        },
      );
    const claims = ['data-db-0', 'data-db-1', 'data-db-2', 'wal-db-0', 'data-other-0'].map((name) =>
      obj('v1', 'PersistentVolumeClaim', { name }),
    );
    const names = (s: KubeObject): unknown =>
      ((enrichChild(s, ['pvcs'], { ...none, claims: () => claims })['_pvcs'] ?? []) as KubeObject[]).map(
        (c) => c.metadata.name,
      );
    expect(names(set(2))).toEqual(['data-db-0', 'data-db-1', 'wal-db-0']);
    expect(names(set(undefined))).toEqual(['data-db-0', 'wal-db-0']);
    expect(names(set(0))).toEqual(['data-db-0', 'wal-db-0']);
  });

  it('cronjob: the newest owned Job, the newest that succeeded, and status.active', () => {
    const cron = obj(
      'batch/v1',
      'CronJob',
      { name: 'nightly', uid: 'c1' },
      { status: { active: [{ kind: 'Job', name: 'nightly-3' }] } },
    );
    const job = (name: string, created: string, succeeded: number, uid = 'c1'): KubeObject =>
      obj(
        'batch/v1',
        'Job',
        {
          name,
          creationTimestamp: created,
          ownerReferences: [
            { apiVersion: 'batch/v1', kind: 'CronJob', name: 'nightly', uid, controller: true },
          ],
        },
        { status: { succeeded } },
      );
    const jobs = [
      job('nightly-1', '2026-12-01T00:00:00Z', 1),
      job('nightly-3', '2026-12-03T00:00:00Z', 0),
      job('nightly-2', '2026-12-02T00:00:00Z', 1),
      job('other', '2026-12-04T00:00:00Z', 1, 'c2'),
    ];
    const added = enrichChild(cron, ['cronjob'], { ...none, jobs: () => jobs });
    expect((added['_lastJob'] as KubeObject).metadata.name).toBe('nightly-3');
    expect((added['_lastSuccessfulJob'] as KubeObject).metadata.name).toBe('nightly-2');
    expect(added['_activeJobs']).toEqual([{ kind: 'Job', name: 'nightly-3' }]);
    const idle = obj('batch/v1', 'CronJob', { name: 'idle', uid: 'c9' });
    expect(enrichChild(idle, ['cronjob'], { ...none, jobs: () => jobs })).toBe(idle);
  });
});

describe('enrichChild: node, pvc, storageclass (cluster-scoped caches)', () => {
  const none: EnrichSources = { pods: () => [], endpointSlices: () => [] };
  const cluster = (
    apiVersion: string,
    kind: string,
    name: string,
    rest: Record<string, unknown> = {},
  ): KubeObject => ({
    apiVersion,
    kind,
    metadata: {
      name,
      ...(rest['labels'] == null ? {} : { labels: rest['labels'] as Record<string, string> }),
    },
    ...(rest['body'] as Record<string, unknown> | undefined),
  });
  const nodes = [
    cluster('v1', 'Node', 'n1', {
      labels: {
        'topology.kubernetes.io/zone': 'us-east-2a',
        'topology.kubernetes.io/region': 'us-east-2',
        'node.kubernetes.io/instance-type': 't3.medium',
      },
    }),
    cluster('v1', 'Node', 'bare'),
  ];

  it("node: a Pod's node summary from its spec.nodeName; none while unscheduled", () => {
    const pod = (nodeName?: string): KubeObject => ({
      apiVersion: 'v1',
      kind: 'Pod',
      metadata: { name: 'p', namespace: 'ns' },
      spec: nodeName == null ? {} : { nodeName },
    });
    const src = { ...none, nodes: () => nodes };
    expect(enrichChild(pod('n1'), ['node'], src)['_node']).toEqual({
      name: 'n1',
      zone: 'us-east-2a',
      region: 'us-east-2',
      instanceType: 't3.medium',
    });
    expect(enrichChild(pod('bare'), ['node'], src)['_node']).toEqual({
      name: 'bare',
      zone: '',
      region: '',
      instanceType: '',
    });
    expect(enrichChild(pod(), ['node'], src)['_node']).toBeUndefined();
  });

  it("pvc and storageclass: a claim's bound volume (status defaulted to {}) and its StorageClass", () => {
    const claim: KubeObject = {
      apiVersion: 'v1',
      kind: 'PersistentVolumeClaim',
      metadata: { name: 'data', namespace: 'ns' },
      spec: { volumeName: 'pv-1', storageClassName: 'gp3' },
    };
    const src = {
      ...none,
      volumes: () => [
        cluster('v1', 'PersistentVolume', 'pv-1', { body: { spec: { volumeMode: 'Filesystem' } } }),
      ],
      storageClasses: () => [
        cluster('storage.k8s.io/v1', 'StorageClass', 'gp3', { body: { provisioner: 'ebs.csi.aws.com' } }),
      ],
    };
    const added = enrichChild(claim, ['pvc', 'storageclass'], src);
    expect(added['_pv']).toMatchObject({ spec: { volumeMode: 'Filesystem' }, status: {} });
    expect(added['_storageClass']).toMatchObject({ provisioner: 'ebs.csi.aws.com' });
    const unbound = { ...claim, spec: {} };
    expect(enrichChild(unbound, ['pvc', 'storageclass'], src)).toBe(unbound);
  });
});

describe('enrichChild: events', () => {
  const event = (name: string, kind: string, object: string, type = 'Warning'): KubeObject => ({
    apiVersion: 'v1',
    kind: 'Event',
    metadata: { name, namespace: 'ns' },
    involvedObject: { kind, name: object },
    type,
    reason: `R-${name}`,
    message: `M-${name}`,
    count: 2,
    lastTimestamp: '2026-12-06T10:00:00Z',
  });
  const events = [
    event('web.2', 'Deployment', 'web'),
    event('web.1', 'Deployment', 'web'),
    event('web.n', 'Deployment', 'web', 'Normal'),
    event('other.1', 'Service', 'web'),
    event('web-a.1', 'Pod', 'web-a'),
    event('stray.1', 'Pod', 'stray'),
  ];
  const pod = (name: string, labels: Record<string, string>): KubeObject => ({
    apiVersion: 'v1',
    kind: 'Pod',
    metadata: { name, namespace: 'ns', labels },
  });
  const src: EnrichSources = {
    pods: () => [pod('web-a', { app: 'web' }), pod('stray', { app: 'db' })],
    endpointSlices: () => [],
    warningEvents: () => events,
  };

  it("a workload's own Warning events, then its selected pods', as {reason, message, count, lastTimestamp}", () => {
    const dep: KubeObject = {
      apiVersion: 'apps/v1',
      kind: 'Deployment',
      metadata: { name: 'web', namespace: 'ns' },
      spec: { selector: { matchLabels: { app: 'web' } } },
    };
    const warnings = enrichChild(dep, ['events'], src)['_warnings'] as Record<string, unknown>[];
    expect(warnings.map((w) => w['reason'])).toEqual(['R-web.1', 'R-web.2', 'R-web-a.1']);
    expect(warnings[0]).toEqual({
      reason: 'R-web.1',
      message: 'M-web.1',
      count: 2,
      lastTimestamp: '2026-12-06T10:00:00Z',
    });
  });

  it('another kind gets only its own; none is left out', () => {
    const svc: KubeObject = { apiVersion: 'v1', kind: 'Service', metadata: { name: 'web', namespace: 'ns' } };
    expect((enrichChild(svc, ['events'], src)['_warnings'] as unknown[]).length).toBe(1);
    const quiet: KubeObject = {
      apiVersion: 'v1',
      kind: 'ConfigMap',
      metadata: { name: 'c', namespace: 'ns' },
    };
    expect(enrichChild(quiet, ['events'], src)).toBe(quiet);
  });
});

describe('activeEnrichTargets', () => {
  const conditions = { renderTemplate, now: () => new Date(0) };
  const equals = (field: string, value: string) => ({
    field,
    operator: 'equals' as const,
    value,
    negate: false,
  });
  const rules: EnrichRule[] = [
    { target: 'pods' },
    { target: 'events', gate: { when: [equals('spec.debug', 'true')], anyOf: [] } },
    {
      target: 'replicasets',
      gate: {
        when: [],
        anyOf: [equals('{{ .children.deployment.status.readyReplicas }}', '2'), equals('spec.x', 'y')],
      },
    },
  ];
  const scope = (debug: string, ready: number) => () => ({
    spec: { debug },
    children: { deployment: { status: { readyReplicas: ready } } },
  });

  it('adds a conditional target only while its conditions hold over the CR and its children', () => {
    expect(activeEnrichTargets(rules, scope('true', 2), conditions)).toEqual([
      'pods',
      'events',
      'replicasets',
    ]);
    expect(activeEnrichTargets(rules, scope('false', 2), conditions)).toEqual(['pods', 'replicasets']);
    expect(activeEnrichTargets(rules, scope('true', 1), conditions)).toEqual(['pods', 'events']);
  });

  it('builds no context when no target is conditional', () => {
    const never = () => {
      throw new Error('scope built');
    };
    expect(activeEnrichTargets([{ target: 'pods' }, { target: 'owner' }], never, conditions)).toEqual([
      'pods',
      'owner',
    ]);
  });
});
