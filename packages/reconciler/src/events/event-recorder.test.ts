import { describe, expect, it } from 'vitest';
import { ManualClock, flushMacrotask } from '../clock.js';
import { EventRecorder } from './event-recorder.js';
import type { CoreEvent, EventWriter } from './event-recorder.js';

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
    for (let i = 0; i < 1005; i++) recorder.normal(cr, 'Created', `child ${i}`);
    expect(recorder.stats).toMatchObject({ recorded: 1000, dropped: 5 });
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
