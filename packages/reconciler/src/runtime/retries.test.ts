import { describe, expect, it } from 'vitest';
import { ManualClock } from '../clock.js';
import { WorkQueue } from '../work-queue.js';
import { ExhaustedRetries } from './retries.js';

/** One controller's retry path in miniature: the queue's budget and the exhausted set, on a manual clock. */
function setup() {
  const clock = new ManualClock();
  const queue = new WorkQueue({ clock, initialBackoffMs: 1000, maxBackoffMs: 60_000, maxAttempts: 2 });
  const exhausted = new ExhaustedRetries(queue);
  /** attempt takes the key, fails it and records exhaustion as the controller does; true when a retry was scheduled. */
  const fail = (key: string, generation: number): boolean => {
    expect(queue.tryGet()).toBe(key);
    const scheduled = queue.addRateLimited(key);
    queue.done(key);
    if (!scheduled) exhausted.exhausted(key, generation);
    return scheduled;
  };
  return { clock, queue, exhausted, fail };
}

describe('ExhaustedRetries (docs/reference/katalog.md §20.1)', () => {
  it('holds the CR at the failed generation, also across resyncs', () => {
    const { clock, queue, exhausted, fail } = setup();
    queue.add('ns/a');
    expect(fail('ns/a', 1)).toBe(true);
    clock.advance(1000);
    expect(fail('ns/a', 1)).toBe(false);
    clock.advance(600_000);
    expect(queue.len()).toBe(0);
    // A resync adds the key: the reconcile is skipped.
    queue.add('ns/a');
    expect(exhausted.holds('ns/a', 1, false)).toBe(true);
  });

  it('restarts the budget on a new generation: the first retry waits initial again', () => {
    const { clock, queue, exhausted, fail } = setup();
    queue.add('ns/a');
    fail('ns/a', 1);
    clock.advance(1000);
    fail('ns/a', 1);
    queue.add('ns/a');
    expect(exhausted.holds('ns/a', 2, false)).toBe(false);
    expect(fail('ns/a', 2)).toBe(true);
    expect(clock.nextDueAt).toBe(clock.now() + 1000);
    expect(exhausted.holds('ns/a', 2, false)).toBe(false);
  });

  it('restarts on a watched input change and on deletion, not on a resync', () => {
    const { clock, queue, exhausted, fail } = setup();
    queue.add('ns/a');
    fail('ns/a', 1);
    clock.advance(1000);
    fail('ns/a', 1);
    exhausted.inputChanged('ns/a');
    expect(exhausted.holds('ns/a', 1, false)).toBe(false);
    expect(queue.numRequeues('ns/a')).toBe(0);
    exhausted.exhausted('ns/a', 1);
    expect(exhausted.holds('ns/a', 1, true)).toBe(false);
  });
});
