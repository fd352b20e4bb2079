import { describe, expect, it } from 'vitest';
import { ManualClock, flushMacrotask } from '../clock.js';
import type { ListResponse, ListWatchClient, WatchHandle, WatchHandlers } from '../list-watch-client.js';
import { CrdPresence } from './crd-presence.js';

const silent = { debug: () => {}, info: () => {}, warn: () => {}, error: () => {}, child: () => silent };

/** One scripted CRD watch per entry: list answers, and the handlers of the open watch. */
class CrdClient implements ListWatchClient {
  readonly queries: Readonly<Record<string, string>>[] = [];
  readonly handlers: WatchHandlers[] = [];
  items: unknown[] = [];
  list(_path: string, query: Readonly<Record<string, string>>): Promise<ListResponse> {
    this.queries.push(query);
    return Promise.resolve({ metadata: { resourceVersion: '1' }, items: this.items } as ListResponse);
  }
  watch(_path: string, _query: Readonly<Record<string, string>>, handlers: WatchHandlers): WatchHandle {
    this.handlers.push(handlers);
    return { abort: () => {} };
  }
  event(type: string, object: unknown): void {
    this.handlers[this.handlers.length - 1]?.onEvent({ type, object });
  }
}

const crd = (uid: string, rv: string) => ({
  metadata: { name: 'gadgets.demo.io', uid, resourceVersion: rv },
});

function setup() {
  const client = new CrdClient();
  client.items = [crd('u1', '1')];
  const calls: string[] = [];
  const events: string[] = [];
  const presence = new CrdPresence({
    listWatch: client,
    clock: new ManualClock(),
    logger: silent,
    events: {
      warning: (_s, reason) => (events.push(reason), true),
      normal: (_s, reason) => (events.push(reason), true),
    },
    targets: [
      {
        name: 'gadget',
        crdName: 'gadgets.demo.io',
        deactivate: () => calls.push('deactivate'),
        reactivate: () => calls.push('reactivate'),
      },
    ],
  });
  return { client, presence, calls, events };
}

describe('CrdPresence (docs/reference/runtime.md §2.9)', () => {
  it('watches each entry’s CRD by name; the first list changes nothing', async () => {
    const { client, presence, calls } = setup();
    presence.start();
    await flushMacrotask();
    expect(client.queries[0]?.['fieldSelector']).toBe('metadata.name=gadgets.demo.io');
    expect(calls).toEqual([]);
    await presence.stop();
  });

  it('deactivates on delete (not while terminating) and reactivates on create, with an Event each', async () => {
    const { client, presence, calls, events } = setup();
    presence.start();
    await flushMacrotask();
    client.event('MODIFIED', {
      ...crd('u1', '2'),
      metadata: { ...crd('u1', '2').metadata, deletionTimestamp: 'x' },
    });
    expect(calls).toEqual([]);
    client.event('DELETED', crd('u1', '3'));
    expect(calls).toEqual(['deactivate']);
    expect(presence.inactive()).toEqual(['gadget']);
    client.event('ADDED', crd('u2', '4'));
    expect(calls).toEqual(['deactivate', 'reactivate']);
    expect(events).toEqual(['EntryDeactivated', 'EntryReactivated']);
    expect(presence.inactive()).toEqual([]);
    await presence.stop();
  });

  it('a CRD re-created between two events (a new UID) restarts the entry', async () => {
    const { client, presence, calls } = setup();
    presence.start();
    await flushMacrotask();
    client.event('MODIFIED', crd('u9', '5'));
    expect(calls).toEqual(['deactivate', 'reactivate']);
    await presence.stop();
  });
});
