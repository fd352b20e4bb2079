import { describe, expect, it } from 'vitest';
import { ManualClock } from './clock.js';
import { Resync, phaseOf } from './resync.js';
import type { ResyncItem } from './resync.js';
import type { Priority } from './work-queue.js';

function recorder(clock: ManualClock) {
  const adds: { key: string; priority: Priority | undefined; at: number }[] = [];
  return {
    adds,
    queue: {
      add: (key: string, priority?: Priority) => {
        adds.push({ key, priority, at: clock.now() });
        return true;
      },
    },
  };
}

function uid(i: number): string {
  const hex = i.toString(16).padStart(12, '0');
  return `5f0c8a1e-3b2d-4c6e-9a7f-${hex}`;
}

describe('phaseOf', () => {
  it('is stable and within the interval', () => {
    for (let i = 0; i < 100; i++) {
      const p = phaseOf(uid(i), 60_000);
      expect(p).toBe(phaseOf(uid(i), 60_000));
      expect(p).toBeGreaterThanOrEqual(0);
      expect(p).toBeLessThan(60_000);
    }
  });

  it('spreads sequential UIDs evenly over the interval', () => {
    const buckets = Array.from({ length: 10 }, () => 0);
    for (let i = 0; i < 10_000; i++) {
      const bucket = Math.floor(phaseOf(uid(i), 1000) / 100);
      buckets[bucket] = (buckets[bucket] ?? 0) + 1;
    }
    // Expected 1000 per bucket; a uniform hash stays well within ±10 %.
    for (const count of buckets) {
      expect(count).toBeGreaterThan(900);
      expect(count).toBeLessThan(1100);
    }
  });
});

describe('Resync', () => {
  it('adds each key once per interval at its phase, at low priority', () => {
    const clock = new ManualClock();
    const { adds, queue } = recorder(clock);
    const items: ResyncItem[] = [0, 1, 2, 3, 4].map((i) => ({ key: `ns/o${i}`, uid: uid(i) }));
    const resync = new Resync({ intervalMs: 10_000, items: () => items, queue, clock });
    resync.start();
    clock.advance(10_000 - 1);
    expect(adds).toHaveLength(5);
    expect(new Set(adds.map((a) => a.key)).size).toBe(5);
    expect(adds.every((a) => a.priority === 'low')).toBe(true);
    for (const add of adds) {
      const item = items.find((i) => i.key === add.key);
      expect(add.at).toBe(phaseOf(item?.uid ?? '', 10_000));
    }
    clock.advance(1 + 10_000 - 1);
    expect(adds).toHaveLength(10);
    // Same phase in the second cycle: exactly one interval later.
    for (const second of adds.slice(5)) {
      const firstAdd = adds.find((a) => a.key === second.key);
      expect(second.at - (firstAdd?.at ?? 0)).toBe(10_000);
    }
    expect(resync.cycles).toBe(2);
    expect(resync.added).toBe(10);
  });

  it('skips a key whose last change-caused success is younger than the interval, never one older', () => {
    const clock = new ManualClock();
    const { adds, queue } = recorder(clock);
    const items: ResyncItem[] = [0, 1, 2, 3, 4, 5, 6, 7].map((i) => ({ key: `ns/o${i}`, uid: uid(i) }));
    const phase = (key: string): number => phaseOf(items.find((i) => i.key === key)?.uid ?? '', 10_000);
    // o0–o3 finished a reconcile 1 ms / 9 999 ms before their turn, o4–o7 exactly one interval before.
    const lastSuccessAt = (key: string): number => {
      const index = Number(key.slice('ns/o'.length));
      return phase(key) - (index < 2 ? 1 : index < 4 ? 9_999 : 10_000);
    };
    const resync = new Resync({ intervalMs: 10_000, items: () => items, queue, clock, lastSuccessAt });
    resync.start();
    clock.advance(10_000 - 1);
    expect(adds.map((a) => a.key).sort()).toEqual(['ns/o4', 'ns/o5', 'ns/o6', 'ns/o7']);
    expect(resync.skipped).toBe(4);
    expect(resync.added).toBe(4);
  });

  it('reads the items at each cycle start', () => {
    const clock = new ManualClock();
    const { adds, queue } = recorder(clock);
    const items: ResyncItem[] = [{ key: 'a', uid: uid(1) }];
    const resync = new Resync({ intervalMs: 1000, items: () => items, queue, clock });
    resync.start();
    items.push({ key: 'b', uid: uid(2) });
    clock.advance(999);
    expect(adds.map((a) => a.key)).toEqual(['a']);
    clock.advance(1000);
    expect(adds.map((a) => a.key).sort()).toEqual(['a', 'a', 'b']);
  });

  it('applies a changed interval from the next cycle', () => {
    const clock = new ManualClock();
    const { adds, queue } = recorder(clock);
    const item = { key: 'a', uid: uid(7) };
    const phase1 = phaseOf(item.uid, 1000);
    const phase2 = phaseOf(item.uid, 4000);
    const resync = new Resync({ intervalMs: 1000, items: () => [item], queue, clock });
    resync.start();
    resync.setInterval(4000);
    expect(resync.intervalMs).toBe(4000);
    clock.advance(999);
    expect(adds.map((a) => a.at)).toEqual([phase1]);
    clock.advance(1 + 4000);
    expect(adds.map((a) => a.at)).toEqual([phase1, 1000 + phase2]);
    clock.advance(4000);
    expect(adds.map((a) => a.at)).toEqual([phase1, 1000 + phase2, 5000 + phase2]);
  });

  it('does nothing with R = 0, and setting 0 stops after the current cycle', () => {
    const clock = new ManualClock();
    const { adds, queue } = recorder(clock);
    const items = [{ key: 'a', uid: uid(3) }];
    const disabled = new Resync({ intervalMs: 0, items: () => items, queue, clock });
    disabled.start();
    clock.advance(1_000_000);
    expect(adds).toHaveLength(0);
    expect(clock.pendingTimers).toBe(0);

    const resync = new Resync({ intervalMs: 1000, items: () => items, queue, clock });
    resync.start();
    resync.setInterval(0);
    clock.advance(10_000);
    expect(adds).toHaveLength(1);
    expect(clock.pendingTimers).toBe(0);
    resync.setInterval(500);
    clock.advance(499);
    expect(adds).toHaveLength(2);
  });

  it('stop cancels everything', () => {
    const clock = new ManualClock();
    const { adds, queue } = recorder(clock);
    const resync = new Resync({ intervalMs: 1000, items: () => [{ key: 'a', uid: uid(9) }], queue, clock });
    resync.start();
    resync.stop();
    clock.advance(10_000);
    expect(adds).toHaveLength(0);
    expect(clock.pendingTimers).toBe(0);
  });

  it('spreads a large population evenly within a cycle', () => {
    const clock = new ManualClock();
    const { adds, queue } = recorder(clock);
    const items = Array.from({ length: 2000 }, (_, i) => ({ key: `k${i}`, uid: uid(i) }));
    new Resync({ intervalMs: 1000, items: () => items, queue, clock }).start();
    clock.advance(999);
    expect(adds).toHaveLength(2000);
    const perQuarter = [0, 0, 0, 0];
    for (const add of adds) perQuarter[Math.floor(add.at / 250)]!++;
    for (const n of perQuarter) expect(Math.abs(n - 500)).toBeLessThan(60);
  });
});
