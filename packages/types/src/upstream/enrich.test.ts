import { describe, expect, it } from 'vitest';
import { enrichRules, enrichWatchItems } from '../schema/crd-parts.js';
import { head, load, ok } from './dialect-fixtures.test-support.js';

/** Upstream's `enrichAll` / `enrich` (docs/reference/katalog.md §3.5, §24); fixtures written here, not copied. */

const entryOf = (text: string) => ok(load(text)).katalog.spec.crds['website'];

describe('enrichAll', () => {
  it('with enrich is refused for upstream’s reason, once, at enrichAll', () => {
    const result = load(`${head()}      enrichAll: true\n      enrich: [pods]\n`);
    expect(result.ok).toBe(false);
    if (result.ok) return;
    expect(result.errors.map((e) => [e.line, e.column, e.path, e.message])).toEqual([
      [
        13,
        7,
        'spec.crds.website.enrichAll',
        'enrichAll and enrich are mutually exclusive: use enrichAll: true or enrich: [...] (upstream refuses both)',
      ],
    ]);
  });

  it('alone is refused naming the targets Orkestra adds', () => {
    const result = load(`${head()}      enrichAll: true\n`);
    expect(result.ok).toBe(false);
    if (result.ok) return;
    expect(result.errors[0]?.message).toMatch(
      /enrichAll.*write `enrich: \[pods, endpoints, owner, backingpods, replicasets, pvcs, cronjob, node, pvc, storageclass, events\]`/,
    );
  });

  it('enrichAll: false is removed', () => {
    expect(load(`${head()}      enrichAll: false\n`).ok).toBe(true);
  });
});

describe('enrich', () => {
  it('keeps pods and endpoints, in either list form', () => {
    expect(entryOf(`${head()}      enrich: [pods, endpoints]\n`)?.enrich).toEqual(['pods', 'endpoints']);
    expect(entryOf(`${head()}      enrich:\n        - endpoints\n`)?.enrich).toEqual(['endpoints']);
    expect(entryOf(head())?.enrich).toEqual([]);
  });

  it('keeps the targets served from informer caches (owner, backingpods, replicasets, pvcs, cronjob)', () => {
    expect(
      entryOf(`${head()}      enrich: [owner, backingpods, replicasets, pvcs, cronjob]\n`)?.enrich,
    ).toEqual(['owner', 'backingpods', 'replicasets', 'pvcs', 'cronjob']);
  });

  it('keeps the cluster-scoped targets (node, pvc, storageclass) and refuses ingress, naming why', () => {
    expect(entryOf(`${head()}      enrich: [node, pvc, storageclass]\n`)?.enrich).toEqual([
      'node',
      'pvc',
      'storageclass',
    ]);
    const result = load(`${head()}      enrich:\n        - pvc\n        - ingress\n`);
    expect(result.ok).toBe(false);
    if (result.ok) return;
    expect(result.errors.map((e) => [e.line, e.column, e.path])).toEqual([
      [15, 11, 'spec.crds.website.enrich[1]'],
    ]);
    expect(result.errors[0]?.message).toMatch(
      /^enrich target `ingress` has no counterpart in Orkestra: .*every Secret/,
    );
  });

  it('removes hpa with a note (the HPA notes read the HPA itself)', () => {
    expect(entryOf(`${head()}      enrich: [hpa]\n`)?.enrich).toEqual([]);
  });

  it('refuses a target Orkestra does not add, at its position, with what to read instead', () => {
    const result = load(`${head()}      enrich:\n        - pods\n        - ingress\n`);
    expect(result.ok).toBe(false);
    if (result.ok) return;
    expect(result.errors.map((e) => [e.line, e.column, e.path])).toEqual([
      [15, 11, 'spec.crds.website.enrich[1]'],
    ]);
    expect(result.errors[0]?.message).toMatch(
      /^enrich target `ingress` has no counterpart in Orkestra: an Ingress/,
    );
  });

  it('keeps a conditional target with its gate, watched as the target is; refuses two targets in one item', () => {
    const entry = entryOf(
      `${head()}      enrich:\n        - pods\n        - events:\n            when:\n              - {field: spec.debug, equals: "true"}\n            or:\n              - {field: spec.tier, equals: gold}\n`,
    );
    expect(enrichRules(entry?.enrich)).toEqual([
      { target: 'pods' },
      {
        target: 'events',
        gate: {
          when: [expect.objectContaining({ field: 'spec.debug', operator: 'equals', value: 'true' })],
          anyOf: [expect.objectContaining({ field: 'spec.tier', operator: 'equals', value: 'gold' })],
        },
      },
    ]);
    expect(enrichWatchItems(entry ?? {}).map((i) => i.kind)).toEqual(['Pod', 'Event']);
    const two = load(
      `${head()}      enrich:\n        - pods: {when: [{field: spec.a, equals: "1"}]}\n          events: {}\n`,
    );
    expect(two.ok).toBe(false);
    if (!two.ok)
      expect(two.errors.map((e) => [e.line, e.path])).toEqual([[14, 'spec.crds.website.enrich[0]']]);
  });

  it('is watched as the kinds its targets read, once each; owner watches nothing', () => {
    expect(
      enrichWatchItems({ enrich: ['pods', 'endpoints', 'pods'] }).map((i) => `${i.apiVersion} ${i.kind}`),
    ).toEqual(['v1 Pod', 'discovery.k8s.io/v1 EndpointSlice']);
    expect(
      enrichWatchItems({ enrich: ['owner', 'backingpods', 'pods', 'replicasets', 'pvcs', 'cronjob'] }).map(
        (i) => `${i.apiVersion} ${i.kind}`,
      ),
    ).toEqual(['v1 Pod', 'apps/v1 ReplicaSet', 'v1 PersistentVolumeClaim', 'batch/v1 Job']);
    expect(
      enrichWatchItems({ enrich: ['node', 'pvc', 'storageclass'] }).map((i) => `${i.apiVersion} ${i.kind}`),
    ).toEqual(['v1 Node', 'v1 PersistentVolume', 'storage.k8s.io/v1 StorageClass']);
    // `events` lists only Warning events, and re-queues nothing.
    expect(enrichWatchItems({ enrich: ['events'] })).toEqual([
      { apiVersion: 'v1', kind: 'Event', on: [], enrich: true, fieldSelector: 'type=Warning' },
    ]);
    expect(enrichWatchItems({ enrich: ['owner'] })).toEqual([]);
    expect(enrichWatchItems({})).toEqual([]);
  });
});
