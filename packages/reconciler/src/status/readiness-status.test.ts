import { describe, expect, it } from 'vitest';
import type { ObjectRef } from '@orkestra/registry';
import type { KubeObject } from '../kube-object.js';
import type { DesiredChild, DesiredSet } from '../runtime/desired-set.js';
import { assessReadiness, readyOutcome } from './readiness-status.js';
import type { InventoryItem } from './inventory.js';

function child(kind: string, name: string, extra: { readyWhen?: unknown[] } = {}): DesiredChild {
  const apiVersion = kind === 'Deployment' ? 'apps/v1' : 'v1';
  const ref: ObjectRef = { apiVersion, kind, namespace: 'ns', name };
  return {
    ref,
    id: `${apiVersion}/${kind}/ns/${name}`,
    mode: 'apply',
    manifest: { apiVersion, kind, metadata: { name, namespace: 'ns' } },
    rendered: {},
    entry: { readyWhen: extra.readyWhen ?? [], waitFor: [] },
  } as unknown as DesiredChild;
}

function desired(children: DesiredChild[]): DesiredSet {
  return {
    groups: { onCreate: [], onReconcile: children },
    blocked: [],
    ids: new Set(children.map((c) => c.id)),
  };
}

const item = (kind: string, name: string, readiness?: InventoryItem['readiness']): InventoryItem => ({
  apiVersion: kind === 'Deployment' ? 'apps/v1' : 'v1',
  kind,
  namespace: 'ns',
  name,
  mode: 'apply',
  source: 'onReconcile.x[0]',
  ...(readiness == null ? {} : { readiness }),
});

const deployment = (available: number): KubeObject =>
  ({
    apiVersion: 'apps/v1',
    kind: 'Deployment',
    metadata: { name: 'web', namespace: 'ns', generation: 1 },
    spec: { replicas: 2 },
    status: {
      observedGeneration: 1,
      replicas: 2,
      updatedReplicas: 2,
      availableReplicas: available,
      conditions: [{ type: 'Available', status: available === 2 ? 'True' : 'False' }],
    },
  }) as KubeObject;

describe('assessReadiness', () => {
  const now = new Date('2026-12-01T10:00:00Z');
  const cm: KubeObject = { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'cfg', namespace: 'ns' } };

  it('names the first child not ready and records every verdict on the inventory', () => {
    const objects = new Map<string, KubeObject>([
      ['cfg', cm],
      ['web', deployment(1)],
    ]);
    const a = assessReadiness({
      desired: desired([child('ConfigMap', 'cfg'), child('Deployment', 'web')]),
      get: (ref) => objects.get(ref.name),
      previous: [],
      now,
    });
    expect(a.summary).toEqual({
      ready: false,
      reason: 'ChildNotReady',
      message: 'Deployment web: 1/2 replicas available',
    });
    expect(a.annotate([item('ConfigMap', 'cfg'), item('Deployment', 'web'), item('Secret', 'old')])).toEqual([
      item('ConfigMap', 'cfg', { state: 'Current', since: '2026-12-01T10:00:00Z' }),
      item('Deployment', 'web', {
        state: 'InProgress',
        message: '1/2 replicas available',
        since: '2026-12-01T10:00:00Z',
      }),
      item('Secret', 'old'),
    ]);
  });

  it('keeps `since` while the state stays and moves it when the state changes', () => {
    const earlier = '2026-12-01T09:00:00Z';
    const previous = [
      item('Deployment', 'web', { state: 'InProgress', message: '0/2 replicas available', since: earlier }),
    ];
    const inProgress = assessReadiness({
      desired: desired([child('Deployment', 'web')]),
      get: () => deployment(1),
      previous,
      now,
    });
    expect(inProgress.annotate([item('Deployment', 'web')])[0]?.readiness?.since).toBe(earlier);
    const ready = assessReadiness({
      desired: desired([child('Deployment', 'web')]),
      get: () => deployment(2),
      previous,
      now,
    });
    expect(ready.summary.ready).toBe(true);
    expect(ready.annotate([item('Deployment', 'web')])[0]?.readiness).toEqual({
      state: 'Current',
      message: '2/2 replicas available',
      since: '2026-12-01T10:00:00Z',
    });
  });

  it('reports children held back by waitFor as Waiting', () => {
    const web = child('Deployment', 'web');
    const a = assessReadiness({
      desired: desired([web]),
      get: () => undefined,
      waiting: new Map([[web.id, ['migrate']]]),
      previous: [],
      now,
    });
    expect(a.summary).toEqual({
      ready: false,
      reason: 'WaitingForChildren',
      message: 'Deployment web: waiting for migrate to be ready',
    });
    expect(a.annotate([item('Deployment', 'web')])[0]?.readiness?.state).toBe('Waiting');
  });

  it('has no verdicts when the reconcile failed before the desired set was built', () => {
    const a = assessReadiness({ desired: undefined, get: () => undefined, previous: [], now });
    expect(a.verdicts).toEqual([]);
    expect(a.annotate([item('ConfigMap', 'cfg')])).toEqual([item('ConfigMap', 'cfg')]);
  });
});

describe('readyOutcome', () => {
  const synced = { ready: true, reason: 'ReconcileSucceeded', message: '' };
  const notReady = {
    ready: false,
    reason: 'ChildNotReady',
    message: 'Deployment web: 1/2 replicas available',
  };

  it('is the children summary once synced', () => {
    expect(readyOutcome(synced, notReady, 'children')).toEqual(notReady);
  });

  it('is Synced for a failed reconcile, whatever the children', () => {
    const failed = { ready: false, reason: 'ApplyFailed', message: 'boom' };
    expect(readyOutcome(failed, { ...synced }, 'children')).toEqual(failed);
  });

  it("is Synced with readiness: 'reconciled' (upstream dialects)", () => {
    expect(readyOutcome(synced, notReady, 'reconciled')).toEqual(synced);
  });
});

describe('assessReadiness: finished Jobs', () => {
  it('keeps a completed Job that its TTL removed Current', () => {
    const migrate = {
      ...child('Job', 'migrate'),
      ref: { apiVersion: 'batch/v1', kind: 'Job', namespace: 'ns', name: 'migrate' },
    } as DesiredChild;
    const previous: InventoryItem[] = [
      {
        apiVersion: 'batch/v1',
        kind: 'Job',
        namespace: 'ns',
        name: 'migrate',
        mode: 'create',
        source: 'onCreate.jobs[0]',
        completed: true,
      },
    ];
    const a = assessReadiness({
      desired: desired([migrate]),
      get: () => undefined,
      previous,
      now: new Date(),
    });
    expect(a.summary.ready).toBe(true);
  });
});
