import { describe, expect, it } from 'vitest';
import { decompose, quantiles, summarizeParts } from './readiness-lag-stats.js';

describe('decompose', () => {
  it('splits the lag at the reconcile that ended nearest to Ready being seen', () => {
    const parts = decompose({
      availableSeen: 1000,
      availableTransition: 50_000,
      availableSeenWall: 50_300,
      runtimeSeen: 1002,
      reconciles: [
        { endAt: 900, durationMs: 40 },
        { endAt: 1080, durationMs: 30 },
        { endAt: 2000, durationMs: 10 }, // long after Ready was seen: not the one
      ],
      readySeen: 1100,
      readySeenWall: 50_400,
    });
    expect(parts).toEqual({
      lag: 100,
      lagFromTransition: 400,
      beforeRuntime: 300,
      childEvent: 2,
      queued: 48,
      reconcile: 30,
      echo: 20,
    });
  });

  it('takes a reconcile whose answer came just after its watch event (negative echo)', () => {
    const parts = decompose({
      availableSeen: 1000,
      runtimeSeen: 1001,
      reconciles: [
        { endAt: 500, durationMs: 20 },
        { endAt: 1104, durationMs: 40 },
      ],
      readySeen: 1100,
    });
    expect(parts).toMatchObject({ queued: 63, reconcile: 40, echo: -4 });
  });

  it('is undefined when Available or Ready was not seen, and leaves unknown parts out', () => {
    expect(decompose({ readySeen: 5, reconciles: [] })).toBeUndefined();
    expect(decompose({ availableSeen: 5, reconciles: [] })).toBeUndefined();
    expect(decompose({ availableSeen: 5, readySeen: 9, reconciles: [] })).toEqual({
      lag: 4,
      lagFromTransition: undefined,
      beforeRuntime: undefined,
      childEvent: undefined,
      queued: undefined,
      reconcile: undefined,
      echo: undefined,
    });
  });
});

describe('quantiles and summarizeParts', () => {
  it('uses nearest-rank percentiles and skips missing samples', () => {
    expect(quantiles([3, undefined, 1, 2])).toEqual({ p50: 2, p99: 3, min: 1, max: 3, n: 3 });
    expect(quantiles([])).toEqual({ p50: null, p99: null, min: null, max: null, n: 0 });
  });

  it('summarizes every part', () => {
    const summary = summarizeParts([
      {
        lag: 10,
        lagFromTransition: undefined,
        beforeRuntime: undefined,
        childEvent: 1,
        queued: 2,
        reconcile: 3,
        echo: 4,
      },
      {
        lag: 30,
        lagFromTransition: 700,
        beforeRuntime: 690,
        childEvent: 1,
        queued: 20,
        reconcile: 5,
        echo: 5,
      },
    ]);
    expect(summary.lag).toMatchObject({ p50: 10, p99: 30, n: 2 });
    expect(summary.lagFromTransition.n).toBe(1);
    expect(summary.queued.max).toBe(20);
  });
});
