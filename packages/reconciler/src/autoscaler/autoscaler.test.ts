import { Autoscale, ConditionReason, OrkestraError } from '@orkestra/types';
import { describe, expect, it } from 'vitest';
import { ManualClock, flushMacrotask } from '../clock.js';
import { Dispatcher } from '../dispatcher.js';
import type { ReconcileResult } from '../dispatcher.js';
import { WorkQueue } from '../work-queue.js';
import { Autoscaler, dispatcherInputs } from './autoscaler.js';
import { resolveAutoscaleConfig } from './decide.js';
import type { AutoscaleInputs } from './decide.js';

const NOON = Date.UTC(2024, 5, 3, 12, 0, 0);

function recordingTarget() {
  const calls: string[] = [];
  return {
    calls,
    target: {
      resizeWorkers: (n: number) => calls.push(`workers=${n}`),
      setQueueDepthLimit: (n: number) => calls.push(`queueDepth=${n}`),
      setResyncInterval: (ms: number) => calls.push(`resync=${ms}`),
    },
  };
}

function recordingLogger() {
  const lines: { level: string; fields: Record<string, unknown>; message: string | undefined }[] = [];
  return {
    lines,
    logger: {
      info: (fields: object, message?: string) =>
        lines.push({ level: 'info', fields: fields as Record<string, unknown>, message }),
      warn: (fields: object, message?: string) =>
        lines.push({ level: 'warn', fields: fields as Record<string, unknown>, message }),
    },
  };
}

describe('Autoscaler', () => {
  const config = resolveAutoscaleConfig(Autoscale.parse({ interval: '15s', cooldown: '2m' }), {
    workers: 4,
    resync: '10m',
    queue: { maxDepth: 100 },
  });

  it('ticks every interval on the clock, applies changes, logs them with their inputs and counts them', () => {
    const clock = new ManualClock(NOON);
    const { calls, target } = recordingTarget();
    const { lines, logger } = recordingLogger();
    let inputs: AutoscaleInputs = {
      depth: 500,
      workers: 4,
      busyPercent: 95,
      p95Ms: 100,
      errorRatePercent: 0,
    };
    const autoscaler = new Autoscaler({
      config,
      target,
      inputs: () => inputs,
      clock,
      logger,
      entry: 'website',
    });
    autoscaler.start();
    clock.advance(14_999);
    expect(autoscaler.ticks).toBe(0);
    clock.advance(1);
    expect(autoscaler.ticks).toBe(1);
    expect(calls).toEqual(['workers=6', 'queueDepth=200']);
    expect(lines[0]).toMatchObject({
      level: 'info',
      message: 'autoscale: workers 4 → 6 (pressure)',
      fields: { entry: 'website', target: 'workers', from: 4, to: 6, reason: 'pressure', inputs },
    });
    inputs = { ...inputs, workers: 6, errorRatePercent: 50 };
    clock.advance(15_000);
    expect(autoscaler.ticks).toBe(2);
    expect(calls.slice(2)).toEqual(['resync=1200000', 'queueDepth=100']);
    expect(autoscaler.decisions()).toEqual({
      workers: { up: 1, down: 0 },
      queueDepth: { up: 1, down: 1 },
      resync: { up: 1, down: 0 },
    });
    autoscaler.stop();
    clock.advance(60_000);
    expect(autoscaler.ticks).toBe(2);
    expect(clock.pendingTimers).toBe(0);
  });

  it('logs a failed operation as a warning and does not count it', () => {
    const clock = new ManualClock(NOON);
    const { lines, logger } = recordingLogger();
    const autoscaler = new Autoscaler({
      config,
      target: {
        resizeWorkers: () => {
          throw new Error('nope');
        },
        setQueueDepthLimit: () => undefined,
        setResyncInterval: () => undefined,
      },
      inputs: () => ({ depth: 50, workers: 4, busyPercent: 95, p95Ms: 100, errorRatePercent: 0 }),
      clock,
      logger,
    });
    autoscaler.tick();
    expect(lines.map((l) => l.level)).toEqual(['warn']);
    expect(autoscaler.decisions().workers).toEqual({ up: 0, down: 0 });
  });
});

describe('dispatcherInputs', () => {
  it('reads depth, capacity, busy %, p95 and the retryable error rate of the last interval', async () => {
    const clock = new ManualClock(NOON);
    const queue = new WorkQueue({ clock });
    const pending: { resolve: (r: ReconcileResult) => void; reject: (e: unknown) => void }[] = [];
    const dispatcher = new Dispatcher({
      queue,
      clock,
      workers: 2,
      reconcile: () => new Promise((resolve, reject) => pending.push({ resolve, reject })),
    });
    const inputs = dispatcherInputs({ dispatcher, queue, intervalMs: 15_000, clock });
    dispatcher.start();
    for (const key of ['ns/a', 'ns/b', 'ns/c', 'ns/d', 'ns/e']) queue.add(key);
    await flushMacrotask();
    expect(pending).toHaveLength(2);
    await clock.advanceAsync(15_000);
    // Both workers busy for the whole interval, three keys waiting.
    expect(inputs()).toEqual({ depth: 3, workers: 2, busyPercent: 100, p95Ms: 0, errorRatePercent: 0 });

    pending[0]?.resolve({});
    pending[1]?.reject(new OrkestraError('boom', { code: ConditionReason.ApplyFailed }));
    await flushMacrotask();
    await clock.advanceAsync(15_000);
    const second = inputs();
    expect(second.errorRatePercent).toBe(50);
    expect(second.p95Ms).toBe(15_000);
    expect(second.depth).toBe(2); // c and d were taken; e waits, and so does b after its 5 ms retry delay
    // Nothing finished since the previous call: the error rate is 0 again.
    await clock.advanceAsync(15_000);
    expect(inputs().errorRatePercent).toBe(0);
  });
});
