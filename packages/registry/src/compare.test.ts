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

describe('compareToCache normalizes only what the desired manifest declares', () => {
  // Seeded (mulberry32), so a failure reproduces; the reference is the whole-object comparison.
  const seeded = (seed: number): (() => number) => {
    let a = seed;
    return () => {
      a = (a + 0x6d2b79f5) | 0;
      let t = Math.imul(a ^ (a >>> 15), 1 | a);
      t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t;
      return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
    };
  };
  const FIELDS = [
    'containers',
    'env',
    'ports',
    'volumes',
    'port',
    'targetPort',
    'requests',
    'limits',
    'storage',
  ];
  const KEYS = [
    ...FIELDS,
    'name',
    'value',
    'image',
    'spec',
    'a',
    'b',
    'keyed',
    'mountPath',
    'uid',
    'protocol',
    // A keyed list's normalized keys, so that a map meets a keyed list on either side.
    '#a',
    '#b',
    '#keyed',
    // Read from the prototype when absent, on either side.
    'constructor',
  ];
  const LEAVES = [0, 1, 80, '80', '1', '1000m', '1Gi', '1024Mi', 'x', '', true, false, null, undefined];

  function value(rand: () => number, depth: number): unknown {
    const pick = <T>(list: readonly T[]): T => list[Math.floor(rand() * list.length)] as T;
    const r = rand();
    if (depth <= 0 || r < 0.3) return pick(LEAVES);
    if (r < 0.55) {
      return Array.from({ length: Math.floor(rand() * 4) }, () =>
        rand() < 0.8
          ? {
              // Now and then an item without a key, which keeps a keyed list a list.
              ...(rand() < 0.9 ? { name: pick(['a', 'b', 'keyed', 'c']) } : {}),
              ...(rand() < 0.9 ? { port: pick([80, '80', 443]) } : {}),
              value: value(rand, depth - 1),
            }
          : pick(LEAVES),
      );
    }
    const out: Record<string, unknown> = {};
    for (let i = Math.floor(rand() * 4); i > 0; i--) out[pick(KEYS)] = value(rand, depth - 1);
    return out;
  }

  /**
   * mutate returns a live-looking variant: extra fields, dropped empty values, reordered lists and,
   * unless `mild`, changed leaves, dropped fields and shortened or longer lists.
   */
  function mutate(rand: () => number, v: unknown, depth: number, mild = false): unknown {
    if (Array.isArray(v)) {
      const items = v.map((item) => {
        const out = mutate(rand, item, depth - 1, mild);
        // An extra field that is a key: the live list is keyed where the desired one is not.
        if (out != null && typeof out === 'object' && !('name' in out) && rand() < 0.5)
          return { ...out, name: 'c' };
        return out;
      });
      if (rand() < 0.3) items.reverse();
      if (!mild && rand() < 0.1) items.pop();
      if (!mild && rand() < 0.1) items.push(value(rand, depth - 1));
      // The normalized form of a keyed list, written out as a map.
      if (rand() < 0.05)
        return Object.fromEntries([
          ['#keyed', true],
          ...items.map((item, i) => [`#${String((item as { name?: unknown } | null)?.name ?? i)}`, item]),
        ]);
      return items;
    }
    if (v != null && typeof v === 'object') {
      const out: Record<string, unknown> = {};
      for (const [k, item] of Object.entries(v)) {
        // The server drops empty values: an empty map or list is often absent from the live object.
        const empty = item != null && typeof item === 'object' && Object.keys(item).length === 0;
        const r = rand();
        if (empty && r < 0.5) out[k] = r < 0.25 ? undefined : item;
        else if (r > (mild ? 0 : 0.05)) out[k] = mutate(rand, item, depth - 1, mild);
      }
      if (rand() < 0.4) out[`extra${Math.floor(rand() * 3)}`] = value(rand, depth - 1);
      return out;
    }
    if (mild) return v;
    if (rand() < 0.1) return value(rand, 1);
    if (typeof v === 'number' && rand() < 0.3) return String(v);
    return v;
  }

  it('agrees with isSubset over the whole normalized objects (2,000 seeded cases, both outcomes)', () => {
    const rand = seeded(38);
    const outcomes = { match: 0, differs: 0 };
    for (let i = 0; i < 2000; i++) {
      // Every fourth desired spec comes from a live-looking variant: maps meeting keyed lists.
      const spec = i % 4 === 3 ? mutate(rand, value(rand, 4), 4) : value(rand, 4);
      const desired = withAppliedHash({
        apiVersion: 'v1',
        kind: 'K',
        metadata: { name: 'n' },
        spec,
      } as KubeObject);
      const r = rand();
      const liveSpec = r < 0.2 ? spec : mutate(rand, spec, 4, r < 0.6);
      const live = { ...desired, spec: liveSpec, status: value(rand, 3) };
      const expected = isSubset(normalize(desired), normalize(live)) ? 'match' : 'differs';
      const actual = compareToCache(desired, live);
      if (actual !== expected) expect(actual, JSON.stringify({ spec, live: live.spec })).toBe(expected);
      outcomes[expected]++;
    }
    expect(outcomes.match).toBeGreaterThan(100);
    expect(outcomes.differs).toBeGreaterThan(100);
  });
});
