import { describe, expect, it } from 'vitest';
import { NotFoundError } from '@orkestra/registry';
import type { KubeObject } from '@orkestra/registry';
import { createTemplateEngine } from '@orkestra/template';
import { Cleanup, OrkestraAnnotation } from '@orkestra/types';
import { ManualClock } from '../clock.js';
import { conditionsOptions } from './conditions.js';
import { Cleanups } from './cleanup.js';

const silent = { debug: () => {}, info: () => {}, warn: () => {}, error: () => {}, child: () => silent };
const SINCE = OrkestraAnnotation.CleanupPendingSince;

function cr(phase: string, annotations: Record<string, string> = {}): KubeObject {
  return {
    apiVersion: 'demo.example.io/v1',
    kind: 'Task',
    metadata: { name: 't', namespace: 'default', uid: 'u1', resourceVersion: '5', annotations },
    spec: {},
    status: { phase },
  };
}

function setup(cleanup: unknown, options: { deleteFails?: unknown } = {}) {
  const clock = new ManualClock(Date.parse('2026-12-07T10:00:00Z'));
  const patches: unknown[] = [];
  const deletes: unknown[] = [];
  const events: string[] = [];
  const cleanups = new Cleanups({
    cleanup: Cleanup.parse(cleanup),
    clock,
    conditions: conditionsOptions(createTemplateEngine({ clock }), clock),
    client: {
      mergePatch: (_ref, patch) => {
        patches.push(patch);
        return Promise.resolve(cr('x'));
      },
      delete: (ref, opts) => {
        deletes.push({ name: ref.name, ...opts });
        return options.deleteFails == null ? Promise.resolve() : Promise.reject(options.deleteFails);
      },
    },
    primary: { upsertFromWrite: () => true },
    events: { normal: (_s, reason, message) => (events.push(`${reason}: ${message}`), true) },
  });
  return { clock, cleanups, patches, deletes, events };
}

const terminal = {
  or: [
    { field: 'status.phase', equals: 'Completed' },
    { field: 'status.phase', equals: 'Failed' },
  ],
};

describe('Cleanups (docs/reference/katalog.md §20.6)', () => {
  it('without deleteAfter, deletes a CR at once when a condition holds (foreground, UID precondition)', async () => {
    const { cleanups, deletes, events, patches } = setup(terminal);
    expect(await cleanups.check(cr('Running'), silent)).toEqual({});
    expect(deletes).toEqual([]);
    expect(await cleanups.check(cr('Failed'), silent)).toEqual({ deleted: true });
    expect(deletes).toEqual([{ name: 't', propagationPolicy: 'Foreground', uid: 'u1' }]);
    expect(events).toEqual(['CleanedUp: deleted: its cleanup conditions held']);
    expect(patches).toEqual([]); // nothing to wait for, nothing recorded
  });

  it('with deleteAfter, records when the state was reached, waits on the injected clock, then deletes', async () => {
    const { clock, cleanups, deletes, patches } = setup({ ...terminal, deleteAfter: '60s' });
    expect(await cleanups.check(cr('Completed'), silent)).toEqual({ dueInMs: 60_000 });
    expect(patches).toEqual([{ metadata: { annotations: { [SINCE]: '2026-12-07T10:00:00Z' } } }]);
    clock.advance(59_000);
    const stamped = cr('Completed', { [SINCE]: '2026-12-07T10:00:00Z' });
    expect(await cleanups.check(stamped, silent)).toEqual({ dueInMs: 1_000 });
    expect(patches).toHaveLength(1); // recorded once
    expect(deletes).toEqual([]);
    clock.advance(1_000);
    expect(await cleanups.check(stamped, silent)).toEqual({ deleted: true });
    expect(deletes).toHaveLength(1);
  });

  it('removes the record when the state is left before the CR falls due', async () => {
    const { cleanups, patches, deletes } = setup({ ...terminal, deleteAfter: '5m' });
    const left = cr('Running', { [SINCE]: '2026-12-07T09:59:00Z' });
    expect(await cleanups.check(left, silent)).toEqual({});
    expect(patches).toEqual([{ metadata: { annotations: { [SINCE]: null } } }]);
    expect(deletes).toEqual([]);
  });

  it('counts the wait from the recorded time, so a restart does not start it again', async () => {
    const { cleanups, deletes } = setup({ ...terminal, deleteAfter: '5m' });
    const old = cr('Completed', { [SINCE]: '2026-12-07T09:50:00Z' });
    expect(await cleanups.check(old, silent)).toEqual({ deleted: true });
    expect(deletes).toHaveLength(1);
  });

  it('leaves a CR being deleted alone; a CR already gone counts as deleted; a failed delete decides nothing', async () => {
    const gone = setup(terminal, {
      deleteFails: new NotFoundError({ status: 404, verb: 'delete', message: 'gone' }),
    });
    const deleting = { ...cr('Failed'), metadata: { ...cr('Failed').metadata, deletionTimestamp: 'x' } };
    expect(await gone.cleanups.check(deleting, silent)).toEqual({});
    expect(await gone.cleanups.check(cr('Failed'), silent)).toEqual({ deleted: true });
    const failing = setup(terminal, { deleteFails: new Error('forbidden') });
    expect(await failing.cleanups.check(cr('Failed'), silent)).toEqual({});
    expect(failing.events).toEqual([]);
  });
});

describe('Cleanups.check with record: false (before a reconcile)', () => {
  it('deletes a CR that is due but writes no annotation for one that is not', async () => {
    const { cleanups, patches, deletes } = setup({ ...terminal, deleteAfter: '1m' });
    expect(await cleanups.check(cr('Completed'), silent, { record: false })).toEqual({});
    expect(
      await cleanups.check(cr('Running', { [SINCE]: '2026-12-07T09:00:00Z' }), silent, { record: false }),
    ).toEqual({});
    expect(patches).toEqual([]);
    const due = cr('Completed', { [SINCE]: '2026-12-07T09:58:00Z' });
    expect(await cleanups.check(due, silent, { record: false })).toEqual({ deleted: true });
    expect(deletes).toHaveLength(1);
  });
});
