import { ConflictError, NotFoundError } from '@orkestra/registry';
import type { KubeClient, KubeObject, ObjectRef } from '@orkestra/registry';
import { describe, expect, it } from 'vitest';
import { MigrationError, migrateStorageVersion } from './migrate-storage.js';

// The conflict handling of the storage migration (docs/reference/katalog.md §3.4, ADR 0085); the
// API server's side is test/storage-migration.integration.test.ts.

type Client = Pick<KubeClient, 'get' | 'list' | 'mergePatch' | 'patchStatus'>;

const CRD = {
  apiVersion: 'apiextensions.k8s.io/v1',
  kind: 'CustomResourceDefinition',
  metadata: { name: 'dbs.x.io' },
  spec: { group: 'x.io', names: { kind: 'Db' }, versions: [{ name: 'v1' }, { name: 'v2', storage: true }] },
  status: { storedVersions: ['v1', 'v2'] },
};

const db = (name: string, rv: string): KubeObject =>
  ({
    apiVersion: 'x.io/v2',
    kind: 'Db',
    metadata: { name, namespace: 'ns', resourceVersion: rv },
  }) as KubeObject;

function fakeClient(o: { readonly conflictsFor: Map<string, number>; readonly deletedOnRead?: string }): {
  client: Client;
  trimmed: unknown[];
  writes: string[];
} {
  const trimmed: unknown[] = [];
  const writes: string[] = [];
  let lists = 0;
  const rv = new Map<string, number>([
    ['a', 1],
    ['b', 1],
  ]);
  const fail = (verb: string, ref: ObjectRef, status: number, reason: 'Conflict' | 'NotFound') =>
    new (reason === 'Conflict' ? ConflictError : NotFoundError)({
      verb,
      ref,
      status,
      reason,
      message: reason,
    });
  const client: Client = {
    // Objects are read by list only (the operator's role lists and patches its CRs; it has no get).
    get: async (ref) => {
      if (ref.kind === 'CustomResourceDefinition') return CRD as unknown as KubeObject;
      throw new Error(`get ${ref.name}: forbidden (the role has no get on the CRs)`);
    },
    // The first list is the kind as listed; a later one (after a conflict) sees what was written since.
    list: async () => {
      const items = [...rv.keys()]
        .filter((name) => lists === 0 || name !== o.deletedOnRead)
        .map((name) => db(name, String(rv.get(name))));
      lists++;
      return { items, metadata: { resourceVersion: '1' } } as never;
    },
    mergePatch: async (ref, _patch, options) => {
      const left = o.conflictsFor.get(ref.name) ?? 0;
      if (left > 0 || options?.resourceVersion !== String(rv.get(ref.name))) {
        o.conflictsFor.set(ref.name, left - 1);
        rv.set(ref.name, (rv.get(ref.name) ?? 0) + 1); // someone else wrote it
        throw fail('patch', ref, 409, 'Conflict');
      }
      writes.push(`${ref.name}@${options.resourceVersion}`);
      return db(ref.name, String(rv.get(ref.name)));
    },
    patchStatus: async (_ref, status) => {
      trimmed.push(status);
      return CRD as unknown as KubeObject;
    },
  };
  return { client, trimmed, writes };
}

describe('migrateStorageVersion', () => {
  it('writes a conflicting object again with a fresh resourceVersion, and trims storedVersions after', async () => {
    const fake = fakeClient({ conflictsFor: new Map([['a', 2]]) });
    const result = await migrateStorageVersion(fake.client, { crdName: 'dbs.x.io' });
    expect(result).toMatchObject({
      needed: true,
      rewritten: 2,
      conflicts: 2,
      deleted: 0,
      storedVersions: ['v2'],
    });
    expect(fake.writes).toEqual(['b@1', 'a@3']);
    expect(fake.trimmed).toEqual([{ storedVersions: ['v2'] }]);
  });

  it('counts an object deleted before its fresh read as deleted', async () => {
    const fake = fakeClient({ conflictsFor: new Map([['a', 1]]), deletedOnRead: 'a' });
    const result = await migrateStorageVersion(fake.client, { crdName: 'dbs.x.io' });
    expect(result).toMatchObject({ rewritten: 1, conflicts: 1, deleted: 1 });
  });

  it('gives up after conflictAttempts and leaves storedVersions untrimmed', async () => {
    const fake = fakeClient({ conflictsFor: new Map([['b', 99]]) });
    const error = await migrateStorageVersion(fake.client, {
      crdName: 'dbs.x.io',
      conflictAttempts: 3,
    }).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(MigrationError);
    expect((error as MigrationError).code).toBe('MigrationConflict');
    expect(fake.trimmed).toEqual([]);
  });

  it('stops between two writes when its signal is aborted', async () => {
    const fake = fakeClient({ conflictsFor: new Map() });
    const stop = new AbortController();
    stop.abort();
    const error = await migrateStorageVersion(fake.client, {
      crdName: 'dbs.x.io',
      signal: stop.signal,
    }).catch((e: unknown) => e);
    expect((error as MigrationError).code).toBe('MigrationStopped');
    expect(fake.writes).toEqual([]);
    expect(fake.trimmed).toEqual([]);
  });

  it('keeps at most `concurrency` writes in flight, starts them at `ratePerSecond`, and trims after the last', async () => {
    const names = Array.from({ length: 24 }, (_, i) => `o${i}`);
    let inFlight = 0;
    let maxInFlight = 0;
    const starts: number[] = [];
    let done = 0;
    let trimmedAfter: number | undefined;
    const client: Client = {
      get: async () => CRD as unknown as KubeObject,
      list: async () => ({ items: names.map((n) => db(n, '1')), resourceVersion: '1' }),
      mergePatch: async (ref) => {
        starts.push(performance.now());
        maxInFlight = Math.max(maxInFlight, ++inFlight);
        await new Promise((r) => setTimeout(r, 15));
        inFlight--;
        done++;
        return db(ref.name, '2');
      },
      patchStatus: async () => {
        trimmedAfter = done + inFlight * 1000;
        return CRD as unknown as KubeObject;
      },
    };
    const result = await migrateStorageVersion(client, {
      crdName: 'dbs.x.io',
      concurrency: 3,
      ratePerSecond: 400,
    });
    expect(result.rewritten).toBe(names.length);
    expect(maxInFlight).toBe(3);
    // Every write done, none in flight, when storedVersions is trimmed.
    expect(trimmedAfter).toBe(names.length);
    // 400/s: starts at least 2.5 ms apart on average (timer granularity allows some slack each).
    const span = (starts.at(-1) ?? 0) - (starts[0] ?? 0);
    expect(span).toBeGreaterThanOrEqual((names.length - 1) * 2.5 - 5);
    expect(result.timings?.lists).toBe(1);
  });

  it('paces the starts of writes as a rate across the writes in flight', async () => {
    const names = Array.from({ length: 11 }, (_, i) => `o${i}`);
    const starts: number[] = [];
    const client: Client = {
      get: async () => CRD as unknown as KubeObject,
      list: async () => ({ items: names.map((n) => db(n, '1')), resourceVersion: '1' }),
      mergePatch: async (ref) => {
        starts.push(performance.now());
        return db(ref.name, '2');
      },
      patchStatus: async () => CRD as unknown as KubeObject,
    };
    const t = performance.now();
    await migrateStorageVersion(client, { crdName: 'dbs.x.io', concurrency: 4, ratePerSecond: 50 });
    // 11 writes at 50/s: the last starts 200 ms after the first, not 4 at once.
    expect((starts.at(-1) ?? 0) - t).toBeGreaterThanOrEqual(190);
    expect((starts[3] ?? 0) - (starts[0] ?? 0)).toBeGreaterThanOrEqual(55);
  });
});
