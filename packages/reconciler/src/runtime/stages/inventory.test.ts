import type { KubeObject } from '@orkestra/registry';
import { describe, expect, it } from 'vitest';
import { MemoryCluster } from '../../offline/memory-cluster.js';
import { buildInventory, pruneCandidates } from './inventory.js';

const clock = { now: () => 0, setTimeout: () => ({}), clearTimeout: () => undefined };

function child(kind: string, name: string, source: string, extra: Partial<KubeObject> = {}): KubeObject {
  return {
    apiVersion: kind === 'Job' ? 'batch/v1' : 'v1',
    kind,
    metadata: {
      name,
      namespace: 'web',
      labels: { 'orkestra.konductor.io/owner-uid': 'u1' },
      annotations: { 'orkestra.konductor.io/source': source },
    },
    ...extra,
  };
}

describe('buildInventory', () => {
  it('keeps completed Jobs that are gone, drops other gone records and pruned ones, adds owned children', () => {
    const cluster = new MemoryCluster({ clock });
    cluster.put(child('ConfigMap', 'kept', 'onReconcile.configMaps[0]'));
    cluster.put(child('ConfigMap', 'found', 'onCreate.configMaps[0]'));
    cluster.put(child('Job', 'cleanup', 'onDelete.jobs[0]'));
    const inventory = buildInventory({
      children: cluster.childStore,
      ownerUid: 'u1',
      desired: undefined,
      previous: [
        {
          apiVersion: 'v1',
          kind: 'ConfigMap',
          namespace: 'web',
          name: 'kept',
          mode: 'apply',
          source: 'onReconcile.configMaps[0]',
        },
        {
          apiVersion: 'v1',
          kind: 'ConfigMap',
          namespace: 'web',
          name: 'gone',
          mode: 'apply',
          source: 'onReconcile.configMaps[1]',
        },
        {
          apiVersion: 'v1',
          kind: 'ConfigMap',
          namespace: 'web',
          name: 'pruned',
          mode: 'apply',
          source: 'onReconcile.configMaps[2]',
        },
        {
          apiVersion: 'batch/v1',
          kind: 'Job',
          namespace: 'web',
          name: 'once',
          mode: 'create',
          source: 'onCreate.jobs[0]',
          completed: true,
        },
      ],
      pruned: new Set(['v1/ConfigMap/web/pruned']),
    });
    expect(
      inventory.map((r) => `${r.kind}/${r.name} ${r.mode}${r.completed === true ? ' completed' : ''}`),
    ).toEqual(['Job/once create completed', 'ConfigMap/found create', 'ConfigMap/kept apply']); // sorted by apiVersion/kind/namespace/name
  });
});

describe('a Job, by its kind module', () => {
  it('is recorded completed once seen complete, and is never a prune candidate', () => {
    const cluster = new MemoryCluster({ clock });
    const done = { status: { conditions: [{ type: 'Complete', status: 'True' }] } };
    cluster.put(child('Job', 'migrate', 'onReconcile.jobs[0]', done));
    cluster.put(child('ConfigMap', 'done', 'onReconcile.configMaps[0]', done));
    const inventory = buildInventory({
      children: cluster.childStore,
      ownerUid: 'u1',
      desired: undefined,
      previous: [],
      pruned: new Set(),
    });
    expect(inventory.map((r) => `${r.kind}/${r.name}${r.completed === true ? ' completed' : ''}`)).toEqual([
      'Job/migrate completed',
      'ConfigMap/done',
    ]);
    const candidates = pruneCandidates({
      children: cluster.childStore,
      ownerUid: 'u1',
      desired: { groups: { onCreate: [], onReconcile: [] }, blocked: [], ids: new Set() },
      previous: inventory,
    });
    expect([...candidates.values()].map((c) => `${c.ref.kind}:${String(c.job)}`)).toEqual([
      'Job:true',
      'ConfigMap:false',
    ]);
  });
});

describe('pruneCandidates', () => {
  it('lists undesired children; the inventory mode and prune flag win over the source annotation', () => {
    const cluster = new MemoryCluster({ clock });
    cluster.put(child('ConfigMap', 'desired', 'onReconcile.configMaps[0]'));
    cluster.put(child('ConfigMap', 'stray', 'onReconcile.configMaps[1]'));
    cluster.put(child('ConfigMap', 'seed', 'onCreate.configMaps[0]'));
    cluster.put(child('ConfigMap', 'kept', 'onReconcile.configMaps[2]'));
    const candidates = pruneCandidates({
      children: cluster.childStore,
      ownerUid: 'u1',
      desired: { ids: new Set(['v1/ConfigMap/web/desired']) } as never,
      previous: [
        {
          apiVersion: 'v1',
          kind: 'ConfigMap',
          namespace: 'web',
          name: 'kept',
          mode: 'apply',
          source: 'onReconcile.configMaps[2]',
          prune: false,
        },
      ],
    });
    const summary = [...candidates.entries()]
      .map(([id, c]) => `${id} apply=${c.apply} prune=${c.prune}`)
      .sort();
    expect(summary).toEqual([
      'v1/ConfigMap/web/kept apply=true prune=false',
      'v1/ConfigMap/web/seed apply=false prune=true',
      'v1/ConfigMap/web/stray apply=true prune=true',
    ]);
  });
});
