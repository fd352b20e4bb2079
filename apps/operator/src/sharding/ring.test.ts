import { describe, expect, it } from 'vitest';
import { HashRing, hash32, objectKey } from './ring.js';

// Deterministic keys: 10,000 Websites over 20 namespaces.
const keys = Array.from({ length: 10_000 }, (_, i) =>
  objectKey({ group: 'shop.example.com', kind: 'Website', namespace: `team-${i % 20}`, name: `site-${i}` }),
);
const shardsOf = (n: number): string[] => Array.from({ length: n }, (_, i) => `replica-${i}-0a1b2c3d`);

function counts(ring: HashRing): Map<string, number> {
  const result = new Map<string, number>();
  for (const key of keys) {
    const owner = ring.owner(key) ?? '';
    result.set(owner, (result.get(owner) ?? 0) + 1);
  }
  return result;
}

describe('HashRing', () => {
  it('has no owner when empty and one owner for every key with one shard', () => {
    expect(new HashRing([]).owner('a')).toBeUndefined();
    const one = counts(new HashRing(shardsOf(1)));
    expect([...one.entries()]).toEqual([[shardsOf(1)[0], keys.length]]);
  });

  it('is the same ring whatever order the shards are given in', () => {
    const a = new HashRing(shardsOf(4));
    const b = new HashRing([...shardsOf(4)].reverse());
    for (const key of keys.slice(0, 500)) expect(b.owner(key)).toBe(a.owner(key));
  });

  // Balance: with 256 virtual nodes, every shard gets its fair share of 10,000 keys within ±15 %.
  it.each([2, 3, 4])('balances 10,000 keys over %i shards within ±15 % of the fair share', (n) => {
    const result = counts(new HashRing(shardsOf(n)));
    expect(result.size).toBe(n);
    const fair = keys.length / n;
    for (const [, count] of result) {
      expect(count).toBeGreaterThan(fair * 0.85);
      expect(count).toBeLessThan(fair * 1.15);
    }
  });

  // Minimal movement: adding a shard moves keys only to it, and about 1/(n+1) of them; removing a
  // shard moves only its own keys.
  it.each([1, 2, 3])('moves only the new shard’s keys when growing from %i shards', (n) => {
    const before = new HashRing(shardsOf(n));
    const after = new HashRing(shardsOf(n + 1));
    const added = shardsOf(n + 1)[n];
    let moved = 0;
    for (const key of keys) {
      const from = before.owner(key);
      const to = after.owner(key);
      if (from === to) continue;
      moved++;
      expect(to).toBe(added);
    }
    const fair = keys.length / (n + 1);
    expect(moved).toBeGreaterThan(fair * 0.85);
    expect(moved).toBeLessThan(fair * 1.15);
  });

  it.each([2, 3, 4])('moves only the removed shard’s keys when shrinking from %i shards', (n) => {
    const all = shardsOf(n);
    const removed = all[1];
    const before = new HashRing(all);
    const after = new HashRing(all.filter((s) => s !== removed));
    for (const key of keys) {
      const from = before.owner(key);
      if (from !== removed) expect(after.owner(key)).toBe(from);
      else expect(after.owner(key)).not.toBe(removed);
    }
  });

  it('hashes keys to stable unsigned 32-bit numbers', () => {
    expect(hash32('shop.example.com/Website/team-0/site-0')).toBe(
      hash32('shop.example.com/Website/team-0/site-0'),
    );
    expect(hash32('a')).toBeGreaterThanOrEqual(0);
    expect(hash32('a')).toBeLessThan(2 ** 32);
    expect(objectKey({ group: '', kind: 'ConfigMap', name: 'x' })).toBe('/ConfigMap//x');
  });
});
