import { randomBytes } from 'node:crypto';
import { useControlPlane } from '@orkestra/testenv/vitest';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { KubeClient, KubeObject, Owner, ResolveHints, ResolvedChild } from '../src/index.js';
import { createKubeClient, InvalidError, kinds, NotFoundError, refOf } from '../src/index.js';
import type { KindCase } from './cases.js';
import { kindCases, WIDGET_CRD } from './cases.js';
import { MapCache } from './map-cache.js';
import { waitFor } from './wait-for.js';

const env = useControlPlane();
const run = randomBytes(3).toString('hex');
const cases = kindCases(run);

let client: KubeClient;
let intruder: KubeClient;
let owner: Owner;
let customHints: ResolveHints;
const cache = new MapCache();
const table = new Map<string, Record<string, number>>();

function record(kind: string, column: string, n: number): void {
  table.set(kind, { ...table.get(kind), [column]: n });
}

async function makeOwner(name: string, namespace: string): Promise<Owner> {
  const cm = await client.create({ apiVersion: 'v1', kind: 'ConfigMap', metadata: { name, namespace } });
  return { apiVersion: 'v1', kind: 'ConfigMap', name, namespace, uid: cm.metadata.uid ?? '', crd: 'website' };
}

function resolve(c: KindCase, entry: KindCase['entry'], o: Owner = owner): ResolvedChild {
  const hints = c.key === 'custom' ? customHints : (c.hints ?? {});
  return kinds[c.key].resolve({ entry, path: `onReconcile.${c.key}[0]` }, o, hints);
}

/** measure runs `fn` and returns its result and how many requests it sent. */
async function measure<T>(fn: () => Promise<T>): Promise<{ result: T; requests: number }> {
  const before = client.requests.snapshot();
  const result = await fn();
  return { result, requests: client.requests.totalSince(before) };
}

beforeAll(async () => {
  client = createKubeClient({ kubeConfig: env.kubeConfig });
  intruder = createKubeClient({ kubeConfig: env.kubeConfig, fieldManager: 'intruder' });
  await client.apply(WIDGET_CRD as unknown as KubeObject);
  const info = await waitFor('the Widget CRD to be served', () =>
    client.discover({ apiVersion: 'test.orkestra.dev/v1', kind: 'Widget' }),
  );
  customHints = { namespaced: info.namespaced };
  owner = await makeOwner('owner', env.namespace);
});

afterAll(() => {
  const columns = [
    'create first',
    'create again',
    'apply first',
    'apply changed',
    'apply unchanged',
    'apply drift',
    'delete',
    'delete again',
  ];
  const lines = [`| kind | ${columns.join(' | ')} |`, `| --- | ${columns.map(() => '---:').join(' | ')} |`];
  for (const [kind, row] of table)
    lines.push(`| ${kind} | ${columns.map((c) => (row[c] == null ? '–' : String(row[c]))).join(' | ')} |`);
  const text = lines.join('\n');
  console.log(`\nRequests per operation (from client.requests):\n${text}\n`);
});

describe.each(cases)('$key', (c) => {
  const kind = kinds[c.key];
  const ensure = (child: ResolvedChild, mode: 'create' | 'apply') =>
    kind.ensure(child.manifest, { mode, cache, client, onWritten: cache.put });

  it('create is idempotent: the second call sends no request', async () => {
    const child = resolve(c, c.entry);
    const first = await measure(() => ensure(child, 'create'));
    expect(first.result).toBe('created');
    record(c.key, 'create first', first.requests);
    const again = await measure(() => ensure(child, 'create'));
    expect(again).toEqual({ result: 'unchanged', requests: 0 });
    record(c.key, 'create again', again.requests);
  });

  it('create of an object missing from the cache costs one GET and counts as present', async () => {
    const child = resolve(c, c.entry);
    const empty = new MapCache();
    const seen: KubeObject[] = [];
    const res = await measure(() =>
      kind.ensure(child.manifest, { mode: 'create', cache: empty, client, onWritten: (o) => seen.push(o) }),
    );
    expect(res.result).toBe('unchanged');
    expect(res.requests).toBe(2); // the refused POST and one GET
    expect(seen.map((o) => o.metadata.uid)).toEqual([cache.get(child.ref)?.metadata.uid]);
  });

  if (kind.createOnly) {
    it('apply mode never writes (create-only kind)', async () => {
      const changed = resolve(c, c.changed);
      const res = await measure(() => ensure(changed, 'apply'));
      expect(res).toEqual({ result: 'unchanged', requests: 0 });
      const live = await client.get(changed.ref);
      expect(JSON.stringify(live['spec'])).not.toContain('"false"');
    });
  } else {
    it('apply writes once, then an unchanged desired state sends 0 requests', async () => {
      const child = resolve(c, c.entry);
      const first = await measure(() => ensure(child, 'apply'));
      expect(first.result).toBe('updated'); // the created object had no applied-hash yet
      record(c.key, 'apply first', first.requests);
      const changed = resolve(c, c.changed);
      const applied = await measure(() => ensure(changed, 'apply'));
      expect(applied).toEqual({ result: 'updated', requests: 1 });
      record(c.key, 'apply changed', applied.requests);
      const again = await measure(() => ensure(resolve(c, c.changed), 'apply'));
      expect(again).toEqual({ result: 'unchanged', requests: 0 });
      record(c.key, 'apply unchanged', again.requests);
    });

    it('apply corrects drift on an owned field and leaves a field of another manager alone', async () => {
      const changed = resolve(c, c.changed);
      await intruder.mergePatch(changed.ref, {
        ...c.drift.patch,
        metadata: {
          ...(c.drift.patch['metadata'] as object),
          annotations: { 'intruder.example.com/note': 'mine' },
        },
      });
      await cache.refresh(client, changed.ref); // what a watch event would deliver
      expect(c.drift.owned(cache.get(changed.ref) as KubeObject)).toBe(false);
      const res = await measure(() => ensure(changed, 'apply'));
      expect(res).toEqual({ result: 'updated', requests: 1 });
      record(c.key, 'apply drift', res.requests);
      const live = await client.get(changed.ref);
      expect(c.drift.owned(live)).toBe(true);
      expect(live.metadata.annotations?.['intruder.example.com/note']).toBe('mine');
    });
  }

  it('an invalid spec fails with a typed Invalid error naming the field (ApplyFailed, terminal)', async () => {
    const bad = resolve(c, c.invalid.entry);
    const error = await kind
      .ensure(bad.manifest, { mode: kind.createOnly ? 'create' : 'apply', cache, client })
      .then(
        () => undefined,
        (err: unknown) => err,
      );
    expect(error).toBeInstanceOf(InvalidError);
    expect((error as InvalidError).fields.join(' ')).toContain(c.invalid.field);
    expect((error as InvalidError).reason).toBe('Invalid');
    expect([(error as InvalidError).code, (error as InvalidError).retryable]).toEqual(['ApplyFailed', false]);
  });

  it('delete is idempotent', async () => {
    const child = resolve(c, c.entry);
    const uid = cache.get(child.ref)?.metadata.uid;
    expect(uid).toBeDefined();
    const first = await measure(() => kind.remove(child.ref, { client, ...(uid == null ? {} : { uid }) }));
    expect(first).toEqual({ result: 'deleted', requests: 1 });
    record(c.key, 'delete', first.requests);
    cache.forget(child.ref);
    if (c.finalizes === true) {
      // The object lingers until its finalizer is removed; a second delete of a terminating
      // object succeeds without error ('deleted'), of a vanished one with 'absent'.
      const again = await measure(() => kind.remove(child.ref, { client, ...(uid == null ? {} : { uid }) }));
      expect(['deleted', 'absent']).toContain(again.result);
      expect(again.requests).toBe(1);
      const live = await client
        .get(child.ref)
        .catch((err: unknown) => (err instanceof NotFoundError ? undefined : Promise.reject(err)));
      expect(live == null || live.metadata['deletionTimestamp'] != null).toBe(true);
      record(c.key, 'delete again', again.requests);
      return;
    }
    const again = await measure(() => kind.remove(child.ref, { client, ...(uid == null ? {} : { uid }) }));
    expect(again).toEqual({ result: 'absent', requests: 1 });
    record(c.key, 'delete again', again.requests);
  });
});

describe('ownership', () => {
  it(
    'deleting the owner garbage-collects its owned children (every kind)',
    { timeout: 150_000 },
    async () => {
      expect(env.controllerManager).toBe(true);
      const ns = `gc-${run}`;
      await client.create({ apiVersion: 'v1', kind: 'Namespace', metadata: { name: ns } });
      const gcOwner = await makeOwner('gc-owner', ns);
      const clusterRole = await client.create({
        apiVersion: 'rbac.authorization.k8s.io/v1',
        kind: 'ClusterRole',
        metadata: { name: `gc-owner-${run}` },
        rules: [],
      });
      const clusterOwner: Owner = {
        apiVersion: 'rbac.authorization.k8s.io/v1',
        kind: 'ClusterRole',
        name: `gc-owner-${run}`,
        uid: clusterRole.metadata.uid ?? '',
        crd: 'cluster-website',
      };
      const children: ResolvedChild[] = [];
      for (const c of cases) {
        const o = c.key === 'namespaces' ? clusterOwner : gcOwner;
        const entry = c.key === 'namespaces' ? { name: `${run}-gc-child` } : c.entry;
        const child = resolve(c, entry, o);
        expect(child.manifest.metadata.ownerReferences?.[0]?.uid).toBe(o.uid);
        await kinds[c.key].ensure(child.manifest, { mode: 'create', cache: new MapCache(), client });
        children.push(child);
      }
      await client.delete(
        refOf({ apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'gc-owner', namespace: ns } }),
      );
      await client.delete({
        apiVersion: 'rbac.authorization.k8s.io/v1',
        kind: 'ClusterRole',
        name: `gc-owner-${run}`,
      });
      await waitFor(
        'garbage collection of every child',
        async () => {
          const left: string[] = [];
          for (const child of children) {
            const live = await client
              .get(child.ref)
              .catch((err: unknown) => (err instanceof NotFoundError ? undefined : Promise.reject(err)));
            // A Namespace under deletion waits for the namespace controller; being deleted is enough.
            if (live != null && live.metadata['deletionTimestamp'] == null)
              left.push(`${child.ref.kind}/${child.ref.name}`);
          }
          return left.length === 0 ? true : undefined;
        },
        120_000,
      );
    },
  );

  it(
    'two owners with the same name in different namespaces never touch each other’s children',
    { timeout: 150_000 },
    async () => {
      const [nsA, nsB] = [`twin-a-${run}`, `twin-b-${run}`];
      for (const name of [nsA, nsB])
        await client.create({ apiVersion: 'v1', kind: 'Namespace', metadata: { name } });
      const ownerA = await makeOwner('twin', nsA);
      const ownerB = await makeOwner('twin', nsB);
      const twinCache = new MapCache();
      const entry = { name: 'shared', data: { who: 'x' } };
      const childA = kinds.configMaps.resolve({ entry, path: 'onReconcile.configMaps[0]' }, ownerA);
      const childB = kinds.configMaps.resolve({ entry, path: 'onReconcile.configMaps[0]' }, ownerB);
      const deployA = kinds.deployments.resolve(
        { entry: { name: 'web', image: 'nginx' }, path: 'onReconcile.deployments[0]' },
        ownerA,
      );
      const deployB = kinds.deployments.resolve(
        { entry: { name: 'web', image: 'nginx' }, path: 'onReconcile.deployments[0]' },
        ownerB,
      );
      for (const child of [childA, childB, deployA, deployB]) {
        await expect(
          kinds[child.ref.kind === 'ConfigMap' ? 'configMaps' : 'deployments'].ensure(child.manifest, {
            mode: 'apply',
            cache: twinCache,
            client,
            onWritten: twinCache.put,
          }),
        ).resolves.toBe('created');
      }
      expect(
        twinCache
          .listOwned(ownerA.uid, { apiVersion: 'v1', kind: 'ConfigMap' })
          .map((o) => o.metadata.namespace),
      ).toEqual([nsA]);
      // The selectors differ by owner UID, so neither Deployment can select the other's pods.
      expect(JSON.stringify(deployA.manifest['spec'])).toContain(ownerA.uid);
      expect(JSON.stringify(deployA.manifest['spec'])).not.toContain(ownerB.uid);

      // Owner B pointing an entry at A's object: refused from the cache, nothing sent.
      const intrusion = kinds.configMaps.resolve(
        { entry: { ...entry, namespace: nsA }, path: 'onReconcile.configMaps[1]' },
        ownerB,
      );
      const before = client.requests.snapshot();
      await expect(
        kinds.configMaps.ensure(intrusion.manifest, { mode: 'apply', cache: twinCache, client }),
      ).rejects.toMatchObject({
        code: 'ChildOwnedByOther',
      });
      expect(client.requests.totalSince(before)).toBe(0);

      await client.delete({ apiVersion: 'v1', kind: 'ConfigMap', namespace: nsA, name: 'twin' });
      await waitFor(
        'A’s children to be collected',
        async () => {
          const gone = await Promise.all(
            [childA.ref, deployA.ref].map((ref) =>
              client.get(ref).then(
                () => false,
                (err: unknown) => (err instanceof NotFoundError ? true : Promise.reject(err)),
              ),
            ),
          );
          return gone.every(Boolean) ? true : undefined;
        },
        120_000,
      );
      const liveB = await client.get(childB.ref);
      expect(liveB.metadata.uid).toBe(twinCache.get(childB.ref)?.metadata.uid);
      await expect(client.get(deployB.ref)).resolves.toBeDefined();
    },
  );

  it('a roleRef change deletes and recreates the RoleBinding', async () => {
    const c = cases.find((x) => x.key === 'roleBindings') as KindCase;
    const entry = { name: 'rebind', roleRef: { name: 'reader' }, subjects: [{ name: 'robot' }] };
    const first = resolve(c, entry);
    await expect(
      kinds.roleBindings.ensure(first.manifest, { mode: 'apply', cache, client, onWritten: cache.put }),
    ).resolves.toBe('created');
    const uid = cache.get(first.ref)?.metadata.uid;
    const second = resolve(c, { ...entry, roleRef: { kind: 'ClusterRole', name: 'view' } });
    const res = await measure(() =>
      kinds.roleBindings.ensure(second.manifest, { mode: 'apply', cache, client, onWritten: cache.put }),
    );
    // delete + GET + apply: the apply runs against an empty cache view, and a cache miss reads the
    // live object first so that nothing is adopted (ADR 0032).
    expect(res).toEqual({ result: 'updated', requests: 3 });
    const live = await client.get(second.ref);
    expect(live.metadata.uid).not.toBe(uid);
    expect(live['roleRef']).toMatchObject({ kind: 'ClusterRole', name: 'view' });
  });

  it('Foreground propagation is passed through', async () => {
    const child = kinds.configMaps.resolve(
      { entry: { name: 'fg', data: { a: '1' } }, path: 'onReconcile.configMaps[0]' },
      owner,
    );
    await kinds.configMaps.ensure(child.manifest, { mode: 'create', cache, client, onWritten: cache.put });
    await expect(
      kinds.configMaps.remove(child.ref, { client, propagationPolicy: 'Foreground' }),
    ).resolves.toBe('deleted');
    // Foreground deletion puts the `foregroundDeletion` finalizer on the object until the garbage
    // collector has handled its dependents; then it disappears.
    const live = await client
      .get(child.ref)
      .catch((err: unknown) => (err instanceof NotFoundError ? undefined : Promise.reject(err)));
    if (live != null) expect(live.metadata['finalizers']).toContain('foregroundDeletion');
    await waitFor('the ConfigMap to disappear', () =>
      client.get(child.ref).then(
        () => undefined,
        (err: unknown) => (err instanceof NotFoundError ? true : Promise.reject(err)),
      ),
    );
    await expect(
      kinds.configMaps.remove(child.ref, { client, propagationPolicy: 'Foreground' }),
    ).resolves.toBe('absent');
  });
});
