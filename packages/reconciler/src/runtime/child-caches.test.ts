import { describe, expect, it } from 'vitest';
import { OrkestraLabel } from '@orkestra/types';
import { CacheChangeType } from '../cache.js';
import type { KubeObject } from '../kube-object.js';
import { Priority } from '../work-queue.js';
import { routeChildChange } from './child-caches.js';

function deployment(available: number, labels: Record<string, string> = owned): KubeObject {
  return {
    apiVersion: 'apps/v1',
    kind: 'Deployment',
    metadata: {
      name: 'shop-web',
      namespace: 'ns',
      generation: 1,
      resourceVersion: String(10 + available),
      labels,
    },
    spec: { replicas: 2 },
    status: {
      observedGeneration: 1,
      replicas: 2,
      updatedReplicas: 2,
      availableReplicas: available,
      conditions: [{ type: 'Available', status: available === 2 ? 'True' : 'False' }],
    },
  } as KubeObject;
}
const owned = { [OrkestraLabel.Crd]: 'shop', [OrkestraLabel.OwnerUid]: 'uid-1' };
const never = (): boolean => false;

describe('routeChildChange', () => {
  it('sends a readiness transition (Deployment becoming Available) to its owner in the high lane', () => {
    const route = routeChildChange(
      { type: CacheChangeType.Update, key: 'ns/shop-web', old: deployment(1), object: deployment(2) },
      never,
    );
    expect(route).toMatchObject({ crd: 'shop', ownerUid: 'uid-1', priority: Priority.High });
  });

  it('sends progress within a state in the normal lane', () => {
    const route = routeChildChange(
      { type: CacheChangeType.Update, key: 'ns/shop-web', old: deployment(0), object: deployment(1) },
      never,
    );
    expect(route?.priority).toBe(Priority.Normal);
  });

  it('asks whether an add or update echoes an own write; a delete is never one', () => {
    const object = deployment(2);
    const seen: KubeObject[] = [];
    const route = routeChildChange({ type: CacheChangeType.Add, key: 'ns/shop-web', object }, (o) => {
      seen.push(o);
      return true;
    });
    expect(route?.isOwnWrite?.()).toBe(true);
    expect(seen).toEqual([object]);
    const gone = routeChildChange(
      { type: CacheChangeType.Delete, key: 'ns/shop-web', object, old: object },
      never,
    );
    expect(gone).toMatchObject({ isOwnWrite: undefined, priority: Priority.High });
  });

  it('ignores a child without the crd and owner-UID labels', () => {
    const object = deployment(2, { [OrkestraLabel.Crd]: 'shop' });
    expect(
      routeChildChange({ type: CacheChangeType.Add, key: 'ns/shop-web', object }, never),
    ).toBeUndefined();
  });
});
