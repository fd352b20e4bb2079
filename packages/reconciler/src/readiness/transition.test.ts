import { describe, expect, it } from 'vitest';
import { CacheChangeType } from '../cache.js';
import type { KubeObject } from '../kube-object.js';
import { readinessTransition } from './transition.js';

function deployment(available: number, updated = 2): KubeObject {
  return {
    apiVersion: 'apps/v1',
    kind: 'Deployment',
    metadata: { name: 'web', namespace: 'ns', generation: 1 },
    spec: { replicas: 2 },
    status: {
      observedGeneration: 1,
      replicas: 2,
      updatedReplicas: updated,
      availableReplicas: available,
      conditions: [{ type: 'Available', status: available === 2 ? 'True' : 'False' }],
    },
  } as KubeObject;
}

describe('readinessTransition', () => {
  it('is true when an update moves the child between readiness states, either way', () => {
    const key = 'ns/web';
    expect(
      readinessTransition({ type: CacheChangeType.Update, key, old: deployment(1), object: deployment(2) }),
    ).toBe(true);
    expect(
      readinessTransition({ type: CacheChangeType.Update, key, old: deployment(2), object: deployment(1) }),
    ).toBe(true);
  });

  it('is false for progress within a state, and for adds', () => {
    const key = 'ns/web';
    expect(
      readinessTransition({
        type: CacheChangeType.Update,
        key,
        old: deployment(0, 1),
        object: deployment(1),
      }),
    ).toBe(false);
    expect(readinessTransition({ type: CacheChangeType.Add, key, object: deployment(2) })).toBe(false);
  });

  it('is true for a delete (the child is gone)', () => {
    const d = deployment(2);
    expect(readinessTransition({ type: CacheChangeType.Delete, key: 'ns/web', object: d, old: d })).toBe(
      true,
    );
  });
});
