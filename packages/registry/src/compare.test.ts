import { describe, expect, it } from 'vitest';
import { appliedHash, compareToCache, isSubset, NO_RULES, normalize, withAppliedHash } from './compare.js';
import type { KubeObject } from './kube-object.js';
import { Annotations } from './metadata-keys.js';

const deployment = (spec: Record<string, unknown>, annotations: Record<string, string> = {}): KubeObject => ({
  apiVersion: 'apps/v1',
  kind: 'Deployment',
  metadata: { name: 'web', namespace: 'shop', annotations },
  spec,
});

describe('normalize and isSubset', () => {
  it('compares quantities by value', () => {
    const desired = normalize({ resources: { requests: { cpu: 0.5, memory: '1Gi' } } });
    const live = normalize({ resources: { requests: { cpu: '500m', memory: '1024Mi' } } });
    expect(isSubset(desired, live)).toBe(true);
    expect(isSubset(desired, normalize({ resources: { requests: { cpu: '600m', memory: '1Gi' } } }))).toBe(
      false,
    );
  });

  it('treats an int and its numeric string as equal in int-or-string fields only', () => {
    expect(isSubset(normalize({ targetPort: 8080 }), normalize({ targetPort: '8080' }))).toBe(true);
    expect(isSubset(normalize({ replicas: 1 }), normalize({ replicas: '1' }))).toBe(false);
  });

  it('matches containers and env by name, whatever the order, and ignores server-added items', () => {
    const desired = normalize({
      containers: [{ name: 'b', env: [{ name: 'X', value: '1' }] }, { name: 'a' }],
    });
    const live = normalize({
      containers: [
        { name: 'a', terminationMessagePath: '/dev/termination-log' },
        {
          name: 'b',
          env: [
            { name: 'Y', value: '2' },
            { name: 'X', value: '1' },
          ],
        },
      ],
    });
    expect(isSubset(desired, live)).toBe(true);
    const drifted = normalize({
      containers: [{ name: 'a' }, { name: 'b', env: [{ name: 'X', value: '9' }] }],
    });
    expect(isSubset(desired, drifted)).toBe(false);
  });

  it('matches ports by port number and protocol', () => {
    const desired = normalize({ ports: [{ containerPort: 80 }, { containerPort: 53, protocol: 'UDP' }] });
    const live = normalize({
      ports: [
        { containerPort: 53, protocol: 'UDP' },
        { containerPort: 80, protocol: 'TCP' },
      ],
    });
    expect(isSubset(desired, live)).toBe(true);
    expect(isSubset(desired, normalize({ ports: [{ containerPort: 80, protocol: 'TCP' }] }))).toBe(false);
  });

  it('keeps other lists atomic: same length, element-wise', () => {
    expect(isSubset(normalize({ args: ['a', 'b'] }), normalize({ args: ['a', 'b', 'c'] }))).toBe(false);
    expect(isSubset(normalize({ args: ['a', 'b'] }), normalize({ args: ['b', 'a'] }))).toBe(false);
    expect(isSubset(normalize({ args: ['a'] }), normalize({ args: ['a'] }))).toBe(true);
  });

  it('lets an empty desired map or list match an absent live value, but not a missing scalar', () => {
    expect(isSubset({ a: {}, b: [] }, {})).toBe(true);
    expect(isSubset({ a: 1 }, {})).toBe(false);
  });

  it('with NO_RULES compares lists atomically and values literally', () => {
    expect(
      isSubset(
        normalize({ containers: [{ name: 'a' }, { name: 'b' }] }, NO_RULES),
        normalize({ containers: [{ name: 'b' }, { name: 'a' }] }, NO_RULES),
      ),
    ).toBe(false);
    expect(isSubset(normalize({ cpu: '0.5' }, NO_RULES), normalize({ cpu: '500m' }, NO_RULES))).toBe(false);
  });
});

describe('appliedHash and compareToCache', () => {
  it('hashes canonical JSON: key order does not matter, the hash annotation itself is excluded', () => {
    const a = deployment({ replicas: 1, paused: false });
    const b = deployment({ paused: false, replicas: 1 });
    expect(appliedHash(a)).toBe(appliedHash(b));
    expect(appliedHash(a)).toMatch(/^[0-9a-f]{32}$/);
    expect(appliedHash(withAppliedHash(a))).toBe(appliedHash(a));
    expect(appliedHash(deployment({ replicas: 2, paused: false }))).not.toBe(appliedHash(a));
  });

  it('matches only when the hash is equal and the desired state is a subset of the cache', () => {
    const desired = withAppliedHash(deployment({ replicas: 2 }));
    const hash = desired.metadata.annotations?.[Annotations.AppliedHash] ?? '';
    expect(compareToCache(desired, undefined)).toBe('absent');
    expect(
      compareToCache(
        desired,
        deployment({ replicas: 2, revisionHistoryLimit: 10 }, { [Annotations.AppliedHash]: hash }),
      ),
    ).toBe('match');
    // Someone scaled it: same hash, but drift.
    expect(compareToCache(desired, deployment({ replicas: 5 }, { [Annotations.AppliedHash]: hash }))).toBe(
      'differs',
    );
    // A field was removed from the Katalog: the live object is a superset, but the hash differs.
    expect(compareToCache(desired, deployment({ replicas: 2 }, { [Annotations.AppliedHash]: 'old' }))).toBe(
      'differs',
    );
  });
});
