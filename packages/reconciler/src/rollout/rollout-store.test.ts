import { describe, expect, it } from 'vitest';
import type { KubeObject } from '@orkestra/registry';
import { completeAt, startRollout } from './plan.js';
import { RolloutStore } from './rollout-store.js';

const NS = 'ops';

function configMap(name: string, data: Record<string, string>, resourceVersion: string): KubeObject {
  return { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name, namespace: NS, resourceVersion }, data };
}

describe('RolloutStore with a watch cache', () => {
  it('reads from the cache without a request, and never goes back behind its own last write', async () => {
    const requests: string[] = [];
    const cached = new Map<string, KubeObject>();
    const state = completeAt('r1', 0);
    cached.set('orkestra-k-rollout', configMap('orkestra-k-rollout', { state: JSON.stringify(state) }, '5'));
    const store = new RolloutStore({
      namespace: NS,
      katalogName: 'k',
      cache: { get: (name) => cached.get(name) },
      client: {
        get: (ref) => {
          requests.push(`get ${ref.name}`);
          return Promise.reject(new Error('no GET expected'));
        },
        create: (obj) => {
          requests.push(`create ${obj.metadata.name ?? ''}`);
          return Promise.resolve(obj);
        },
        mergePatch: (ref, patch) => {
          requests.push(`patch ${ref.name}`);
          const data = (patch as { data: Record<string, string> }).data;
          return Promise.resolve(configMap(ref.name, data, '9'));
        },
      },
    });
    expect((await store.read())?.resourceVersion).toBe('5');
    const next = startRollout('r1', 'r2', undefined, 1);
    await store.write(next, '5');
    // The watch has not delivered the write yet: the store's own write is newer than the cache.
    expect((await store.read())?.resourceVersion).toBe('9');
    cached.set('orkestra-k-rollout', configMap('orkestra-k-rollout', { state: JSON.stringify(next) }, '12'));
    expect((await store.read())?.resourceVersion).toBe('12');
    // A revision already in the cache is neither created nor read with a request.
    cached.set(
      'orkestra-k-rev-r2',
      configMap('orkestra-k-rev-r2', { 'katalog.json': '{"kind":"Katalog"}' }, '3'),
    );
    await store.saveRevision('r2', { metadata: { name: 'k' } } as never, '');
    expect(await store.loadRevision('r2')).toEqual({ kind: 'Katalog' });
    expect(requests).toEqual(['patch orkestra-k-rollout']);
  });
});
