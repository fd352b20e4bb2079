import type { KubeObject } from '@orkestra/registry';
import { describe, expect, it } from 'vitest';
import type { DesiredChild, DesiredSet } from './desired-set.js';
import { decideWorkloadScale, scaleWorkloads } from './workload-autoscale.js';
import type { WorkloadScaleInput } from './workload-autoscale.js';

const NOON = Date.UTC(2024, 5, 3, 12, 0, 0);
const MIN = 60_000;

const base: WorkloadScaleInput = {
  config: {
    min: 2,
    max: 6,
    cooldown: '2m',
    scaleUp: { conditions: { when: [], anyOf: [] }, increment: 2 },
    scaleDown: { conditions: { when: [], anyOf: [] }, target: 2 },
  },
  declared: 2,
  current: 2,
  upPassed: false,
  downPassed: false,
  lastScaleAt: undefined,
  now: NOON,
};

describe('decideWorkloadScale (katalog.md §18.4)', () => {
  it('steps up by the increment, never past max', () => {
    expect(decideWorkloadScale({ ...base, upPassed: true })).toMatchObject({
      replicas: 4,
      decision: 'up',
      changed: true,
    });
    expect(decideWorkloadScale({ ...base, current: 5, upPassed: true })).toMatchObject({
      replicas: 6,
      decision: 'up',
    });
    expect(decideWorkloadScale({ ...base, current: 6, upPassed: true })).toMatchObject({
      replicas: 6,
      decision: 'none',
      changed: false,
    });
  });

  it('jumps down to the target; scaleUp wins when both pass', () => {
    expect(decideWorkloadScale({ ...base, current: 6, downPassed: true })).toMatchObject({
      replicas: 2,
      decision: 'down',
    });
    expect(decideWorkloadScale({ ...base, current: 4, upPassed: true, downPassed: true })).toMatchObject({
      replicas: 6,
      decision: 'up',
    });
  });

  it('holds a change within the cooldown of the last one and lets it through after', () => {
    const held = decideWorkloadScale({ ...base, upPassed: true, lastScaleAt: NOON - MIN });
    expect(held).toEqual({
      replicas: 2,
      decision: 'cooldown',
      why: 'scaleUp passed; held at 2 for the cooldown (60s left)',
      changed: false,
    });
    expect(decideWorkloadScale({ ...base, upPassed: true, lastScaleAt: NOON - 2 * MIN })).toMatchObject({
      replicas: 4,
      decision: 'up',
    });
  });

  it('brings replicas outside the bounds back into them, even within the cooldown', () => {
    expect(decideWorkloadScale({ ...base, current: 9, lastScaleAt: NOON })).toMatchObject({
      replicas: 6,
      decision: 'bounds',
      changed: true,
    });
    expect(decideWorkloadScale({ ...base, current: 1 })).toMatchObject({ replicas: 2, decision: 'bounds' });
  });

  it('min defaults to the declared replicas; a new child starts from them', () => {
    const config = { ...base.config, min: undefined };
    expect(
      decideWorkloadScale({ ...base, config, declared: 3, current: undefined, downPassed: true }),
    ).toMatchObject({
      replicas: 3,
      decision: 'none',
    });
    expect(
      decideWorkloadScale({ ...base, config, declared: 3, current: undefined, upPassed: true }),
    ).toMatchObject({
      replicas: 5,
    });
  });
});

describe('scaleWorkloads on a child created once (katalog.md §18.4)', () => {
  const config = {
    max: 6,
    cooldown: '2m',
    scaleUp: {
      conditions: {
        when: [{ field: 'spec.busy', operator: 'equals', value: 'true', negate: false }],
        anyOf: [],
      },
      increment: 2,
    },
  };
  const manifest: KubeObject = {
    apiVersion: 'apps/v1',
    kind: 'Deployment',
    metadata: { name: 'a-web', namespace: 'web' },
    spec: { replicas: 2, template: { spec: { containers: [{ name: 'a-web', image: 'nginx:1.27' }] } } },
  };
  const child = {
    id: 'apps/v1/Deployment/web/a-web',
    ref: { apiVersion: 'apps/v1', kind: 'Deployment', name: 'a-web', namespace: 'web' },
    mode: 'create',
    manifest,
    entry: { raw: { autoscale: config } },
  } as unknown as DesiredChild;
  const set: DesiredSet = {
    groups: { onCreate: [child], onReconcile: [] },
    blocked: [],
    ids: new Set([child.id]),
  };
  const live = (replicas: number, at?: string): KubeObject => ({
    ...manifest,
    metadata: {
      ...manifest.metadata,
      resourceVersion: '5',
      ...(at == null ? {} : { annotations: { 'orkestra.konductor.io/autoscaled-at': at } }),
    },
    spec: { ...(manifest['spec'] as object), replicas },
  });
  const run = (busy: boolean, existing: KubeObject | undefined, now = NOON) =>
    scaleWorkloads(set, {
      context: { spec: { busy: String(busy) } } as never,
      conditions: {},
      live: () => existing,
      now,
    });

  it('carries a change as `scale` and leaves the manifest as declared (not re-applied)', () => {
    const result = run(true, live(3));
    const scaled = result.desired.groups.onCreate[0];
    expect(scaled?.scale).toEqual({ replicas: 5, at: new Date(NOON).toISOString() });
    expect(scaled?.manifest).toBe(manifest);
    expect(result.status?.['a-web']).toMatchObject({
      replicas: 5,
      decision: 'up',
      why: 'scaleUp passed: 3 → 5',
    });
  });

  it('no change, no scale: a quiet condition, and the cooldown holds with a timed re-check', () => {
    expect(run(false, live(3)).desired.groups.onCreate[0]?.scale).toBeUndefined();
    const recent = new Date(NOON - MIN).toISOString();
    const held = run(true, live(3, recent));
    expect(held.desired.groups.onCreate[0]?.scale).toBeUndefined();
    expect(held.status?.['a-web']).toMatchObject({
      decision: 'cooldown',
      replicas: 3,
      lastScaleTime: recent,
    });
    expect(held.recheckAt).toEqual([NOON + MIN]);
    // After the cooldown, the same decision goes through.
    expect(run(true, live(3, recent), NOON + MIN).desired.groups.onCreate[0]?.scale?.replicas).toBe(5);
  });

  it('a new child is created with the decided replicas, as an applied one is', () => {
    const created = run(true, undefined).desired.groups.onCreate[0];
    expect(created?.scale).toBeUndefined();
    expect((created?.manifest['spec'] as { replicas: number }).replicas).toBe(4);
  });
});
