import { describe, expect, it } from 'vitest';
import type { KubeObject } from '@orkestra/registry';
import { enrichChild } from './enrich-children.js';
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
