import { describe, expect, it } from 'vitest';
import type { KubeObject } from '../kube-object.js';
import { ManualClock } from '../clock.js';
import type { RuntimeEntry } from './katalog-runtime.js';
import { liveAnswerOf } from './live-api-wiring.js';
import type { LiveRuntimeState } from './live-api-wiring.js';

const deployment = (name: string, available: number): KubeObject => ({
  apiVersion: 'apps/v1',
  kind: 'Deployment',
  metadata: { name, namespace: 'shop', generation: 1 },
  spec: { replicas: 1 },
  status: {
    observedGeneration: 1,
    replicas: 1,
    updatedReplicas: 1,
    availableReplicas: available,
    conditions: [{ type: 'Available', status: available > 0 ? 'True' : 'False' }],
  },
});

const app = (name: string, inventory: Record<string, unknown>[]): KubeObject => ({
  apiVersion: 'demo.example.io/v1',
  kind: 'App',
  metadata: { name, namespace: 'shop', creationTimestamp: '2026-12-06T10:00:00Z' },
  spec: {},
  status: { inventory },
});

const apps = [
  app('web', [
    { apiVersion: 'apps/v1', kind: 'Deployment', namespace: 'shop', name: 'web' },
    { apiVersion: 'apps/v1', kind: 'Deployment', namespace: 'shop', name: 'web-worker' },
    // No cache holds Services here: the readiness the inventory recorded.
    {
      apiVersion: 'v1',
      kind: 'Service',
      namespace: 'shop',
      name: 'web',
      readiness: { state: 'Current', since: '2026-12-06T10:00:01Z' },
    },
  ]),
];

/** The parts of a runtime entry the Live API reads. */
const entry = {
  name: 'app',
  controller: {
    crd: {
      entry: { crossAccess: true, namespaced: true, resync: '30s', workers: 1, queue: {} },
      apiTypes: { group: 'demo.example.io', version: 'v1', kind: 'App', plural: 'apps' },
      apiVersion: 'demo.example.io/v1',
    },
  },
  dispatcher: { stats: () => ({ capacity: 1, inFlight: 0 }) },
  cache: {
    list: () => apps,
    listByNamespace: () => apps,
    getByName: (namespace: string | undefined, name: string) =>
      apps.find((a) => a.metadata.namespace === namespace && a.metadata.name === name),
  },
} as unknown as RuntimeEntry;

describe('the Live API’s children readiness from the child caches (ADR 0101)', () => {
  it('judges each cached child by its kind’s rule, and falls back to the inventory for a kind no cache holds', () => {
    const deployments = [deployment('web', 1), deployment('web-worker', 0)];
    const state: LiveRuntimeState = {
      leader: () => true,
      started: () => true,
      waiting: () => [],
      events: () => [],
      clock: new ManualClock(Date.parse('2026-12-06T12:00:00Z')),
      startedAt: 0,
      children: {
        watches: (gvk) => gvk.kind === 'Deployment',
        get: (ref) => deployments.find((d) => d.metadata.name === ref.name && ref.kind === 'Deployment'),
      },
    };
    const answer = liveAnswerOf(new Map([['app', entry]]), () => state)('app', 'cr', 'shop', 'web');
    const children = answer?.['children'] as Record<string, unknown>;
    expect(children['Deployment']).toEqual([
      {
        name: 'web',
        namespace: 'shop',
        kind: 'Deployment',
        ready: true,
        state: 'Current',
        reason: '1/1 replicas available',
      },
      {
        name: 'web-worker',
        namespace: 'shop',
        kind: 'Deployment',
        ready: false,
        state: 'InProgress',
        reason: '0/1 replicas available',
      },
    ]);
    expect(children['deployment']).toEqual({
      kind: 'Deployment',
      ready: false,
      total: 2,
      readyCount: 1,
      known: 2,
    });
    expect(children['service']).toMatchObject({ ready: true, known: 1 });
    // The worker becomes available: the next answer says so, with no write in between.
    deployments[1] = deployment('web-worker', 1);
    const again = liveAnswerOf(new Map([['app', entry]]), () => state)('app', 'cr', 'shop', 'web');
    expect((again?.['children'] as Record<string, { ready: boolean }>)['deployment']?.ready).toBe(true);
  });
});
