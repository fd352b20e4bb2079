import { ConditionReason, OrkestraError, ProviderError, TerminalError } from '@orkestra/types';
import { describe, expect, it } from 'vitest';
import { ManualClock, flushMacrotask } from './clock.js';
import { Dispatcher, requestFromKey } from './dispatcher.js';
import { ReconcileTimeoutError, classifyReconcileError } from './reconcile-error.js';
import type { ReconcileContext, ReconcileReport, ReconcileRequest, ReconcileResult } from './dispatcher.js';
import { WorkQueue } from './work-queue.js';

function retryable(message: string): OrkestraError {
  return new OrkestraError(message, { code: ConditionReason.ApplyFailed });
}

interface Call {
  readonly request: ReconcileRequest;
  readonly ctx: ReconcileContext;
  resolve(result?: ReconcileResult): void;
  reject(error: unknown): void;
}

/** A reconcile whose every call waits until the test settles it. */
function controllable(): {
  calls: Call[];
  reconcile: (r: ReconcileRequest, c: ReconcileContext) => Promise<ReconcileResult>;
} {
  const calls: Call[] = [];
  return {
    calls,
    reconcile: (request, ctx) =>
      new Promise<ReconcileResult>((resolve, reject) => {
        calls.push({ request, ctx, resolve: (r) => resolve(r ?? {}), reject });
      }),
  };
}

function setup(options: { workers?: number; timeoutMs?: number } = {}) {
  const clock = new ManualClock();
  const queue = new WorkQueue({ clock });
  const { calls, reconcile } = controllable();
  const reports: ReconcileReport[] = [];
  let id = 0;
  const dispatcher = new Dispatcher({
    queue,
    reconcile,
    clock,
    workers: options.workers ?? 1,
    ...(options.timeoutMs == null ? {} : { reconcileTimeoutMs: options.timeoutMs }),
    newReconcileId: () => `r${++id}`,
    onReconciled: (report) => reports.push(report),
  });
  return { clock, queue, calls, dispatcher, reports };
}

const settle = flushMacrotask;

describe('classifyReconcileError', () => {
  it('classifies Orkestra and provider errors by retryable and anything else as unexpected', () => {
    expect(classifyReconcileError(retryable('x'))).toBe('retryable');
    expect(classifyReconcileError(new TerminalError('x', { code: ConditionReason.ValidationFailed }))).toBe(
      'terminal',
    );
    expect(
      classifyReconcileError(new OrkestraError('x', { code: ConditionReason.ApplyFailed, retryable: false })),
    ).toBe('terminal');
    expect(classifyReconcileError(new ProviderError('x', { code: 'NoSuchBucket', retryable: false }))).toBe(
      'terminal',
    );
    expect(classifyReconcileError(new ProviderError('x', { code: 'Throttled', retryable: true }))).toBe(
      'retryable',
    );
    expect(classifyReconcileError(new TypeError('x'))).toBe('unexpected');
    expect(classifyReconcileError('a string')).toBe('unexpected');
    // Duck-typed look-alikes are not Orkestra errors.
    expect(
      classifyReconcileError(Object.assign(new Error('x'), { code: 'ApplyFailed', retryable: true })),
    ).toBe('unexpected');
  });
});

describe('requestFromKey', () => {
  it('splits namespace/name and keeps cluster-scoped names whole', () => {
    expect(requestFromKey('shop/web')).toEqual({ namespace: 'shop', name: 'web' });
    expect(requestFromKey('global')).toEqual({ name: 'global' });
  });
});

describe('Dispatcher capacity', () => {
  it('never runs more than W reconciles and leaves extra keys in the queue', async () => {
    const { queue, calls, dispatcher } = setup({ workers: 3 });
    for (let i = 0; i < 10; i++) queue.add(`ns/k${i}`);
    dispatcher.start();
    await settle();
    expect(calls).toHaveLength(3);
    expect(dispatcher.inFlight).toBe(3);
    expect(queue.len()).toBe(7);
    expect(queue.stats().processing).toBe(3);
    calls[0]?.resolve();
    await settle();
    expect(calls).toHaveLength(4);
    expect(dispatcher.inFlight).toBe(3);
  });

  it('keeps in-flight at or below W across a random workload', async () => {
    const { queue, calls, dispatcher } = setup({ workers: 4 });
    dispatcher.start();
    let max = 0;
    let settled = 0;
    let seed = 7;
    const random = (): number => (seed = (seed * 16_807) % 2_147_483_647) / 2_147_483_647;
    for (let round = 0; round < 200; round++) {
      queue.add(`k${Math.floor(random() * 20)}`);
      await settle();
      max = Math.max(max, dispatcher.inFlight);
      const open = calls.slice(settled);
      if (open.length > 0 && random() < 0.6) {
        open[0]?.resolve();
        settled++;
      }
    }
    expect(max).toBe(4);
    while (settled < calls.length) {
      calls[settled++]?.resolve();
      await settle();
    }
    expect(dispatcher.inFlight).toBe(0);
    expect(queue.stats()).toMatchObject({ dirty: 0, processing: 0 });
  });

  it('passes the request, a fresh reconcile id and a live signal', async () => {
    const { queue, calls, dispatcher } = setup();
    queue.add('shop/web');
    dispatcher.start();
    await settle();
    expect(calls[0]?.request).toEqual({ namespace: 'shop', name: 'web' });
    expect(calls[0]?.ctx.reconcileId).toBe('r1');
    expect(calls[0]?.ctx.key).toBe('shop/web');
    expect(calls[0]?.ctx.signal.aborted).toBe(false);
  });

  it('takes no key before start', async () => {
    const { queue, calls } = setup();
    queue.add('a');
    await settle();
    expect(calls).toHaveLength(0);
    expect(queue.len()).toBe(1);
  });

  it('reconciles a key changed during its reconcile exactly once more, never concurrently', async () => {
    const { queue, calls, dispatcher } = setup({ workers: 5 });
    dispatcher.start();
    queue.add('a');
    await settle();
    queue.add('a');
    queue.add('a');
    await settle();
    expect(calls).toHaveLength(1);
    calls[0]?.resolve();
    await settle();
    expect(calls).toHaveLength(2);
    calls[1]?.resolve();
    await settle();
    expect(calls).toHaveLength(2);
  });
});

describe('Dispatcher resize', () => {
  it('grows immediately', async () => {
    const { queue, calls, dispatcher } = setup({ workers: 2 });
    for (let i = 0; i < 10; i++) queue.add(`k${i}`);
    dispatcher.start();
    await settle();
    expect(calls).toHaveLength(2);
    expect(dispatcher.resize(5)).toBe(5);
    await settle();
    expect(calls).toHaveLength(5);
    expect(dispatcher.inFlight).toBe(5);
  });

  it('shrinks without interrupting running reconciles and starts new ones only below the new W', async () => {
    const { queue, calls, dispatcher } = setup({ workers: 4 });
    for (let i = 0; i < 10; i++) queue.add(`k${i}`);
    dispatcher.start();
    await settle();
    expect(calls).toHaveLength(4);
    dispatcher.resize(2);
    await settle();
    expect(calls.every((c) => !c.ctx.signal.aborted)).toBe(true);
    expect(dispatcher.inFlight).toBe(4);
    calls[0]?.resolve();
    calls[1]?.resolve();
    await settle();
    expect(calls).toHaveLength(4);
    expect(dispatcher.inFlight).toBe(2);
    calls[2]?.resolve();
    await settle();
    expect(calls).toHaveLength(5);
    expect(dispatcher.inFlight).toBe(2);
  });

  it('clamps capacity to [1, 50]', () => {
    const { dispatcher } = setup();
    expect(dispatcher.resize(0)).toBe(1);
    expect(dispatcher.resize(500)).toBe(50);
    expect(dispatcher.resize(7.9)).toBe(7);
    expect(dispatcher.capacity).toBe(7);
  });
});

describe('Dispatcher outcomes', () => {
  it('forgets the key after success', async () => {
    const { queue, calls, dispatcher, reports } = setup();
    queue.addRateLimited('a');
    queue.addRateLimited('a');
    expect(queue.numRequeues('a')).toBe(2);
    dispatcher.start();
    queue.add('a');
    await settle();
    calls[0]?.resolve();
    await settle();
    expect(queue.numRequeues('a')).toBe(0);
    expect(reports[0]).toMatchObject({ key: 'a', reconcileId: 'r1', outcome: 'success' });
    expect(queue.stats().processing).toBe(0);
  });

  it('forgets and schedules a timed re-queue for requeueAfterMs', async () => {
    const { clock, queue, calls, dispatcher, reports } = setup();
    queue.addRateLimited('a');
    dispatcher.start();
    queue.add('a');
    await settle();
    calls[0]?.resolve({ requeueAfterMs: 10_000 });
    await settle();
    expect(reports[0]).toMatchObject({ outcome: 'requeue_after', requeueAfterMs: 10_000 });
    expect(queue.numRequeues('a')).toBe(0);
    // The rate-limited timer from before is earlier (5 ms) and wins; advance past both.
    await clock.advanceAsync(5);
    expect(calls).toHaveLength(2);
    calls[1]?.resolve({ requeueAfterMs: 10_000 });
    await settle();
    await clock.advanceAsync(9_999);
    expect(calls).toHaveLength(2);
    await clock.advanceAsync(1);
    expect(calls).toHaveLength(3);
  });

  it('rate-limits a retryable error', async () => {
    const { clock, queue, calls, dispatcher, reports } = setup();
    dispatcher.start();
    queue.add('a');
    await settle();
    calls[0]?.reject(retryable('boom'));
    await settle();
    expect(reports[0]).toMatchObject({ outcome: 'error' });
    expect(queue.numRequeues('a')).toBe(1);
    await clock.advanceAsync(5);
    expect(calls).toHaveLength(2);
    calls[1]?.reject(retryable('boom'));
    await settle();
    await clock.advanceAsync(9);
    expect(calls).toHaveLength(2);
    await clock.advanceAsync(1);
    expect(calls).toHaveLength(3);
    expect(dispatcher.stats().retryableErrors).toBe(2);
  });

  it('retries a 429 after its Retry-After instead of the backoff (docs/reference/runtime.md §9.5)', async () => {
    const { clock, queue, calls, dispatcher, reports } = setup();
    dispatcher.start();
    queue.add('a');
    await settle();
    const tooMany = Object.assign(new Error('HTTP 429'), { status: 429, retryAfterSeconds: 3 });
    calls[0]?.reject(
      new OrkestraError('apply ConfigMap: too many requests', {
        code: ConditionReason.ApplyFailed,
        cause: tooMany,
      }),
    );
    await settle();
    expect(reports[0]).toMatchObject({ outcome: 'error' });
    expect(queue.numRequeues('a')).toBe(0); // no backoff step consumed
    await clock.advanceAsync(2999);
    expect(calls).toHaveLength(1); // the 5 ms backoff would have retried long ago
    await clock.advanceAsync(1);
    expect(calls).toHaveLength(2);
  });

  it('forgets a terminal error and does not retry it', async () => {
    const { clock, queue, calls, dispatcher, reports } = setup();
    queue.addRateLimited('a');
    await clock.advanceAsync(5);
    dispatcher.start();
    await settle();
    calls[0]?.reject(new TerminalError('denied', { code: ConditionReason.ValidationFailed }));
    await settle();
    expect(reports[0]).toMatchObject({ outcome: 'terminal' });
    expect(queue.numRequeues('a')).toBe(0);
    await clock.advanceAsync(2_000_000);
    expect(calls).toHaveLength(1);
    expect(dispatcher.stats().outcomes.terminal).toBe(1);
    expect(dispatcher.stats().retryableErrors).toBe(0);
  });

  it('retries an unexpected exception and counts it as a panic', async () => {
    const { clock, queue, calls, dispatcher, reports } = setup();
    dispatcher.start();
    queue.add('a');
    await settle();
    calls[0]?.reject(new TypeError('undefined is not a function'));
    await settle();
    expect(reports[0]?.outcome).toBe('panic');
    expect(reports[0]?.error).toBeInstanceOf(TypeError);
    await clock.advanceAsync(5);
    expect(calls).toHaveLength(2);
    expect(dispatcher.stats().outcomes.panic).toBe(1);
  });

  it('treats a synchronous throw like a rejection and still releases the key', async () => {
    const clock = new ManualClock();
    const queue = new WorkQueue({ clock });
    const reports: ReconcileReport[] = [];
    const dispatcher = new Dispatcher({
      queue,
      clock,
      reconcile: () => {
        throw new Error('sync');
      },
      onReconciled: (r) => reports.push(r),
    });
    dispatcher.start();
    queue.add('a');
    await settle();
    expect(reports[0]?.outcome).toBe('panic');
    expect(queue.isProcessing('a')).toBe(false);
    expect(queue.numRequeues('a')).toBe(1);
  });

  it('keeps working when the report hook throws', async () => {
    const clock = new ManualClock();
    const queue = new WorkQueue({ clock });
    let runs = 0;
    const dispatcher = new Dispatcher({
      queue,
      clock,
      reconcile: () => {
        runs++;
        return Promise.resolve({});
      },
      onReconciled: () => {
        throw new Error('hook');
      },
    });
    dispatcher.start();
    queue.add('a');
    await settle();
    queue.add('b');
    await settle();
    expect(runs).toBe(2);
    expect(queue.stats().processing).toBe(0);
  });
});

describe('Dispatcher timeout', () => {
  it('aborts the signal at the timeout, holds the key until the reconcile settles, and retries', async () => {
    const { clock, queue, calls, dispatcher, reports } = setup({ timeoutMs: 1000 });
    dispatcher.start();
    queue.add('a');
    await settle();
    const call = calls[0];
    await clock.advanceAsync(999);
    expect(call?.ctx.signal.aborted).toBe(false);
    await clock.advanceAsync(1);
    expect(call?.ctx.signal.aborted).toBe(true);
    expect(call?.ctx.signal.reason).toBeInstanceOf(ReconcileTimeoutError);
    expect((call?.ctx.signal.reason as ReconcileTimeoutError).code).toBe('ReconcileTimeout');
    queue.add('a');
    await settle();
    expect(queue.isProcessing('a')).toBe(true);
    expect(calls).toHaveLength(1);
    // A reconcile that ignores the abort and resolves is still a timeout.
    call?.resolve();
    await settle();
    expect(reports[0]).toMatchObject({ outcome: 'timeout', durationMs: 1000 });
    expect(queue.numRequeues('a')).toBe(1);
    expect(dispatcher.stats().outcomes.timeout).toBe(1);
    expect(calls).toHaveLength(2);
  });

  it('clears the timeout timer when a reconcile finishes in time', async () => {
    const { clock, queue, calls, dispatcher } = setup({ timeoutMs: 1000 });
    dispatcher.start();
    queue.add('a');
    await settle();
    expect(clock.pendingTimers).toBe(1);
    calls[0]?.resolve();
    await settle();
    expect(clock.pendingTimers).toBe(0);
  });
});

describe('Dispatcher stop', () => {
  it('waits for in-flight reconciles and takes no new keys', async () => {
    const { queue, calls, dispatcher } = setup({ workers: 2 });
    for (const k of ['a', 'b', 'c']) queue.add(k);
    dispatcher.start();
    await settle();
    let result: unknown;
    const stopping = dispatcher.stop({ timeoutMs: 1000 }).then((r) => (result = r));
    calls[0]?.resolve();
    await settle();
    expect(calls).toHaveLength(2);
    expect(result).toBeUndefined();
    calls[1]?.resolve();
    await stopping;
    expect(result).toEqual({ drained: true, aborted: 0 });
    expect(queue.len()).toBe(1);
  });

  it('aborts what is still running at the timeout and leaves nothing pending once they settle', async () => {
    const { clock, queue, calls, dispatcher } = setup({ workers: 2 });
    for (const k of ['a', 'b']) queue.add(k);
    dispatcher.start();
    await settle();
    for (const call of calls)
      call.ctx.signal.addEventListener('abort', () => call.reject(call.ctx.signal.reason));
    const stopping = dispatcher.stop({ timeoutMs: 1000 });
    await clock.advanceAsync(1000);
    expect(await stopping).toEqual({ drained: false, aborted: 2 });
    await dispatcher.whenIdle();
    queue.shutDown();
    expect(dispatcher.inFlight).toBe(0);
    expect(queue.stats().processing).toBe(0);
    expect(clock.pendingTimers).toBe(0);
    queue.add('c');
    await settle();
    expect(calls).toHaveLength(2);
  });

  it('stops at once when idle', async () => {
    const { dispatcher } = setup();
    dispatcher.start();
    await expect(dispatcher.stop()).resolves.toEqual({ drained: true, aborted: 0 });
  });
});

describe('Dispatcher stats', () => {
  it('computes a time-weighted busy ratio over the window', async () => {
    const clock = new ManualClock();
    const queue = new WorkQueue({ clock });
    const { calls, reconcile } = controllable();
    const dispatcher = new Dispatcher({ queue, reconcile, clock, workers: 2, busyWindowMs: 1000 });
    dispatcher.start();
    await clock.advanceAsync(1000);
    expect(dispatcher.busyRatio()).toBe(0);
    queue.add('a');
    await settle();
    await clock.advanceAsync(500);
    // 1 of 2 busy for 500 ms of the last 1000 ms → 0.25.
    expect(dispatcher.busyRatio()).toBeCloseTo(0.25);
    queue.add('b');
    await settle();
    await clock.advanceAsync(500);
    // 500 ms at 1/2 and 500 ms at 2/2 → 0.75.
    expect(dispatcher.stats().busyRatio).toBeCloseTo(0.75);
    expect(dispatcher.busyRatio(500)).toBeCloseTo(1);
    calls[0]?.resolve();
    calls[1]?.resolve();
    await settle();
    await clock.advanceAsync(1000);
    expect(dispatcher.busyRatio()).toBe(0);
  });

  it('reports the longest running and the summed running time', async () => {
    const { clock, queue, calls, dispatcher } = setup({ workers: 2 });
    dispatcher.start();
    expect(dispatcher.stats()).toMatchObject({ longestRunningMs: 0, unfinishedWorkMs: 0 });
    queue.add('a');
    await settle();
    await clock.advanceAsync(300);
    queue.add('b');
    await settle();
    await clock.advanceAsync(100);
    expect(dispatcher.stats()).toMatchObject({ inFlight: 2, longestRunningMs: 400, unfinishedWorkMs: 500 });
    calls[0]?.resolve();
    await settle();
    expect(dispatcher.stats()).toMatchObject({ inFlight: 1, longestRunningMs: 100, unfinishedWorkMs: 100 });
  });

  it('keeps the durations of the last 1000 reconciles', async () => {
    const clock = new ManualClock();
    const queue = new WorkQueue({ clock });
    let n = 0;
    const dispatcher = new Dispatcher({
      queue,
      clock,
      reconcile: () => {
        const duration = ++n;
        return new Promise((resolve) => clock.setTimeout(() => resolve({}), duration));
      },
    });
    dispatcher.start();
    for (let i = 0; i < 1005; i++) {
      queue.add(`k${i}`);
      await settle();
      await clock.advanceAsync(i + 1);
    }
    const durations = dispatcher.recentDurations();
    expect(durations).toHaveLength(1000);
    expect(durations[0]).toBe(6);
    expect(durations[999]).toBe(1005);
    const since = clock.now() - 1005 - 1004 + 1; // just after #1003 finished
    expect(dispatcher.recentDurations(since)).toEqual([1004, 1005]);
    expect(dispatcher.stats().finished).toBe(1005);
    expect(dispatcher.stats().outcomes.success).toBe(1005);
  });
});
