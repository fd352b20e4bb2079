import { describe, expect, it } from 'vitest';
import { fakeRound } from './fixtures.js';
import { rotatedOrder, summarizeRounds } from './round-summary.js';

describe('rotatedOrder', () => {
  it('starts one place later each round and wraps around', () => {
    const systems = ['floor', 'orkestra', 'kro'];
    expect(rotatedOrder(systems, 0)).toEqual(['floor', 'orkestra', 'kro']);
    expect(rotatedOrder(systems, 1)).toEqual(['orkestra', 'kro', 'floor']);
    expect(rotatedOrder(systems, 2)).toEqual(['kro', 'floor', 'orkestra']);
    expect(rotatedOrder(systems, 3)).toEqual(systems);
    expect(rotatedOrder([], 2)).toEqual([]);
  });

  it('puts every system first once over as many rounds as systems', () => {
    const systems = ['a', 'b', 'c', 'd', 'e'];
    const firsts = systems.map((_, round) => rotatedOrder(systems, round)[0]);
    expect(new Set(firsts)).toEqual(new Set(systems));
  });
});

describe('summarizeRounds', () => {
  it('gives the median and the range of each figure over the rounds', () => {
    const summary = summarizeRounds([
      fakeRound(1100, 1000, 1000),
      fakeRound(900, 1000, 1000),
      fakeRound(1500, 1000, 1000),
    ]);
    expect(summary.orkestra?.convergenceMs).toEqual({ median: 1100, min: 900, max: 1500, n: 3 });
    expect(summary.spreads.fullFloorRatio).toEqual({ median: 1.1, min: 0.9, max: 1.5, n: 3 });
    expect(summary.fullFloor.convergenceMs.median).toBe(1000);
    expect(summary.orkestra?.rssFullMb.median).toBe(150);
    expect(summary.orkestra?.cpuMsPerReconcile.median).toBe(5);
    expect(summary.orkestra?.writesPerNewCr.median).toBe(7);
    expect(summary.orkestra?.crWritesPerNewCr.median).toBe(1);
    expect(summary.orkestra?.eventsPerNewCr.median).toBe(1);
  });

  it('counts the rounds Orkestra was faster than kro in, and leaves a system that never ran null', () => {
    const summary = summarizeRounds([
      fakeRound(900, 1000, 800),
      fakeRound(1100, 1000, 800),
      fakeRound(950, 1000, 800),
    ]);
    expect(summary.fasterThanPeer).toEqual({ rounds: 2, of: 3 });
    expect(summary.fasterThanPeerDefault).toEqual({ rounds: 0, of: 0 });
    expect(summary.peerDefault).toBeNull();
    expect(summary.spreads.peerDefaultRatio.median).toBeNull();
  });
});
