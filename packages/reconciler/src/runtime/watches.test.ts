import { createTemplateEngine } from '@orkestra/template';
import { loadKatalogOrThrow } from '@orkestra/types';
import { describe, expect, it } from 'vitest';
import { CacheChangeType } from '../cache.js';
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

function wire(box: string, enqueued: string[]): ReturnType<typeof wireWatches> {
  return wireWatches({
    crds: crdsOf(box),
    entries: new Map(
      ['site', 'other'].map((name) => [
        name,
        {
          controller: {
            enqueueKey: (key: string) => void enqueued.push(`${name}:${key}`),
            enqueueOwner: () => undefined,
          },
          cache: { get: () => undefined } as never,
        },
      ]),
    ),
    children: { subscribe: () => () => undefined, isOwnVersion: () => false } as never,
    katalogHooks: { forget: () => undefined, gitReadersOf: () => [] },
    crossReaders: { size: 1, readersOf: () => ['site:web/s'] } as never,
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
});
