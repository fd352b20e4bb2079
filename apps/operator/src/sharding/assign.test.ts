import { OrkestraLabel } from '@orkestra/types';
import { describe, expect, it } from 'vitest';
import { LeaseTracker, ShardAssignment, shardedObjectOf } from './assign.js';
import type { ShardLeaseView, ShardedObject } from './assign.js';
import { objectKey } from './ring.js';

const key = (name: string): string =>
  objectKey({ group: 'shop.example.com', kind: 'Website', namespace: 'web', name });
const lease = (holder: string, renewTime: string, durationMs = 15_000): ShardLeaseView => ({
  name: `orkestra-shop-shard-${holder || 'gone'}`,
  holder,
  renewTime,
  durationMs,
});

/** A key the two-shard ring gives to `shard`. */
function keyOwnedBy(assignment: ShardAssignment, shard: string): string {
  for (let i = 0; ; i++) if (assignment.ownerOf(key(`site-${i}`)) === shard) return key(`site-${i}`);
}

describe('LeaseTracker', () => {
  it('counts a Lease alive for its duration after its renewTime last changed, on the observer’s clock', () => {
    const tracker = new LeaseTracker();
    expect(tracker.observe([lease('a', 't1'), lease('b', 't1')], 1_000)).toEqual(['a', 'b']);
    // b keeps renewing, a stops: a is dead 15 s after the sharder last saw it change.
    expect(tracker.observe([lease('a', 't1'), lease('b', 't2')], 15_999)).toEqual(['a', 'b']);
    expect(tracker.observe([lease('a', 't1'), lease('b', 't3')], 16_000)).toEqual(['b']);
    // a renews again: alive again.
    expect(tracker.observe([lease('a', 't4'), lease('b', 't3')], 17_000)).toEqual(['a', 'b']);
  });

  it('ignores the renewTime’s own clock: a renewTime far in the past is alive when it just changed', () => {
    const tracker = new LeaseTracker();
    expect(tracker.observe([lease('a', '1970-01-01T00:00:00Z')], 1_000_000)).toEqual(['a']);
  });

  it('reports a live Lease not seen renewed for half its duration as overdue, until it renews or expires', () => {
    const tracker = new LeaseTracker();
    tracker.observe([lease('a', 't1'), lease('b', 't1')], 0);
    tracker.observe([lease('a', 't2'), lease('b', 't1')], 5_000);
    expect(tracker.overdue([lease('a', 't2'), lease('b', 't1')], 7_499)).toEqual([]);
    expect(tracker.overdue([lease('a', 't2'), lease('b', 't1')], 7_500)).toEqual(['b']);
    // b dead once its duration has passed: no longer overdue (the sharder counts it dead); a, last
    // seen renewed at 5 s, is overdue by then.
    expect(tracker.overdue([lease('a', 't2'), lease('b', 't1')], 15_000)).toEqual(['a']);
    tracker.observe([lease('a', 't3'), lease('b', 't4')], 9_000);
    expect(tracker.overdue([lease('a', 't3'), lease('b', 't4')], 12_000)).toEqual([]);
  });

  it('counts a released Lease (empty holder) dead at once and reports how long it has been dead', () => {
    const tracker = new LeaseTracker();
    const released = { ...lease('', 't9'), name: 'orkestra-shop-shard-a' };
    expect(tracker.observe([released], 5_000)).toEqual([]);
    expect(tracker.deadForMs(released, 65_000)).toBe(60_000);
    const expired = lease('b', 't1');
    tracker.observe([expired], 0);
    expect(tracker.deadForMs(expired, 10_000)).toBe(0);
    expect(tracker.deadForMs(expired, 75_000)).toBe(60_000);
  });
});

describe('ShardAssignment.decide', () => {
  const two = new ShardAssignment(['a', 'b']);
  const object = (name: string, labels: Record<string, string> = {}): ShardedObject =>
    shardedObjectOf(name, { labels });

  it('assigns an unassigned CR to the ring’s choice', () => {
    const k = keyOwnedBy(two, 'b');
    expect(two.decide(object(k))).toEqual({
      action: 'assign',
      shard: 'b',
      labels: { [OrkestraLabel.Shard]: 'b' },
    });
  });

  it('leaves a CR on the ring’s choice alone', () => {
    const k = keyOwnedBy(two, 'a');
    expect(two.decide(object(k, { [OrkestraLabel.Shard]: 'a' }))).toEqual({ action: 'none' });
  });

  it('never moves a CR from one live shard to another: it asks the old one to drain first', () => {
    const k = keyOwnedBy(two, 'b');
    const onA = object(k, { [OrkestraLabel.Shard]: 'a' });
    expect(two.decide(onA)).toEqual({
      action: 'drain',
      from: 'a',
      labels: { [OrkestraLabel.Drain]: 'true' },
    });
    // While draining, nothing: the new shard's label waits for a's acknowledgement.
    expect(two.decide(object(k, { [OrkestraLabel.Shard]: 'a', [OrkestraLabel.Drain]: 'true' }))).toEqual({
      action: 'none',
    });
    // a acknowledged (both labels gone): now b.
    expect(two.decide(object(k))).toMatchObject({ action: 'assign', shard: 'b' });
  });

  it('moves the CRs of a dead shard at once (its Lease expired: it stopped before)', () => {
    const onlyB = new ShardAssignment(['b']);
    const k = keyOwnedBy(two, 'a');
    expect(onlyB.decide(object(k, { [OrkestraLabel.Shard]: 'a' }))).toMatchObject({
      action: 'assign',
      shard: 'b',
    });
    // A drain asked of the shard that then died is cleared with the move.
    expect(onlyB.decide(object(k, { [OrkestraLabel.Shard]: 'a', [OrkestraLabel.Drain]: 'true' }))).toEqual({
      action: 'assign',
      shard: 'b',
      labels: { [OrkestraLabel.Shard]: 'b', [OrkestraLabel.Drain]: null },
    });
  });

  it('withdraws a drain when the ring chooses the current shard again', () => {
    const k = keyOwnedBy(two, 'a');
    expect(two.decide(object(k, { [OrkestraLabel.Shard]: 'a', [OrkestraLabel.Drain]: 'true' }))).toEqual({
      action: 'undrain',
      labels: { [OrkestraLabel.Drain]: null },
    });
  });

  it('keeps a CR being deleted on its live shard, which runs the deletion path', () => {
    const k = keyOwnedBy(two, 'b');
    expect(
      two.decide(
        shardedObjectOf(k, {
          labels: { [OrkestraLabel.Shard]: 'a' },
          deletionTimestamp: '2026-12-05T00:00:00Z',
        }),
      ),
    ).toEqual({ action: 'none' });
  });

  it('does nothing without live shards', () => {
    expect(new ShardAssignment([]).decide(object(key('x')))).toEqual({ action: 'none' });
  });

  // Over many CRs and every membership change between 1 and 4 shards: a CR held by a live shard
  // never gets another shard's label in one step (no double owner), and following the decisions
  // (with drains acknowledged) ends with every CR on the ring's choice.
  it('never hands a CR from a live shard to another without a drain, and converges', () => {
    const shards = ['s0', 's1', 's2', 's3'];
    const labels = new Map<string, Record<string, string>>();
    const names = Array.from({ length: 2_000 }, (_, i) => key(`site-${i}`));
    for (const n of names) labels.set(n, {});
    const memberships = [[0], [0, 1], [0, 1, 2], [0, 1, 2, 3], [1, 2, 3], [1, 3], [3], [0, 1, 2, 3]];
    for (const members of memberships) {
      const assignment = new ShardAssignment(members.map((i) => shards[i] ?? ''));
      for (let round = 0; round < 3; round++) {
        for (const n of names) {
          const current = labels.get(n) ?? {};
          const action = assignment.decide(shardedObjectOf(n, { labels: current }));
          if (action.action === 'none') continue;
          const holder = current[OrkestraLabel.Shard];
          const next = { ...current };
          for (const [k, v] of Object.entries(action.labels)) {
            if (v == null) delete next[k];
            else next[k] = v;
          }
          if (holder != null && assignment.live.has(holder)) expect(next[OrkestraLabel.Shard]).toBe(holder); // a live holder keeps it until it acknowledges
          // The drained shard acknowledges at its next reconcile: both labels removed.
          if (next[OrkestraLabel.Drain] != null) {
            delete next[OrkestraLabel.Drain];
            delete next[OrkestraLabel.Shard];
          }
          labels.set(n, next);
        }
      }
      for (const n of names) expect(labels.get(n)?.[OrkestraLabel.Shard]).toBe(assignment.ownerOf(n));
    }
  });
});

describe('LeaseTracker.nextExpiryMs', () => {
  it('is the time left before the first live Lease expires unrenewed; nothing for released or dead ones', () => {
    const tracker = new LeaseTracker();
    const lease = (name: string, holder: string, renewTime: string) => ({
      name,
      holder,
      renewTime,
      durationMs: 6000,
    });
    tracker.observe([lease('a', 'a', 't1'), lease('b', 'b', 't1'), lease('c', '', 't1')], 0);
    tracker.observe([lease('a', 'a', 't2'), lease('b', 'b', 't1'), lease('c', '', 't1')], 2000);
    const now = [lease('a', 'a', 't2'), lease('b', 'b', 't1'), lease('c', '', 't1')];
    expect(tracker.nextExpiryMs(now, 2500)).toBe(3500); // b, seen renewing at 0
    expect(tracker.nextExpiryMs(now, 7000)).toBe(1000); // b dead; a, seen renewing at 2000
    expect(tracker.nextExpiryMs(now, 9000)).toBeUndefined();
  });
});
