import type { KubeObject } from '@orkestra/registry';
import { createTemplateEngine } from '@orkestra/template';
import { MANAGED_BY, OrkestraLabel, WatchItem as WatchItemSchema, enrichWatchItems } from '@orkestra/types';
import type { WatchItem } from '@orkestra/types';
import { describe, expect, it } from 'vitest';
import { CacheChangeType } from '../cache.js';
import type { CacheChange } from '../cache.js';
import { ManualClock } from '../clock.js';
import { conditionsOptions } from './conditions.js';
import { admitWatchChange, routeWatchChange } from './watch-triggers.js';
import type { WatchingEntry } from './watch-triggers.js';

const ALL: WatchItem['on'] = ['create', 'update', 'delete'];
const item = (extra: Partial<WatchItem> = {}): WatchItem => ({
  apiVersion: 'v1',
  kind: 'ConfigMap',
  on: ALL,
  ...extra,
});
const entry: WatchingEntry = { name: 'website', namespaced: true, items: [] };
const clusterEntry: WatchingEntry = { name: 'tenant', namespaced: false, items: [] };

function change(
  metadata: KubeObject['metadata'],
  type: CacheChange['type'] = CacheChangeType.Update,
): CacheChange {
  const object: KubeObject = { apiVersion: 'v1', kind: 'ConfigMap', metadata };
  return { type, key: `${metadata.namespace ?? ''}/${metadata.name ?? ''}`, object, old: object };
}
const noCr = (): boolean => false;

describe('routeWatchChange', () => {
  it('re-queues every CR of the entry for a shared object with no owner among them', () => {
    expect(routeWatchChange(change({ namespace: 'shop', name: 'shared' }), item(), entry, noCr)).toEqual({
      kind: 'all',
    });
  });

  it('re-queues only the CRs of the entry that the ownerReferences point to', () => {
    const owned = change({
      namespace: 'shop',
      name: 'x',
      ownerReferences: [
        { apiVersion: 'apps/v1', kind: 'ReplicaSet', name: 'rs', uid: 'not-a-cr' },
        { apiVersion: 'demo/v1', kind: 'Website', name: 'a', uid: 'cr-a' },
      ],
    });
    expect(routeWatchChange(owned, item(), entry, (uid) => uid === 'cr-a')).toEqual({
      kind: 'owners',
      uids: ['cr-a'],
    });
  });

  it('lets only the change types in `on` through', () => {
    const deleted = change({ namespace: 'shop', name: 'shared' }, CacheChangeType.Delete);
    const added = change({ namespace: 'shop', name: 'shared' }, CacheChangeType.Add);
    const onlyUpdates = item({ on: ['update'] });
    expect(routeWatchChange(deleted, onlyUpdates, entry, noCr)).toEqual({ kind: 'none' });
    expect(routeWatchChange(added, onlyUpdates, entry, noCr)).toEqual({ kind: 'none' });
    expect(routeWatchChange(added, item({ on: ['create'] }), entry, noCr).kind).toBe('all');
  });

  it('ignores other names and namespaces than the item names', () => {
    const other = change({ namespace: 'shop', name: 'other' });
    expect(routeWatchChange(other, item({ name: 'shared' }), entry, noCr)).toEqual({ kind: 'none' });
    expect(routeWatchChange(other, item({ namespace: 'platform' }), entry, noCr)).toEqual({ kind: 'none' });
  });

  it("ignores the entry's own children (the child caches route them) but not another entry's", () => {
    const labels = { [OrkestraLabel.ManagedBy]: MANAGED_BY, [OrkestraLabel.Crd]: 'website' };
    const child = change({ namespace: 'shop', name: 'c', labels });
    expect(routeWatchChange(child, item(), entry, noCr)).toEqual({ kind: 'none' });
    expect(routeWatchChange(child, item(), { ...entry, name: 'store' }, noCr).kind).toBe('all');
  });

  it('takes keyFrom.name in keyFrom.namespace, else in the object’s namespace; bare for a cluster-scoped entry', () => {
    const shared = change({ namespace: 'shop', name: 'shared' });
    expect(
      routeWatchChange(shared, item({ keyFrom: { name: 'main', namespace: 'ops' } }), entry, noCr),
    ).toEqual({
      kind: 'keys',
      keys: ['ops/main'],
    });
    expect(routeWatchChange(shared, item({ keyFrom: { name: 'main' } }), entry, noCr)).toEqual({
      kind: 'keys',
      keys: ['shop/main'],
    });
    expect(routeWatchChange(shared, item({ keyFrom: { name: 'main' } }), clusterEntry, noCr)).toEqual({
      kind: 'keys',
      keys: ['main'],
    });
    const node = change({ name: 'node-1' });
    expect(routeWatchChange(node, item({ keyFrom: { name: 'main' } }), entry, noCr)).toEqual({
      kind: 'none',
    });
  });

  it('takes the CR key from the keyFrom label: namespace/name as given, a bare name in the object’s namespace', () => {
    const by = (value: string | undefined, at: WatchingEntry = entry) =>
      routeWatchChange(
        change({
          namespace: 'shop',
          name: 'x',
          ...(value == null ? {} : { labels: { 'example.io/owner': value } }),
        }),
        item({ keyFrom: { label: 'example.io/owner' } }),
        at,
        noCr,
      );
    expect(by('ops/site')).toEqual({ kind: 'keys', keys: ['ops/site'] });
    expect(by('site')).toEqual({ kind: 'keys', keys: ['shop/site'] });
    expect(by('ops/site', clusterEntry)).toEqual({ kind: 'keys', keys: ['site'] });
    expect(by(undefined)).toEqual({ kind: 'none' });
    expect(by('')).toEqual({ kind: 'none' });
  });
});

describe("admitWatchChange (a watch item's enqueueGate, docs/reference/katalog.md §3.2)", () => {
  const clock = new ManualClock(Date.parse('2026-12-07T10:00:00Z'));
  const conditions = conditionsOptions(createTemplateEngine({ clock }), clock);
  const gated = (gate: unknown): WatchItem =>
    WatchItemSchema.parse({ apiVersion: 'v1', kind: 'ConfigMap', enqueueGate: gate });
  const configMap = (generation: number, data: Record<string, string>): KubeObject =>
    ({
      apiVersion: 'v1',
      kind: 'ConfigMap',
      metadata: { namespace: 'shop', name: 'cfg', generation },
      data,
    }) as KubeObject;
  const update = (old: KubeObject, object: KubeObject): CacheChange => ({
    type: CacheChangeType.Update,
    key: 'shop/cfg',
    object,
    old,
  });

  it('passes a change of the watched object when one of the gate sentinels is true for it, and holds it otherwise', () => {
    const item = gated({ sentinels: ['generationChanged'] });
    expect(admitWatchChange(update(configMap(1, {}), configMap(2, {})), item, conditions).passed).toBe(true);
    const same = admitWatchChange(update(configMap(2, {}), configMap(2, { a: 'b' })), item, conditions);
    expect(same).toMatchObject({ passed: false, reason: 'not_met' });
  });

  it('reads the watched object (its data too) and its sentinels in the conditions', () => {
    const item = gated({
      when: [
        { field: '{{ .data.mode }}', equals: 'live' },
        { field: '{{ .sentinels.generationChanged }}', equals: 'true' },
      ],
    });
    expect(
      admitWatchChange(update(configMap(1, {}), configMap(2, { mode: 'live' })), item, conditions).passed,
    ).toBe(true);
    expect(
      admitWatchChange(update(configMap(1, {}), configMap(2, { mode: 'dry' })), item, conditions).passed,
    ).toBe(false);
    expect(
      admitWatchChange(update(configMap(2, {}), configMap(2, { mode: 'live' })), item, conditions).passed,
    ).toBe(false);
  });

  it('always passes a delete and an item without a gate', () => {
    const item = gated({ sentinels: ['labelsChanged'] });
    const gone: CacheChange = { type: CacheChangeType.Delete, key: 'shop/cfg', object: configMap(2, {}) };
    expect(admitWatchChange(gone, item, conditions).passed).toBe(true);
    expect(
      admitWatchChange(
        update(configMap(2, {}), configMap(2, {})),
        WatchItemSchema.parse({ apiVersion: 'v1', kind: 'ConfigMap' }),
        conditions,
      ).passed,
    ).toBe(true);
  });

  it('decides conditions it cannot evaluate by failPolicy', () => {
    const broken = [{ field: '{{ .data.mode | nosuchhelper }}', equals: 'x' }];
    const c = update(configMap(1, {}), configMap(2, {}));
    expect(admitWatchChange(c, gated({ when: broken }), conditions).passed).toBe(true);
    expect(admitWatchChange(c, gated({ when: broken, failPolicy: 'closed' }), conditions)).toMatchObject({
      passed: false,
      reason: 'fail_closed',
    });
  });

  it('refuses external calls on a watch gate', () => {
    const r = WatchItemSchema.safeParse({
      apiVersion: 'v1',
      kind: 'ConfigMap',
      enqueueGate: { external: [{ name: 'flag', url: 'https://flags.example.org/x' }] },
    });
    expect(r.success).toBe(false);
    expect(JSON.stringify(r.error?.issues)).toContain('a watch gate makes no external calls');
  });
});

describe('routeWatchChange for an enrich watch (docs/reference/katalog.md §3.5)', () => {
  const [pods] = enrichWatchItems({ enrich: ['pods'] });
  const podOf = (labels: Record<string, string>): CacheChange => ({
    type: CacheChangeType.Update,
    key: 'shop/p-probe-x',
    object: { apiVersion: 'v1', kind: 'Pod', metadata: { name: 'p-probe-x', namespace: 'shop', labels } },
  });
  const ours = {
    [OrkestraLabel.ManagedBy]: MANAGED_BY,
    [OrkestraLabel.Crd]: 'website',
    [OrkestraLabel.OwnerUid]: 'cr-a',
  };

  it('re-queues the CR its owner-uid label names, even when labelled as the entry’s own', () => {
    expect(routeWatchChange(podOf(ours), pods as WatchItem, entry, (uid) => uid === 'cr-a')).toEqual({
      kind: 'owners',
      uids: ['cr-a'],
    });
  });

  it('re-queues nothing for a pod no CR of the entry owns (never every CR)', () => {
    expect(routeWatchChange(podOf({}), pods as WatchItem, entry, () => true)).toEqual({ kind: 'none' });
    expect(routeWatchChange(podOf(ours), pods as WatchItem, entry, () => false)).toEqual({ kind: 'none' });
  });
});
