import { describe, expect, it } from 'vitest';
import { ManualClock, flushMacrotask } from '../clock.js';
import { EventRecorder } from './event-recorder.js';
import type { CoreEvent, EventCountUpdate, EventWriter } from './event-recorder.js';

const START = Date.parse('2026-05-01T10:00:00Z');
const cr = {
  apiVersion: 'shop.example.com/v1',
  kind: 'WebShop',
  metadata: { name: 'shop', namespace: 'team-a', uid: 'uid-1', resourceVersion: '42' },
};

/** A writer that records calls and can be held open or made to fail. */
function recordingWriter() {
  const calls: { namespace: string; event: CoreEvent }[] = [];
  const held: (() => void)[] = [];
  let hold = false;
  let fail: Error | undefined;
  const writer: EventWriter = {
    create: async (namespace, event) => {
      calls.push({ namespace, event });
      if (hold) await new Promise<void>((resolve) => held.push(resolve));
      if (fail != null) throw fail;
    },
  };
  return {
    writer,
    calls,
    hold: () => (hold = true),
    release: () => {
      hold = false;
      for (const resolve of held.splice(0)) resolve();
    },
    failWith: (error: Error | undefined) => (fail = error),
  };
}

describe('EventRecorder', () => {
  it('writes a core v1 Event about the object, asynchronously', async () => {
    const w = recordingWriter();
    const recorder = new EventRecorder({
      writer: w.writer,
      clock: new ManualClock(START),
      host: 'orkestra-0',
    });
    expect(recorder.normal(cr, 'ReconcileSucceeded', 'all good')).toBe(true);
    expect(w.calls).toHaveLength(0); // nothing written synchronously
    expect(await recorder.flush(1000)).toBe(true);
    expect(w.calls).toEqual([
      {
        namespace: 'team-a',
        event: {
          apiVersion: 'v1',
          kind: 'Event',
          metadata: { generateName: 'shop.', namespace: 'team-a' },
          involvedObject: {
            apiVersion: 'shop.example.com/v1',
            kind: 'WebShop',
            name: 'shop',
            namespace: 'team-a',
            uid: 'uid-1',
            resourceVersion: '42',
          },
          reason: 'ReconcileSucceeded',
          message: 'all good',
          type: 'Normal',
          source: { component: 'orkestra', host: 'orkestra-0' },
          reportingComponent: 'orkestra',
          reportingInstance: 'orkestra-0',
          firstTimestamp: '2026-05-01T10:00:00Z',
          lastTimestamp: '2026-05-01T10:00:00Z',
          count: 1,
        },
      },
    ]);
    expect(recorder.stats).toEqual({
      recorded: 1,
      written: 1,
      failed: 0,
      dropped: 0,
      suppressed: 0,
      throttled: 0,
      pending: 0,
    });
  });

  it('writes Events about cluster-scoped objects to the default namespace', async () => {
    const w = recordingWriter();
    const recorder = new EventRecorder({ writer: w.writer, clock: new ManualClock(START) });
    recorder.warning(
      { apiVersion: 'v1', kind: 'Namespace', metadata: { name: 'team-b' } },
      'NamespaceRestricted',
      'no',
    );
    await recorder.flush(1000);
    expect(w.calls[0]?.namespace).toBe('default');
    expect(w.calls[0]?.event.involvedObject).toEqual({ apiVersion: 'v1', kind: 'Namespace', name: 'team-b' });
    expect(w.calls[0]?.event.type).toBe('Warning');
    expect(w.calls[0]?.event.source).toEqual({ component: 'orkestra' });
  });

  it('does not repeat the same object, reason and message within 10 minutes', async () => {
    const w = recordingWriter();
    const clock = new ManualClock(START);
    const recorder = new EventRecorder({ writer: w.writer, clock });
    expect(recorder.warning(cr, 'ApplyFailed', 'boom')).toBe(true);
    clock.advance(599_999);
    expect(recorder.warning(cr, 'ApplyFailed', 'boom')).toBe(false);
    expect(recorder.warning(cr, 'ApplyFailed', 'boom 2')).toBe(true); // other message
    expect(recorder.warning(cr, 'PruneFailed', 'boom')).toBe(true); // other reason
    expect(
      recorder.warning({ ...cr, metadata: { ...cr.metadata, uid: 'uid-2' } }, 'ApplyFailed', 'boom'),
    ).toBe(true);
    clock.advance(1);
    expect(recorder.warning(cr, 'ApplyFailed', 'boom')).toBe(true); // window over
    await recorder.flush(1000);
    expect(w.calls.map((c) => `${c.event.reason}:${c.event.message}`)).toEqual([
      'ApplyFailed:boom',
      'ApplyFailed:boom 2',
      'PruneFailed:boom',
      'ApplyFailed:boom',
      'ApplyFailed:boom',
    ]);
    expect(recorder.stats.suppressed).toBe(1);
  });

  it('drops and counts Events beyond the buffer, keeping order', async () => {
    const w = recordingWriter();
    w.hold();
    const recorder = new EventRecorder({ writer: w.writer, clock: new ManualClock(START), bufferSize: 3 });
    for (let i = 0; i < 5; i++) recorder.normal(cr, 'Created', `child ${i}`);
    expect(recorder.stats).toMatchObject({ recorded: 3, dropped: 2, pending: 3 });
    // A dropped Event was never recorded, so it is not suppressed as a repeat later.
    w.release();
    expect(await recorder.flush(1000)).toBe(true);
    expect(recorder.normal(cr, 'Created', 'child 4')).toBe(true);
    await recorder.flush(1000);
    expect(w.calls.map((c) => c.event.message)).toEqual(['child 0', 'child 1', 'child 2', 'child 4']);
  });

  it('defaults to a buffer of 1000', () => {
    const w = recordingWriter();
    w.hold();
    const recorder = new EventRecorder({ writer: w.writer, clock: new ManualClock(START) });
    // One object each: a single object's token bucket would stop them first.
    for (let i = 0; i < 1005; i++) {
      recorder.normal({ ...cr, metadata: { ...cr.metadata, uid: `uid-${i}` } }, 'Created', 'child');
    }
    expect(recorder.stats).toMatchObject({ recorded: 1000, dropped: 5, throttled: 0 });
  });

  it('counts failed writes, reports them and lets the Event be recorded again', async () => {
    const w = recordingWriter();
    const errors: unknown[] = [];
    const recorder = new EventRecorder({
      writer: w.writer,
      clock: new ManualClock(START),
      onWriteError: (error) => errors.push(error),
    });
    w.failWith(new Error('forbidden'));
    recorder.warning(cr, 'ApplyFailed', 'x');
    recorder.warning(cr, 'ApplyFailed', 'y');
    expect(await recorder.flush(1000)).toBe(true);
    expect(errors.map((e) => (e as Error).message)).toEqual(['forbidden', 'forbidden']);
    expect(recorder.stats).toMatchObject({ failed: 2, written: 0, pending: 0 });
    w.failWith(undefined);
    expect(recorder.warning(cr, 'ApplyFailed', 'x')).toBe(true);
    await recorder.flush(1000);
    expect(recorder.stats).toMatchObject({ failed: 2, written: 1 });
  });

  it('keeps writing when the error callback throws', async () => {
    const w = recordingWriter();
    w.failWith(new Error('nope'));
    const recorder = new EventRecorder({
      writer: w.writer,
      clock: new ManualClock(START),
      onWriteError: () => {
        throw new Error('callback broke');
      },
    });
    recorder.normal(cr, 'A', 'a');
    recorder.normal(cr, 'B', 'b');
    expect(await recorder.flush(1000)).toBe(true);
    expect(w.calls).toHaveLength(2);
  });

  it('flush resolves false when the timeout passes first, true when nothing is pending', async () => {
    const w = recordingWriter();
    const clock = new ManualClock(START);
    const recorder = new EventRecorder({ writer: w.writer, clock });
    expect(await recorder.flush(0)).toBe(true);
    w.hold();
    recorder.normal(cr, 'Created', 'slow');
    const flushed = recorder.flush(5000);
    await flushMacrotask();
    clock.advance(5000);
    expect(await flushed).toBe(false);
    expect(recorder.stats.pending).toBe(1);
    w.release();
    expect(await recorder.flush(5000)).toBe(true);
    expect(clock.pendingTimers).toBe(0); // the flush timer was cancelled
  });

  it('cuts messages to 1024 characters', async () => {
    const w = recordingWriter();
    const recorder = new EventRecorder({ writer: w.writer, clock: new ManualClock(START) });
    recorder.warning(cr, 'TemplateError', 'z'.repeat(3000));
    await recorder.flush(1000);
    const message = w.calls[0]?.event.message ?? '';
    expect(message).toHaveLength(1024);
    expect(message.endsWith('…')).toBe(true);
  });

  it('rejects a non-positive buffer size', () => {
    expect(() => new EventRecorder({ writer: recordingWriter().writer, bufferSize: 0 })).toThrow(RangeError);
  });
});

/** A writer that names each Event it creates and records count updates, like the API server. */
function countingWriter() {
  const creates: CoreEvent[] = [];
  const updates: { name: string; change: EventCountUpdate }[] = [];
  const held: (() => void)[] = [];
  let hold = false;
  let fail: Error | undefined;
  const wait = async () => {
    if (hold) await new Promise<void>((resolve) => held.push(resolve));
    if (fail != null) throw fail;
  };
  const writer: EventWriter = {
    create: async (_namespace, event) => {
      creates.push(event);
      await wait();
      return `${event.involvedObject.name}.${creates.length}`;
    },
    update: async (_namespace, name, change) => {
      updates.push({ name, change });
      await wait();
    },
  };
  return {
    writer,
    creates,
    updates,
    requests: () => creates.length + updates.length,
    hold: () => (hold = true),
    release: () => {
      hold = false;
      for (const resolve of held.splice(0)) resolve();
    },
    failWith: (error: Error | undefined) => (fail = error),
  };
}

describe('EventRecorder aggregation (ADR 0042)', () => {
  it('folds 20 identical failures into one Event with count 20: one create, then one update each', async () => {
    const w = countingWriter();
    const clock = new ManualClock(START);
    const recorder = new EventRecorder({ writer: w.writer, clock });
    for (let i = 0; i < 20; i++) {
      expect(recorder.warning(cr, 'ReconcileFailed', 'boom')).toBe(true);
      await recorder.flush(1000);
      clock.advance(1000);
    }
    expect(w.creates).toHaveLength(1);
    expect(w.creates[0]).toMatchObject({ count: 1, firstTimestamp: '2026-05-01T10:00:00Z' });
    expect(w.updates).toHaveLength(19);
    expect(w.updates.at(-1)).toEqual({
      name: 'shop.1',
      change: { count: 20, lastTimestamp: '2026-05-01T10:00:19Z' },
    });
    expect(recorder.stats).toMatchObject({ recorded: 1, suppressed: 19, written: 20, throttled: 0 });
  });

  it('coalesces repeats that arrive while a write is queued or in flight into one update', async () => {
    const w = countingWriter();
    const recorder = new EventRecorder({ writer: w.writer, clock: new ManualClock(START) });
    for (let i = 0; i < 5; i++) recorder.warning(cr, 'ReconcileFailed', 'boom'); // before the create starts
    w.hold();
    await flushMacrotask(); // the create is in flight
    for (let i = 0; i < 7; i++) recorder.warning(cr, 'ReconcileFailed', 'boom');
    w.release();
    await recorder.flush(1000);
    await recorder.flush(1000);
    expect(w.creates.map((e) => e.count)).toEqual([5]);
    expect(w.updates.map((u) => u.change.count)).toEqual([12]);
  });

  it('keys on object, type, reason and message: any difference is a new Event', async () => {
    const w = countingWriter();
    const recorder = new EventRecorder({ writer: w.writer, clock: new ManualClock(START) });
    recorder.warning(cr, 'ApplyFailed', 'boom');
    recorder.normal(cr, 'ApplyFailed', 'boom');
    recorder.warning(cr, 'ApplyFailed', 'boom 2');
    recorder.warning(cr, 'PruneFailed', 'boom');
    recorder.warning({ ...cr, metadata: { ...cr.metadata, uid: 'uid-2' } }, 'ApplyFailed', 'boom');
    await recorder.flush(1000);
    expect(w.creates).toHaveLength(5);
    expect(w.updates).toHaveLength(0);
  });

  it('creates a new Event once the repeat window since the last occurrence has passed', async () => {
    const w = countingWriter();
    const clock = new ManualClock(START);
    const recorder = new EventRecorder({ writer: w.writer, clock, repeatWindowMs: 60_000 });
    recorder.warning(cr, 'ApplyFailed', 'boom');
    await recorder.flush(1000);
    clock.advance(59_999);
    recorder.warning(cr, 'ApplyFailed', 'boom'); // a repeat: the window restarts
    await recorder.flush(1000);
    clock.advance(59_999);
    recorder.warning(cr, 'ApplyFailed', 'boom'); // still a repeat
    await recorder.flush(1000);
    clock.advance(60_000);
    recorder.warning(cr, 'ApplyFailed', 'boom'); // window over
    await recorder.flush(1000);
    expect(w.creates).toHaveLength(2);
    expect(w.updates.map((u) => u.change.count)).toEqual([2, 3]);
  });

  it('caps one object at its token bucket: updates wait for a token and carry every repeat', async () => {
    const w = countingWriter();
    const clock = new ManualClock(START);
    const recorder = new EventRecorder({ writer: w.writer, clock, burst: 5, refillMs: 10_000 });
    for (let i = 0; i < 20; i++) {
      recorder.warning(cr, 'ReconcileFailed', 'boom');
      await recorder.flush(1000);
      clock.advance(100);
    }
    // 1 create + 4 updates spend the burst; the other 15 repeats wait for the next token.
    expect(w.requests()).toBe(5);
    expect(w.updates.at(-1)?.change.count).toBe(5);
    // Another object has its own bucket.
    expect(
      recorder.warning({ ...cr, metadata: { ...cr.metadata, uid: 'uid-2' } }, 'ReconcileFailed', 'boom'),
    ).toBe(true);
    // A new Event about the exhausted object is dropped and counted.
    expect(recorder.warning(cr, 'Other', 'x')).toBe(false);
    expect(recorder.stats.throttled).toBe(1);
    clock.advance(10_000); // a token returns: one update with the whole count
    await recorder.flush(1000);
    expect(w.updates.at(-1)?.change).toEqual({ count: 20, lastTimestamp: '2026-05-01T10:00:01Z' });
    expect(w.requests()).toBe(7); // + the other object's create
  });

  it('forgets an Event whose write failed, so the next occurrence creates it again', async () => {
    const w = countingWriter();
    const recorder = new EventRecorder({ writer: w.writer, clock: new ManualClock(START) });
    recorder.warning(cr, 'ApplyFailed', 'boom');
    await recorder.flush(1000);
    w.failWith(new Error('not found'));
    recorder.warning(cr, 'ApplyFailed', 'boom');
    await recorder.flush(1000);
    w.failWith(undefined);
    recorder.warning(cr, 'ApplyFailed', 'boom');
    await recorder.flush(1000);
    expect(w.creates.map((e) => e.count)).toEqual([1, 1]);
    expect(recorder.stats).toMatchObject({ failed: 1, written: 2 });
  });

  it('rejects a bad burst or refill', () => {
    const writer = countingWriter().writer;
    expect(() => new EventRecorder({ writer, burst: 0 })).toThrow(RangeError);
    expect(() => new EventRecorder({ writer, refillMs: 0 })).toThrow(RangeError);
  });
});
