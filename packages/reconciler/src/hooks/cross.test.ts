import { describe, expect, it } from 'vitest';
import { ObjectCache } from '../cache.js';
import type { KubeObject } from '../kube-object.js';
import { CrossReaders, readCross, readCrossAll } from './cross.js';
import type { CrossTarget } from './cross.js';

function db(
  namespace: string | undefined,
  name: string,
  options: { labels?: Record<string, string>; created?: string; rv?: string } = {},
): KubeObject {
  return {
    apiVersion: 'example.com/v1',
    kind: 'Database',
    metadata: {
      name,
      ...(namespace == null ? {} : { namespace }),
      uid: `uid-${namespace ?? ''}-${name}`,
      resourceVersion: options.rv ?? '1',
      creationTimestamp: options.created ?? '2024-01-01T00:00:00Z',
      labels: options.labels ?? {},
      annotations: { note: name },
    },
    spec: { engine: 'postgres', size: name.length },
    status: { phase: 'Ready' },
  };
}

/** A counting view over real ObjectCaches: every read goes to the in-process cache, none to an API. */
function targets(entries: Record<string, { namespaced: boolean; objects: KubeObject[] }>) {
  const calls: string[] = [];
  const map = new Map<string, CrossTarget>();
  for (const [name, { namespaced, objects }] of Object.entries(entries)) {
    const cache = new ObjectCache();
    cache.replace(objects);
    map.set(name, {
      namespaced,
      cache: {
        getByName: (ns, n) => {
          calls.push(`${name}.getByName(${ns ?? '-'}, ${n})`);
          return cache.getByName(ns, n);
        },
        listByNamespace: (ns) => {
          calls.push(`${name}.listByNamespace(${ns})`);
          return cache.listByNamespace(ns);
        },
        list: () => {
          calls.push(`${name}.list()`);
          return cache.list();
        },
      },
    });
  }
  const lookups: string[] = [];
  return {
    calls,
    lookups,
    lookup: (crd: string) => {
      lookups.push(crd);
      return map.get(crd);
    },
  };
}

describe('readCross', () => {
  const objects = [
    db('shop', 'orders', { labels: { tenant: 'acme' }, created: '2024-02-01T00:00:00Z' }),
    db('shop', 'billing', { labels: { tenant: 'acme' }, created: '2024-01-01T00:00:00Z' }),
    db('shop', 'audit', { labels: { tenant: 'acme' }, created: '2024-01-01T00:00:00Z' }),
    db('other', 'ancient', { labels: { tenant: 'acme' }, created: '2020-01-01T00:00:00Z' }),
    db('other', 'orders'),
  ];

  it('reads by name from the cache, in the reader namespace by default, with no API call', () => {
    const t = targets({ database: { namespaced: true, objects } });
    const { result, record } = readCross(
      { crd: 'database', selector: { name: 'orders' } },
      { lookup: t.lookup, namespace: 'shop' },
    );
    expect(result).toEqual({
      found: true,
      name: 'orders',
      namespace: 'shop',
      labels: { tenant: 'acme' },
      annotations: { note: 'orders' },
      spec: { engine: 'postgres', size: 6 },
      status: { phase: 'Ready' },
    });
    expect(record).toEqual({ crd: 'database', key: 'shop/orders', foundKey: 'shop/orders' });
    expect(t.calls).toEqual(['database.getByName(shop, orders)']);
    expect(t.lookups).toEqual(['database']);
  });

  it('uses selector.namespace when given', () => {
    const t = targets({ database: { namespaced: true, objects } });
    const { result } = readCross(
      { crd: 'database', selector: { name: 'orders', namespace: 'other' } },
      { lookup: t.lookup, namespace: 'shop' },
    );
    expect(result.namespace).toBe('other');
    expect(result.spec).toEqual({ engine: 'postgres', size: 6 });
  });

  it('gives found: false with empty maps when nothing matches or the entry is unknown', () => {
    const t = targets({ database: { namespaced: true, objects } });
    const missing = readCross(
      { crd: 'database', selector: { name: 'nope' } },
      { lookup: t.lookup, namespace: 'shop' },
    );
    expect(missing.result).toEqual({
      found: false,
      name: 'nope',
      namespace: 'shop',
      labels: {},
      annotations: {},
      spec: {},
      status: {},
    });
    expect(missing.record).toEqual({ crd: 'database', key: 'shop/nope' });
    const unknown = readCross(
      { crd: 'nothing', selector: { name: 'x' } },
      { lookup: t.lookup, namespace: 'shop' },
    );
    expect(unknown.result.found).toBe(false);
  });

  it('picks the oldest matchLabels match, then namespace/name, scanning only the namespace', () => {
    const t = targets({ database: { namespaced: true, objects } });
    const { result, record } = readCross(
      { crd: 'database', selector: { matchLabels: { tenant: 'acme' } } },
      { lookup: t.lookup, namespace: 'shop' },
    );
    // billing and audit are equally old; audit wins by name. ancient is older but in another namespace.
    expect(result.name).toBe('audit');
    expect(record).toEqual({
      crd: 'database',
      matchLabels: { tenant: 'acme' },
      namespace: 'shop',
      foundKey: 'shop/audit',
    });
    expect(t.calls).toEqual(['database.listByNamespace(shop)']);
    const none = readCross(
      { crd: 'database', selector: { matchLabels: { tenant: 'acme', tier: 'gold' } } },
      { lookup: t.lookup, namespace: 'shop' },
    );
    expect(none.result.found).toBe(false);
  });

  it('ignores the namespace for cluster-scoped targets', () => {
    const t = targets({
      tenant: {
        namespaced: false,
        objects: [
          db(undefined, 'acme', { labels: { tier: 'gold' } }),
          db(undefined, 'zeta', { labels: { tier: 'gold' }, created: '2019-01-01T00:00:00Z' }),
        ],
      },
    });
    const byName = readCross(
      { crd: 'tenant', selector: { name: 'acme', namespace: 'ignored' } },
      { lookup: t.lookup, namespace: 'shop' },
    );
    expect(byName.result).toMatchObject({ found: true, name: 'acme', namespace: '' });
    expect(byName.record.key).toBe('acme');
    const byLabels = readCross(
      { crd: 'tenant', selector: { matchLabels: { tier: 'gold' } } },
      { lookup: t.lookup, namespace: 'shop' },
    );
    expect(byLabels.result.name).toBe('zeta');
    expect(t.calls).toEqual(['tenant.getByName(-, acme)', 'tenant.list()']);
  });
});

describe('readCrossAll (strategy: all)', () => {
  const objects = [
    db('shop', 'orders', { labels: { tenant: 'acme' }, created: '2024-02-01T00:00:00Z' }),
    db('shop', 'billing', { labels: { tenant: 'acme' }, created: '2024-01-01T00:00:00Z' }),
    db('shop', 'audit', { labels: { tenant: 'acme' }, created: '2024-01-01T00:00:00Z' }),
    db('shop', 'solo', { labels: { tenant: 'other' } }),
    db('other', 'ancient', { labels: { tenant: 'acme' }, created: '2020-01-01T00:00:00Z' }),
  ];

  it('lists every matchLabels match in the namespace, oldest first then namespace/name, from the cache', () => {
    const t = targets({ database: { namespaced: true, objects } });
    const { results, record } = readCrossAll(
      { crd: 'database', selector: { matchLabels: { tenant: 'acme' } } },
      { lookup: t.lookup, namespace: 'shop' },
    );
    expect(results.map((r) => r.name)).toEqual(['audit', 'billing', 'orders']);
    expect(results.every((r) => r.found)).toBe(true);
    expect(results[1]).toMatchObject({ namespace: 'shop', status: { phase: 'Ready' } });
    // Every change of a matching CR re-queues the reader, as for `first`.
    expect(record).toEqual({ crd: 'database', matchLabels: { tenant: 'acme' }, namespace: 'shop' });
    expect(t.calls).toEqual(['database.listByNamespace(shop)']);
  });

  it('starts with what `first` (readCross) picks, for any set of matches', () => {
    const t = targets({ database: { namespaced: true, objects } });
    for (const namespace of ['shop', 'other']) {
      const selector = { matchLabels: { tenant: 'acme' } };
      const first = readCross({ crd: 'database', selector }, { lookup: t.lookup, namespace });
      const all = readCrossAll({ crd: 'database', selector }, { lookup: t.lookup, namespace });
      expect(all.results[0]).toEqual(first.result);
    }
  });

  it('is an empty list when nothing matches or the entry is unknown; a name selector gives at most one', () => {
    const t = targets({ database: { namespaced: true, objects } });
    const none = readCrossAll(
      { crd: 'database', selector: { matchLabels: { tenant: 'nobody' } } },
      { lookup: t.lookup, namespace: 'shop' },
    );
    expect(none.results).toEqual([]);
    expect(
      readCrossAll(
        { crd: 'nothing', selector: { matchLabels: { a: 'b' } } },
        { lookup: t.lookup, namespace: 'shop' },
      ).results,
    ).toEqual([]);
    const byName = readCrossAll(
      { crd: 'database', selector: { name: 'solo' } },
      { lookup: t.lookup, namespace: 'shop' },
    );
    expect(byName.results.map((r) => r.name)).toEqual(['solo']);
    expect(byName.record).toEqual({ crd: 'database', key: 'shop/solo', foundKey: 'shop/solo' });
    expect(
      readCrossAll({ crd: 'database', selector: { name: 'nope' } }, { lookup: t.lookup, namespace: 'shop' })
        .results,
    ).toEqual([]);
  });
});

describe('CrossReaders', () => {
  it('maps a changed target to the readers that read it by name, and replaces records after each reconcile', () => {
    const readers = new CrossReaders();
    readers.record('website:shop/a', [{ crd: 'database', key: 'shop/orders', foundKey: 'shop/orders' }]);
    readers.record('website:shop/b', [{ crd: 'database', key: 'shop/missing' }]);
    expect(readers.readersOf('database', db('shop', 'orders'))).toEqual(['website:shop/a']);
    // A CR that did not exist when it was read is noticed when it appears.
    expect(readers.readersOf('database', db('shop', 'missing'))).toEqual(['website:shop/b']);
    expect(readers.readersOf('database', db('other', 'orders'))).toEqual([]);
    expect(readers.readersOf('tenant', db('shop', 'orders'))).toEqual([]);

    readers.record('website:shop/a', [{ crd: 'database', key: 'shop/billing' }]);
    expect(readers.readersOf('database', db('shop', 'orders'))).toEqual([]);
    expect(readers.readersOf('database', db('shop', 'billing'))).toEqual(['website:shop/a']);
    readers.record('website:shop/a', []);
    expect(readers.size).toBe(1);
    readers.forget('website:shop/b');
    expect(readers.size).toBe(0);
    expect(readers.readersOf('database', db('shop', 'missing'))).toEqual([]);
  });

  it('matches matchLabels readers against the changed object (and its previous labels)', () => {
    const readers = new CrossReaders();
    readers.record('app:shop/x', [
      { crd: 'database', matchLabels: { tenant: 'acme' }, namespace: 'shop', foundKey: 'shop/audit' },
    ]);
    readers.record('app:cluster-wide', [{ crd: 'database', matchLabels: { tenant: 'acme' } }]);
    const newcomer = db('shop', 'fresh', { labels: { tenant: 'acme', extra: 'y' } });
    expect(readers.readersOf('database', newcomer).sort()).toEqual(['app:cluster-wide', 'app:shop/x']);
    expect(readers.readersOf('database', db('other', 'fresh', { labels: { tenant: 'acme' } }))).toEqual([
      'app:cluster-wide',
    ]);
    expect(readers.readersOf('database', db('shop', 'fresh', { labels: { tenant: 'other' } }))).toEqual([]);
    // The object that was returned lost its label: its readers must still hear about it.
    const relabelled = db('shop', 'audit', { labels: { tenant: 'other' } });
    expect(readers.readersOf('database', relabelled)).toEqual(['app:shop/x']);
    const previous = db('shop', 'gone', { labels: { tenant: 'acme' } });
    expect(readers.readersOf('database', db('shop', 'gone', { labels: {} }), previous).sort()).toEqual([
      'app:cluster-wide',
      'app:shop/x',
    ]);
  });

  it('maps a child change of a CR to the readers that read its children readiness, and no others', () => {
    const readers = new CrossReaders();
    readers.record('watcher:shop/live', [
      { crd: 'batch', key: 'shop/nightly', foundKey: 'shop/nightly', children: true },
    ]);
    readers.record('watcher:shop/plain', [{ crd: 'batch', key: 'shop/nightly', foundKey: 'shop/nightly' }]);
    readers.record('watcher:shop/fleet', [
      { crd: 'batch', matchLabels: { team: 'a' }, namespace: 'shop', children: true },
    ]);
    readers.record('watcher:shop/mixed', [
      { crd: 'batch', key: 'shop/nightly', foundKey: 'shop/nightly' },
      { crd: 'batch', key: 'shop/weekly', foundKey: 'shop/weekly', children: true },
    ]);
    const nightly = db('shop', 'nightly', { labels: { team: 'a' } });
    expect(readers.childReadersOf('batch', nightly).sort()).toEqual([
      'watcher:shop/fleet',
      'watcher:shop/live',
    ]);
    // A change of the CR itself still re-queues every reader of it.
    expect(readers.readersOf('batch', nightly).sort()).toEqual([
      'watcher:shop/fleet',
      'watcher:shop/live',
      'watcher:shop/mixed',
      'watcher:shop/plain',
    ]);
    expect(readers.childReadersOf('batch', db('shop', 'weekly'))).toEqual(['watcher:shop/mixed']);
    expect(readers.childReadersOf('batch', db('other', 'nightly', { labels: { team: 'a' } }))).toEqual([]);
    expect(readers.childReadersOf('database', nightly)).toEqual([]);
  });

  it('feeds readCross records straight into the index', () => {
    const t = targets({ database: { namespaced: true, objects: [db('shop', 'orders')] } });
    const readers = new CrossReaders();
    const reads = [
      readCross({ crd: 'database', selector: { name: 'orders' } }, { lookup: t.lookup, namespace: 'shop' })
        .record,
      readCross(
        { crd: 'database', selector: { matchLabels: { a: 'b' } } },
        { lookup: t.lookup, namespace: 'shop' },
      ).record,
    ];
    readers.record('website:shop/web', reads);
    expect(readers.recordsOf('website:shop/web')).toEqual(reads);
    expect(readers.readersOf('database', db('shop', 'orders', { rv: '2' }))).toEqual(['website:shop/web']);
    expect(readers.readersOf('database', db('shop', 'new', { labels: { a: 'b' } }))).toEqual([
      'website:shop/web',
    ]);
  });
});
