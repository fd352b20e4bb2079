import { createTemplateEngine } from '@orkestra/template';
import { loadKatalogOrThrow } from '@orkestra/types';
import { describe, expect, it } from 'vitest';
import { CacheChangeType } from '../cache.js';
import type { CacheChange } from '../cache.js';
import { compileKatalog } from './compile-katalog.js';
import { wireWatches } from './watches.js';
import type { WatchesOptions } from './watches.js';

const clock = { now: () => 0, setTimeout: () => ({}), clearTimeout: () => undefined };

function crdsOf(box: string): WatchesOptions['crds'] {
  const katalog = loadKatalogOrThrow({
    text: `
apiVersion: orkestra.konductor.io/v1alpha1
kind: Katalog
metadata: {name: t}
spec:
  crds:
    site:
      apiTypes: {group: a.example.com, version: v1, kind: Site, plural: sites}
      operatorBox:
${box}
    other:
      apiTypes: {group: a.example.com, version: v1, kind: Other, plural: others}
`,
  });
  return [...compileKatalog(katalog, { engine: createTemplateEngine({ clock }) }).crds.values()];
}

/** ChildListener is what wireWatches subscribes to the child caches. */
type ChildListener = (change: CacheChange) => void;

function wire(
  box: string,
  enqueued: string[],
  childListeners: ChildListener[] = [],
): ReturnType<typeof wireWatches> {
  return wireWatches({
    crds: crdsOf(box),
    entries: new Map(
      ['site', 'other'].map((name) => [
        name,
        {
          controller: {
            enqueueKey: (key: string) => void enqueued.push(`${name}:${key}`),
            enqueueOwner: (uid: string) => void enqueued.push(`owner ${name}:${uid}`),
          },
          cache: {
            get: (key: string) =>
              key === 'web/x' ? ({ metadata: { name: 'x', namespace: 'web' } } as never) : undefined,
            keyOfUid: (uid: string) => (uid === 'uid-x' ? 'web/x' : undefined),
          } as never,
        },
      ]),
    ),
    children: {
      subscribe: (listener: ChildListener) => {
        childListeners.push(listener);
        return () => undefined;
      },
      isOwnVersion: () => false,
    } as never,
    katalogHooks: { forget: () => undefined, gitReadersOf: () => [] },
    crossReaders: {
      size: 1,
      readersOf: () => ['site:web/s'],
      childReadersOf: (crd: string, owner: { metadata: { name: string } }) => [
        `site:web/reads-children-of-${crd}-${owner.metadata.name}`,
      ],
    } as never,
    gitCheckouts: () => undefined,
    clock,
    logger: { warn: () => undefined } as never,
    gitPollTickMs: undefined,
  });
}

describe('wireWatches', () => {
  it('connects exactly the sources the entries’ enqueue tables list', () => {
    expect(wire('        finalizers: []', []).sources).toEqual(['primary', 'children']);
    const hooked = wire(
      `        cross: [{crd: other, selector: {name: x}}]
        git: {repo: 'https://example.com/r.git', pollInterval: 30s}`,
      [],
    );
    expect(hooked.sources).toEqual(['primary', 'children', 'cross-readers', 'git']);
    expect(hooked.gitPoller).toBeDefined();
    expect(wire('        finalizers: []', []).gitPoller).toBeUndefined();
  });

  it('re-queues cross readers on a change of a read CR only when an entry reads across entries', () => {
    const change = { type: CacheChangeType.Update, key: 'web/x', object: {} as never, old: {} as never };
    const none: string[] = [];
    wire('        finalizers: []', none).onPrimaryChange('other')(change);
    expect(none).toEqual([]);
    const some: string[] = [];
    wire('        cross: [{crd: other, selector: {name: x}}]', some).onPrimaryChange('other')(change);
    expect(some).toEqual(['site:web/s']);
  });

  it('re-queues the readers of a CR’s children readiness when a child comes, goes or changes readiness', () => {
    const child = (state: 'ready' | 'running'): never =>
      ({
        apiVersion: 'batch/v1',
        kind: 'Job',
        metadata: {
          name: 'x-run',
          namespace: 'web',
          resourceVersion: state === 'ready' ? '2' : '1',
          labels: { 'orkestra.konductor.io/crd': 'other', 'orkestra.konductor.io/owner-uid': 'uid-x' },
        },
        status:
          state === 'ready'
            ? { succeeded: 1, conditions: [{ type: 'Complete', status: 'True' }] }
            : { active: 1 },
      }) as never;
    const listeners: ChildListener[] = [];
    const enqueued: string[] = [];
    wire('        cross: [{crd: other, selector: {name: x}}]', enqueued, listeners);
    const emit = (change: CacheChange): string[] => {
      enqueued.length = 0;
      for (const listener of listeners) listener(change);
      return [...enqueued];
    };
    const reader = 'site:web/reads-children-of-other-x';
    expect(emit({ type: CacheChangeType.Add, key: 'web/x-run', object: child('running') })).toEqual([
      'owner other:uid-x',
      reader,
    ]);
    // An update that leaves the readiness state as it was re-queues the owner only.
    expect(
      emit({
        type: CacheChangeType.Update,
        key: 'web/x-run',
        object: child('running'),
        old: child('running'),
      }),
    ).toEqual(['owner other:uid-x']);
    expect(
      emit({ type: CacheChangeType.Update, key: 'web/x-run', object: child('ready'), old: child('running') }),
    ).toEqual(['owner other:uid-x', reader]);
    expect(emit({ type: CacheChangeType.Delete, key: 'web/x-run', object: child('ready') })).toEqual([
      'owner other:uid-x',
      reader,
    ]);
    // Without an entry that reads across entries, a child change re-queues its owner only.
    const alone: ChildListener[] = [];
    const ownerOnly: string[] = [];
    wire('        finalizers: []', ownerOnly, alone);
    for (const listener of alone)
      listener({ type: CacheChangeType.Delete, key: 'web/x-run', object: child('ready') });
    expect(ownerOnly).toEqual(['owner other:uid-x']);
  });
});
