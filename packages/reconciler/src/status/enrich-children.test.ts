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
      },
      {
        name: 'p-probe-b',
        phase: 'Succeeded',
        ip: '10.0.0.9',
        node: 'kwok-node-0',
        ready: false,
        restartCount: 1,
        exitCode: 0,
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
    expect(enrichChild(deployment, ['pods', 'endpoints'], all)).toBe(deployment);
  });
});
