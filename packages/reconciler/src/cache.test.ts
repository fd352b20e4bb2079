import { describe, expect, it } from 'vitest';
import { LAST_APPLIED_ANNOTATION, OWNER_UID_LABEL, ObjectCache } from './cache.js';
import { isNewerResourceVersion, keyOf } from './kube-object.js';
import type { KubeObject } from './kube-object.js';

function obj(
  name: string,
  rv: string,
  extra: {
    namespace?: string;
    uid?: string;
    labels?: Record<string, string>;
    data?: Record<string, string>;
  } = {},
): KubeObject {
  return {
    apiVersion: 'v1',
    kind: 'ConfigMap',
    metadata: {
      name,
      ...(extra.namespace == null ? {} : { namespace: extra.namespace }),
      uid: extra.uid ?? `uid-${extra.namespace ?? ''}-${name}`,
      resourceVersion: rv,
      ...(extra.labels == null ? {} : { labels: extra.labels }),
    },
    data: extra.data ?? {},
  };
}

describe('isNewerResourceVersion', () => {
  it('compares decimal versions as integers', () => {
    expect(isNewerResourceVersion('10', '9')).toBe(true);
    expect(isNewerResourceVersion('9', '10')).toBe(false);
    expect(isNewerResourceVersion('10', '10')).toBe(false);
    expect(isNewerResourceVersion('123456789012345678901', '123456789012345678900')).toBe(true);
  });

  it('lets any different non-decimal version win and treats missing current as older', () => {
    expect(isNewerResourceVersion('abc', '10')).toBe(true);
    expect(isNewerResourceVersion('9', 'x9')).toBe(true);
    expect(isNewerResourceVersion('abc', 'abc')).toBe(false);
    expect(isNewerResourceVersion('1', undefined)).toBe(true);
    expect(isNewerResourceVersion(undefined, '1')).toBe(false);
  });
});

describe('keyOf', () => {
  it('is namespace/name or name', () => {
    expect(keyOf(obj('a', '1', { namespace: 'ns' }))).toBe('ns/a');
    expect(keyOf(obj('a', '1'))).toBe('a');
  });
});

describe('ObjectCache', () => {
  it('stores objects frozen, without managedFields or the last-applied annotation, and copies them', () => {
    const cache = new ObjectCache();
    const input = {
      ...obj('a', '1', { namespace: 'ns' }),
      metadata: {
        name: 'a',
        namespace: 'ns',
        resourceVersion: '1',
        managedFields: [{ manager: 'kubectl' }],
        annotations: { [LAST_APPLIED_ANNOTATION]: '{}', keep: 'me' },
      },
      spec: { nested: { value: 1 } },
    };
    cache.applyEvent('ADDED', input);
    const stored = cache.get('ns/a');
    expect(stored?.metadata['managedFields']).toBeUndefined();
    expect(stored?.metadata.annotations).toEqual({ keep: 'me' });
    expect(Object.isFrozen(stored)).toBe(true);
    expect(Object.isFrozen((stored?.['spec'] as { nested: object }).nested)).toBe(true);
    input.spec.nested.value = 2;
    expect((stored?.['spec'] as { nested: { value: number } }).nested.value).toBe(1);
    expect(input.metadata.managedFields).toHaveLength(1);
  });

  it('reports add, update and delete from watch events', () => {
    const cache = new ObjectCache();
    expect(cache.applyEvent('ADDED', obj('a', '1', { namespace: 'ns' }))?.type).toBe('add');
    const update = cache.applyEvent('MODIFIED', obj('a', '2', { namespace: 'ns', data: { x: '1' } }));
    expect(update?.type).toBe('update');
    expect(update?.old?.metadata.resourceVersion).toBe('1');
    const del = cache.applyEvent('DELETED', obj('a', '3', { namespace: 'ns' }));
    expect(del?.type).toBe('delete');
    expect(del?.object.metadata.resourceVersion).toBe('2');
    expect(cache.size).toBe(0);
  });

  it('ignores events whose resource version is not newer than the cached one', () => {
    const cache = new ObjectCache();
    cache.applyEvent('ADDED', obj('a', '5'));
    expect(cache.applyEvent('MODIFIED', obj('a', '5', { data: { echo: 'y' } }))).toBeUndefined();
    expect(cache.applyEvent('MODIFIED', obj('a', '4'))).toBeUndefined();
    expect(cache.applyEvent('DELETED', obj('a', '4'))).toBeUndefined();
    expect(cache.applyEvent('DELETED', obj('unknown', '9'))).toBeUndefined();
    expect(cache.get('a')?.metadata.resourceVersion).toBe('5');
  });

  it('keeps a written object until the watch brings a newer version', () => {
    const cache = new ObjectCache();
    cache.applyEvent('ADDED', obj('a', '10'));
    expect(cache.upsertFromWrite(obj('a', '12', { data: { written: 'yes' } }))).toBe(true);
    // The lagging watch delivers the intermediate and the echo of our own write: both ignored.
    expect(cache.applyEvent('MODIFIED', obj('a', '11'))).toBeUndefined();
    expect(cache.applyEvent('MODIFIED', obj('a', '12'))).toBeUndefined();
    expect(cache.get('a')?.['data']).toEqual({ written: 'yes' });
    expect(cache.applyEvent('MODIFIED', obj('a', '13'))?.type).toBe('update');
    // A write result older than the cache does not regress it.
    expect(cache.upsertFromWrite(obj('a', '12'))).toBe(false);
    expect(cache.get('a')?.metadata.resourceVersion).toBe('13');
  });

  it('indexes by namespace, UID and owner-UID label, and keeps indexes current', () => {
    const cache = new ObjectCache();
    cache.applyEvent(
      'ADDED',
      obj('a', '1', { namespace: 'n1', uid: 'u-a', labels: { [OWNER_UID_LABEL]: 'owner-1' } }),
    );
    cache.applyEvent(
      'ADDED',
      obj('b', '2', { namespace: 'n1', uid: 'u-b', labels: { [OWNER_UID_LABEL]: 'owner-1' } }),
    );
    cache.applyEvent('ADDED', obj('c', '3', { namespace: 'n2', uid: 'u-c' }));
    cache.applyEvent('ADDED', obj('global', '4', { uid: 'u-g' }));
    expect(cache.listByNamespace('n1').map(keyOf).sort()).toEqual(['n1/a', 'n1/b']);
    expect(cache.listByNamespace('n2').map(keyOf)).toEqual(['n2/c']);
    expect(cache.getByUid('u-c')?.metadata.name).toBe('c');
    expect(cache.keyOfUid('u-g')).toBe('global');
    expect(cache.getByName(undefined, 'global')?.metadata.uid).toBe('u-g');
    expect(cache.getByName('n1', 'a')?.metadata.uid).toBe('u-a');
    expect(cache.listByOwnerUid('owner-1').map(keyOf).sort()).toEqual(['n1/a', 'n1/b']);

    cache.applyEvent(
      'MODIFIED',
      obj('b', '5', { namespace: 'n1', uid: 'u-b', labels: { [OWNER_UID_LABEL]: 'owner-2' } }),
    );
    expect(cache.listByOwnerUid('owner-1').map(keyOf)).toEqual(['n1/a']);
    expect(cache.listByOwnerUid('owner-2').map(keyOf)).toEqual(['n1/b']);
    cache.applyEvent('DELETED', obj('a', '6', { namespace: 'n1', uid: 'u-a' }));
    expect(cache.listByOwnerUid('owner-1')).toEqual([]);
    expect(cache.getByUid('u-a')).toBeUndefined();
    expect(cache.listByNamespace('n1').map(keyOf)).toEqual(['n1/b']);
  });

  it('re-indexes the UID when an object is recreated under the same name', () => {
    const cache = new ObjectCache();
    cache.applyEvent('ADDED', obj('a', '1', { uid: 'old' }));
    cache.applyEvent('ADDED', obj('a', '7', { uid: 'new' }));
    expect(cache.getByUid('old')).toBeUndefined();
    expect(cache.getByUid('new')?.metadata.resourceVersion).toBe('7');
  });

  it('replace diffs a relist against the cache, including deletions missed while disconnected', () => {
    const cache = new ObjectCache();
    cache.replace([obj('a', '1'), obj('b', '2'), obj('c', '3')], '3');
    const changes = cache.replace([obj('a', '1'), obj('b', '8'), obj('d', '9')], '10');
    expect(changes.map((c) => `${c.type}:${c.key}`).sort()).toEqual(['add:d', 'delete:c', 'update:b']);
    expect(cache.keys().sort()).toEqual(['a', 'b', 'd']);
  });

  it('replace keeps objects written after the list snapshot', () => {
    const cache = new ObjectCache();
    cache.replace([obj('a', '5')], '5');
    cache.upsertFromWrite(obj('a', '20'));
    cache.upsertFromWrite(obj('fresh', '21'));
    const changes = cache.replace([obj('a', '5')], '10');
    expect(changes).toEqual([]);
    expect(cache.get('a')?.metadata.resourceVersion).toBe('20');
    expect(cache.get('fresh')).toBeDefined();
    // A cached object older than the list that the list lacks was deleted meanwhile.
    expect(cache.replace([obj('a', '20')], '30').map((c) => `${c.type}:${c.key}`)).toEqual(['delete:fresh']);
  });
});

describe('own write versions (docs/reference/runtime.md §4)', () => {
  it('remembers the versions its own writes returned, even when the echo came first', () => {
    const cache = new ObjectCache();
    const v = (resourceVersion: string) => ({
      apiVersion: 'v1',
      kind: 'ConfigMap',
      metadata: { name: 'a', namespace: 'ns', resourceVersion },
    });
    expect(cache.applyEvent('ADDED', v('5'))).toBeDefined();
    expect(cache.upsertFromWrite(v('5'))).toBe(false);
    expect(cache.isOwnVersion('5')).toBe(true);
    expect(cache.applyEvent('MODIFIED', v('7'))).toBeDefined();
    expect(cache.isOwnVersion('7')).toBe(false);
    expect(cache.isOwnVersion(undefined)).toBe(false);
  });
});
