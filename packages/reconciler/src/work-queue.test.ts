import { describe, expect, it } from 'vitest';
import { ManualClock, flushMacrotask } from './clock.js';
import { Priority, WorkQueue } from './work-queue.js';

function drainReady(queue: WorkQueue): string[] {
  const keys: string[] = [];
  for (let key = queue.tryGet(); key !== undefined; key = queue.tryGet()) keys.push(key);
  return keys;
}

describe('WorkQueue basics', () => {
  it('deduplicates identical keys', async () => {
    const queue = new WorkQueue({ clock: new ManualClock() });
    queue.add('a');
    queue.add('a');
    queue.add('b');
    queue.add('a');
    expect(queue.len()).toBe(2);
    expect(await queue.get()).toBe('a');
    expect(await queue.get()).toBe('b');
    expect(queue.len()).toBe(0);
    expect(queue.stats().adds).toBe(4);
  });

  it('serves keys in FIFO order within a lane', () => {
    const queue = new WorkQueue({ clock: new ManualClock() });
    for (const key of ['c', 'a', 'b']) queue.add(key);
    expect(drainReady(queue)).toEqual(['c', 'a', 'b']);
  });

  it('never hands a key to two workers at once', async () => {
    const queue = new WorkQueue({ clock: new ManualClock() });
    queue.add('a');
    const first = await queue.get();
    expect(first).toBe('a');
    queue.add('a');
    expect(queue.isProcessing('a')).toBe(true);
    expect(queue.tryGet()).toBeUndefined();
    expect(queue.len()).toBe(0);
    const second = queue.get();
    let secondValue: string | undefined | null = null;
    void second.then((v) => (secondValue = v));
    await flushMacrotask();
    expect(secondValue).toBeNull();
    queue.done('a');
    expect(await second).toBe('a');
  });

  it('processes a key re-added while processing exactly once more after done', () => {
    const queue = new WorkQueue({ clock: new ManualClock() });
    queue.add('a');
    expect(queue.tryGet()).toBe('a');
    queue.add('a');
    queue.add('a');
    queue.add('a', Priority.Low);
    queue.done('a');
    expect(drainReady(queue)).toEqual(['a']);
    queue.done('a');
    expect(drainReady(queue)).toEqual([]);
    expect(queue.stats()).toMatchObject({ dirty: 0, processing: 0, depth: 0 });
  });

  it('done of a key nobody holds does nothing', () => {
    const queue = new WorkQueue({ clock: new ManualClock() });
    queue.add('a');
    queue.done('a');
    expect(queue.len()).toBe(1);
    expect(queue.stats().processing).toBe(0);
  });

  it('resolves waiting gets in arrival order as keys arrive', async () => {
    const queue = new WorkQueue({ clock: new ManualClock() });
    const g1 = queue.get();
    const g2 = queue.get();
    queue.add('x');
    queue.add('y');
    expect(await g1).toBe('x');
    expect(await g2).toBe('y');
    expect(queue.stats().processing).toBe(2);
  });
});

describe('WorkQueue priority', () => {
  it('serves the normal lane before the low lane', () => {
    const queue = new WorkQueue({ clock: new ManualClock() });
    queue.add('low1', Priority.Low);
    queue.add('low2', Priority.Low);
    queue.add('n1');
    queue.add('low3', Priority.Low);
    queue.add('n2');
    expect(drainReady(queue)).toEqual(['n1', 'n2', 'low1', 'low2', 'low3']);
  });

  it('raises a dirty low key to normal but never lowers a normal key', () => {
    const queue = new WorkQueue({ clock: new ManualClock() });
    queue.add('a', Priority.Low);
    queue.add('b', Priority.Low);
    queue.add('c');
    queue.add('c', Priority.Low);
    queue.add('b');
    expect(drainReady(queue)).toEqual(['c', 'b', 'a']);
  });

  it('serves the high lane (child readiness transitions) before a normal backlog', () => {
    const queue = new WorkQueue({ clock: new ManualClock() });
    queue.add('n1');
    queue.add('low1', Priority.Low);
    queue.add('n2');
    queue.add('h1', Priority.High);
    queue.add('n3');
    queue.add('h2', Priority.High);
    expect(drainReady(queue)).toEqual(['h1', 'h2', 'n1', 'n2', 'n3', 'low1']);
  });

  it('moves a waiting normal or low key up to the high lane, never down', () => {
    const queue = new WorkQueue({ clock: new ManualClock() });
    queue.add('a');
    queue.add('b', Priority.Low);
    queue.add('c');
    queue.add('c', Priority.High);
    queue.add('b', Priority.High);
    queue.add('c');
    queue.add('c', Priority.Low);
    expect(queue.len()).toBe(3);
    expect(drainReady(queue)).toEqual(['c', 'b', 'a']);
  });

  it('re-queues a processing key in the highest lane it was added with', () => {
    const queue = new WorkQueue({ clock: new ManualClock() });
    queue.add('a');
    expect(queue.tryGet()).toBe('a');
    queue.add('a', Priority.Low);
    queue.add('z', Priority.Low);
    queue.add('a');
    queue.done('a');
    expect(drainReady(queue)).toEqual(['a', 'z']);
  });
});

describe('WorkQueue delays and rate limiting', () => {
  it('addAfter adds once the delay passes', () => {
    const clock = new ManualClock();
    const queue = new WorkQueue({ clock });
    queue.addAfter('a', 100);
    expect(queue.len()).toBe(0);
    expect(queue.stats().delayed).toBe(1);
    clock.advance(99);
    expect(queue.len()).toBe(0);
    clock.advance(1);
    expect(queue.len()).toBe(1);
    expect(queue.stats().delayed).toBe(0);
  });

  it('keeps one timer per key and the earliest wins', () => {
    const clock = new ManualClock();
    const queue = new WorkQueue({ clock });
    queue.addAfter('a', 500);
    queue.addAfter('a', 100);
    queue.addAfter('a', 300);
    expect(clock.pendingTimers).toBe(1);
    clock.advance(100);
    expect(drainReady(queue)).toEqual(['a']);
    queue.done('a');
    clock.advance(1000);
    expect(queue.len()).toBe(0);
  });

  it('addAfter with a non-positive delay adds immediately', () => {
    const queue = new WorkQueue({ clock: new ManualClock() });
    queue.addAfter('a', 0);
    expect(queue.len()).toBe(1);
  });

  it('doubles the retry delay per failure from the initial value up to the cap', () => {
    const clock = new ManualClock();
    const queue = new WorkQueue({ clock, initialBackoffMs: 5, maxBackoffMs: 1_000_000 });
    const delays: number[] = [];
    for (let i = 0; i < 22; i++) {
      const start = clock.now();
      queue.addRateLimited('a');
      const due = clock.nextDueAt;
      expect(due).toBeDefined();
      delays.push((due ?? 0) - start);
      clock.advance((due ?? 0) - start);
      expect(queue.tryGet()).toBe('a');
      queue.done('a');
    }
    expect(delays.slice(0, 5)).toEqual([5, 10, 20, 40, 80]);
    expect(delays[17]).toBe(655_360);
    expect(delays.slice(18)).toEqual([1_000_000, 1_000_000, 1_000_000, 1_000_000]);
    expect(queue.numRequeues('a')).toBe(22);
    expect(queue.stats().retries).toBe(22);
  });

  it('tracks backoff per key and forget resets it', () => {
    const clock = new ManualClock();
    const queue = new WorkQueue({ clock, initialBackoffMs: 10, maxBackoffMs: 1000 });
    queue.addRateLimited('a');
    queue.addRateLimited('a');
    queue.addRateLimited('b');
    expect(queue.numRequeues('a')).toBe(2);
    expect(queue.numRequeues('b')).toBe(1);
    queue.forget('a');
    expect(queue.numRequeues('a')).toBe(0);
    expect(queue.backoffFor(queue.numRequeues('a'))).toBe(10);
    expect(queue.backoffFor(50)).toBe(1000);
    expect(queue.backoffFor(10_000)).toBe(1000);
  });

  it('uses the configured backoff', () => {
    const clock = new ManualClock();
    const queue = new WorkQueue({ clock, initialBackoffMs: 100, maxBackoffMs: 250 });
    queue.addRateLimited('a');
    expect(clock.nextDueAt).toBe(100);
    expect([queue.backoffFor(1), queue.backoffFor(2)]).toEqual([200, 250]);
  });

  it('rejects an inconsistent backoff configuration', () => {
    expect(() => new WorkQueue({ initialBackoffMs: 10, maxBackoffMs: 5 })).toThrow(RangeError);
    expect(() => new WorkQueue({ initialBackoffMs: 0 })).toThrow(RangeError);
  });
});

describe('WorkQueue maxDepth', () => {
  it('drops new keys once maxDepth keys are dirty and counts them', () => {
    const queue = new WorkQueue({ clock: new ManualClock(), maxDepth: 2 });
    expect(queue.add('a')).toBe(true);
    expect(queue.add('b')).toBe(true);
    expect(queue.add('c')).toBe(false);
    expect(queue.add('d', Priority.Low)).toBe(false);
    expect(queue.add('a')).toBe(true);
    expect(queue.len()).toBe(2);
    expect(queue.stats().dropped).toBe(2);
    expect(drainReady(queue)).toEqual(['a', 'b']);
  });

  it('still accepts a key that is being processed', () => {
    const queue = new WorkQueue({ clock: new ManualClock(), maxDepth: 1 });
    queue.add('a');
    expect(queue.tryGet()).toBe('a');
    queue.add('b');
    expect(queue.add('a')).toBe(true);
    expect(queue.stats().dirty).toBe(2);
    expect(queue.stats().dropped).toBe(0);
  });

  it('never drops timed adds or retries', () => {
    const clock = new ManualClock();
    const queue = new WorkQueue({ clock, maxDepth: 1 });
    queue.add('a');
    queue.addAfter('timer', 10);
    queue.addRateLimited('retry');
    queue.addAfter('now', 0);
    clock.advance(10);
    expect(queue.stats().dropped).toBe(0);
    expect(drainReady(queue).sort()).toEqual(['a', 'now', 'retry', 'timer']);
  });

  it('setMaxDepth applies to later adds and never evicts queued keys', () => {
    const queue = new WorkQueue({ clock: new ManualClock() });
    for (const key of ['a', 'b', 'c']) queue.add(key);
    queue.setMaxDepth(1);
    expect(queue.maxDepth).toBe(1);
    expect(queue.add('d')).toBe(false);
    expect(queue.len()).toBe(3);
    queue.setMaxDepth(0);
    expect(queue.add('d')).toBe(true);
    expect(queue.stats().dropped).toBe(1);
  });
});

describe('WorkQueue shutdown', () => {
  it('wakes every waiting get with undefined and refuses adds', async () => {
    const clock = new ManualClock();
    const queue = new WorkQueue({ clock });
    const waiting = [queue.get(), queue.get()];
    queue.addAfter('later', 100);
    queue.shutDown();
    expect(await Promise.all(waiting)).toEqual([undefined, undefined]);
    expect(queue.add('a')).toBe(false);
    expect(await queue.get()).toBeUndefined();
    expect(clock.pendingTimers).toBe(0);
    clock.advance(1000);
    expect(queue.len()).toBe(0);
  });

  it('shutDown notifies ready listeners so consumers stop', () => {
    const queue = new WorkQueue({ clock: new ManualClock() });
    let calls = 0;
    queue.onReady(() => calls++);
    queue.shutDown();
    expect(calls).toBe(1);
  });

  it('shutDownWithDrain resolves once every processing key is done', async () => {
    const queue = new WorkQueue({ clock: new ManualClock() });
    queue.add('a');
    queue.add('b');
    queue.add('c');
    expect(queue.tryGet()).toBe('a');
    expect(queue.tryGet()).toBe('b');
    let drained = false;
    const drain = queue.shutDownWithDrain().then(() => (drained = true));
    expect(queue.tryGet()).toBeUndefined();
    queue.done('a');
    await flushMacrotask();
    expect(drained).toBe(false);
    queue.done('b');
    await drain;
    expect(drained).toBe(true);
  });

  it('shutDownWithDrain resolves at once when nothing is processing', async () => {
    const queue = new WorkQueue({ clock: new ManualClock() });
    await expect(queue.shutDownWithDrain()).resolves.toBeUndefined();
  });
});

describe('WorkQueue onTake', () => {
  it('reports how long a key waited since it became dirty', () => {
    const clock = new ManualClock();
    const taken: [string, number][] = [];
    const queue = new WorkQueue({ clock, onTake: (key, ms) => taken.push([key, ms]) });
    queue.add('a');
    clock.advance(30);
    queue.add('a');
    queue.add('b');
    clock.advance(20);
    expect(drainReady(queue)).toEqual(['a', 'b']);
    // Re-added while processing: waits from that add, not from the first one.
    queue.add('a');
    clock.advance(5);
    queue.done('a');
    clock.advance(5);
    queue.tryGet();
    expect(taken).toEqual([
      ['a', 50],
      ['b', 20],
      ['a', 10],
    ]);
  });
});

describe('WorkQueue onTake lane', () => {
  it('reports the lane a key was taken from: a low add promoted by a normal one counts as normal', () => {
    const lanes: [string, Priority][] = [];
    const queue = new WorkQueue({ onTake: (key, _ms, priority) => lanes.push([key, priority]) });
    queue.add('resync-only', Priority.Low);
    queue.add('promoted', Priority.Low);
    queue.add('promoted', Priority.Normal);
    queue.add('event', Priority.High);
    drainReady(queue);
    expect(lanes).toEqual([
      ['event', Priority.High],
      ['promoted', Priority.Normal],
      ['resync-only', Priority.Low],
    ]);
  });
});

describe('WorkQueue onAdd, onRetry, onDrop', () => {
  it('reports every accepted add (deduplicated ones too), every retry and every dropped add', () => {
    const clock = new ManualClock();
    const events: string[] = [];
    const queue = new WorkQueue({
      clock,
      maxDepth: 1,
      onAdd: (key) => events.push(`add ${key}`),
      onRetry: (key) => events.push(`retry ${key}`),
      onDrop: (key) => events.push(`drop ${key}`),
    });
    queue.add('a');
    queue.add('a');
    queue.add('b');
    queue.addRateLimited('c');
    clock.advance(5);
    expect(events).toEqual(['add a', 'add a', 'drop b', 'retry c', 'add c']);
    expect(queue.stats()).toMatchObject({ adds: 3, retries: 1, dropped: 1 });
  });
});

describe('WorkQueue onReady', () => {
  it('notifies listeners when a key becomes ready and stops after unsubscribe', () => {
    const queue = new WorkQueue({ clock: new ManualClock() });
    let calls = 0;
    const off = queue.onReady(() => calls++);
    queue.add('a');
    queue.add('a');
    expect(calls).toBe(1);
    off();
    queue.add('b');
    expect(calls).toBe(1);
  });
});

describe('WorkQueue concurrency property', () => {
  it('with many workers and random adds, no key is ever held twice and every add after a take is served', async () => {
    // Deterministic pseudo-random sequence.
    let seed = 42;
    const random = (): number => {
      seed = (seed * 1_103_515_245 + 12_345) % 2 ** 31;
      return seed / 2 ** 31;
    };
    const queue = new WorkQueue({ clock: new ManualClock() });
    const keys = ['a', 'b', 'c', 'd', 'e'];
    const held = new Set<string>();
    const pendingSinceTake = new Map<string, number>();
    let processed = 0;
    const worker = async (): Promise<void> => {
      for (;;) {
        const key = await queue.get();
        if (key === undefined) return;
        expect(held.has(key)).toBe(false);
        held.add(key);
        pendingSinceTake.set(key, 0);
        for (let i = 0; i < Math.floor(random() * 3); i++) await Promise.resolve();
        held.delete(key);
        processed++;
        queue.done(key);
      }
    };
    const workers = [worker(), worker(), worker()];
    for (let i = 0; i < 500; i++) {
      const key = keys[Math.floor(random() * keys.length)] ?? 'a';
      queue.add(key);
      pendingSinceTake.set(key, (pendingSinceTake.get(key) ?? 0) + 1);
      if (random() < 0.3) await Promise.resolve();
    }
    for (let i = 0; i < 50 && (queue.len() > 0 || queue.stats().processing > 0); i++) await flushMacrotask();
    expect(queue.stats()).toMatchObject({ dirty: 0, processing: 0, depth: 0 });
    expect(processed).toBeGreaterThan(0);
    expect(processed).toBeLessThanOrEqual(500);
    // Every key's last add happened before its last take: nothing was lost.
    for (const count of pendingSinceTake.values()) expect(count).toBe(0);
    queue.shutDown();
    await Promise.all(workers);
  });
});

describe('WorkQueue retry policy (docs/reference/katalog.md §20.1)', () => {
  /** fail takes the key, fails it, and returns when (relative to now) it is ready again, or undefined. */
  function failAndWait(
    queue: WorkQueue,
    clock: ManualClock,
    key: string,
    limitMs = 10_000_000,
  ): number | undefined {
    expect(queue.tryGet()).toBe(key);
    const scheduled = queue.addRateLimited(key);
    queue.done(key);
    if (!scheduled) return undefined;
    const start = clock.now();
    for (let waited = 0; waited <= limitMs; waited += 1) {
      if (queue.len() > 0) return clock.now() - start;
      clock.advance(1);
    }
    return undefined;
  }

  it('waits initial × multiplier^(n-1) before the n-th retry, capped at max', () => {
    const clock = new ManualClock();
    const queue = new WorkQueue({ clock, initialBackoffMs: 500, maxBackoffMs: 4000, backoffMultiplier: 3 });
    queue.add('a');
    const delays = [1, 2, 3, 4].map(() => failAndWait(queue, clock, 'a'));
    expect(delays).toEqual([500, 1500, 4000, 4000]);
  });

  it('stops at maxAttempts: no retry is scheduled after the last attempt, until forget', () => {
    const clock = new ManualClock();
    const queue = new WorkQueue({ clock, initialBackoffMs: 100, maxBackoffMs: 1000, maxAttempts: 3 });
    queue.add('a');
    expect(queue.isLastAttempt('a')).toBe(false);
    expect(failAndWait(queue, clock, 'a')).toBe(100);
    expect(failAndWait(queue, clock, 'a')).toBe(200);
    expect(queue.isLastAttempt('a')).toBe(true);
    expect(failAndWait(queue, clock, 'a')).toBeUndefined();
    clock.advance(60_000);
    expect(queue.len()).toBe(0);
    expect(queue.stats().retries).toBe(2);
    // forget (a success, or a new generation) restarts the budget.
    queue.forget('a');
    queue.add('a');
    expect(failAndWait(queue, clock, 'a')).toBe(100);
  });

  it('maxAttempts 0 retries forever', () => {
    const clock = new ManualClock();
    const queue = new WorkQueue({ clock, initialBackoffMs: 1, maxBackoffMs: 2 });
    queue.add('a');
    for (let i = 0; i < 20; i++) expect(failAndWait(queue, clock, 'a')).toBeDefined();
  });
});

describe('WorkQueue requeueAfter (docs/reference/katalog.md §20.2)', () => {
  it('adds the key after its delay', () => {
    const clock = new ManualClock();
    const queue = new WorkQueue({ clock });
    queue.requeueAfter('a', 2000);
    clock.advance(1999);
    expect(queue.len()).toBe(0);
    clock.advance(1);
    expect(drainReady(queue)).toEqual(['a']);
  });

  it('a later requeueAfter replaces the timer, also with a later time', () => {
    const clock = new ManualClock();
    const queue = new WorkQueue({ clock });
    queue.requeueAfter('a', 1000);
    queue.requeueAfter('a', 5000);
    expect(queue.requeueDueAt('a')).toBe(5000);
    clock.advance(4999);
    expect(queue.len()).toBe(0);
    clock.advance(1);
    expect(drainReady(queue)).toEqual(['a']);
    expect(queue.stats().requeues).toBe(0);
  });

  it('any newer event (add) cancels it; undefined cancels it', () => {
    const clock = new ManualClock();
    const queue = new WorkQueue({ clock });
    queue.requeueAfter('a', 1000);
    queue.requeueAfter('b', 1000);
    queue.add('a');
    expect(drainReady(queue)).toEqual(['a']);
    queue.done('a');
    queue.requeueAfter('b', undefined);
    clock.advance(10_000);
    expect(queue.len()).toBe(0);
  });

  it('leaves addAfter timers alone', () => {
    const clock = new ManualClock();
    const queue = new WorkQueue({ clock });
    queue.addAfter('a', 1000);
    queue.requeueAfter('a', 3000);
    queue.requeueAfter('a', undefined);
    clock.advance(1000);
    expect(drainReady(queue)).toEqual(['a']);
  });
});
