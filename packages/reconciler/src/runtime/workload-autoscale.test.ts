import { describe, expect, it } from 'vitest';
import { decideWorkloadScale } from './workload-autoscale.js';
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
