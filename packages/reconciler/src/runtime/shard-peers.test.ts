import { describe, expect, it } from 'vitest';
import { LAST_APPLIED_ANNOTATION } from '../cache.js';
import type { ListWatchClient, RawWatchEvent } from '../list-watch-client.js';
import { ShardPeers, project, projectingClient } from './shard-peers.js';

const cr = {
  apiVersion: 'x/v1',
  kind: 'Db',
  metadata: {
    name: 'main',
    namespace: 'shop',
    uid: 'u1',
    labels: { 'orkestra.konductor.io/shard': 'a-1' },
    annotations: { keep: 'yes', [LAST_APPLIED_ANNOTATION]: '{"big":true}' },
    managedFields: [{ manager: 'kubectl' }],
  },
  spec: { size: 3 },
  status: { katalogRevision: 'r1', conditions: [{ type: 'Ready', status: 'True' }], inventory: ['x'] },
};

describe('cross-shard projection', () => {
  it('keeps what cross reads and the Live API read, without bookkeeping', () => {
    const out = project(cr, 'object') as typeof cr;
    expect(out.metadata.managedFields).toBeUndefined();
    expect(out.metadata.annotations).toEqual({ keep: 'yes' });
    expect(out.metadata.labels).toEqual(cr.metadata.labels);
    expect(out.spec).toEqual(cr.spec);
    expect(out.status).toEqual(cr.status);
    expect(cr.metadata.managedFields).toHaveLength(1); // the input is not changed
  });

  it('keeps metadata and the status the rollout gate reads for status projections', () => {
    const out = project(cr, 'status') as Record<string, unknown>;
    expect(out['spec']).toBeUndefined();
    expect(out['status']).toEqual({ katalogRevision: 'r1', conditions: cr.status.conditions });
    expect((out['metadata'] as { uid: string }).uid).toBe('u1');
  });

  it('projects list items and watch objects, and passes bookmarks through', async () => {
    const events: RawWatchEvent[] = [];
    const inner: ListWatchClient = {
      list: () => Promise.resolve({ items: [cr], metadata: { resourceVersion: '5' } }),
      watch: (_path, _query, handlers) => {
        handlers.onEvent({ type: 'MODIFIED', object: cr });
        handlers.onEvent({ type: 'BOOKMARK', object: { metadata: { resourceVersion: '6' } } });
        return { abort: () => undefined };
      },
    };
    const client = projectingClient(inner, 'status');
    const page = await client.list('/x', {});
    expect((page.items?.[0] as Record<string, unknown>)['spec']).toBeUndefined();
    client.watch('/x', {}, { onEvent: (event) => events.push(event), onClose: () => undefined });
    expect((events[0]?.object as Record<string, unknown>)['spec']).toBeUndefined();
    expect(events[1]).toEqual({ type: 'BOOKMARK', object: { metadata: { resourceVersion: '6' } } });
  });
});

describe('ShardPeers readiness', () => {
  it('is ready once the kinds watched from the start have listed; on-demand kinds count only when asked', async () => {
    let release: () => void = () => undefined;
    const slow = new Promise<void>((resolve) => (release = resolve));
    const client: ListWatchClient = {
      list: async (path) => {
        if (path.includes('/apps')) await slow;
        return { items: [], metadata: { resourceVersion: '1' } };
      },
      watch: () => ({ abort: () => undefined }),
    };
    const kind = (entry: string, plural: string) => ({
      entry,
      resource: { group: 'x', version: 'v1', kind: entry, plural, namespaced: true },
      projection: 'object' as const,
    });
    const peers = new ShardPeers({
      listWatch: client,
      kinds: [kind('db', 'dbs')],
      onDemand: [kind('app', 'apps')],
    });
    peers.start();
    await peers.waitForSync();
    peers.watchAll();
    expect(peers.entries()).toEqual(['db', 'app']);
    expect(peers.hasSynced(true)).toBe(true);
    expect(peers.hasSynced()).toBe(false);
    release();
    await peers.waitForSync();
    expect(peers.hasSynced()).toBe(true);
    await peers.stop();
  });
});
