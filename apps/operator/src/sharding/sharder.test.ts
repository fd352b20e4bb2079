import { ConflictError, NotFoundError } from '@orkestra/registry';
import { OrkestraLabel } from '@orkestra/types';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { ShardAssignment } from './assign.js';
import { objectKey } from './ring.js';
import { Sharder, ShardLeaseWatch } from './sharder.js';
import type { SharderOptions } from './sharder.js';

const LEASES = '/apis/coordination.k8s.io/v1/namespaces/ops/leases';
const APPS = '/apis/shop.example.com/v1/namespaces/web/apps';
const key = (name: string) => objectKey({ group: 'shop.example.com', kind: 'App', namespace: 'web', name });

/** An API server of Leases and App metadata: lists answer from memory, watches stay open and silent. */
function fakeServer(apps: { name: string; labels?: Record<string, string> }[], holders: string[]) {
  const lists: string[] = [];
  let leaseWatch: { onEvent: (event: { type: string; object: unknown }) => void } | undefined;
  const patches: { name: string; labels: Record<string, unknown>; resourceVersion?: string }[] = [];
  const leases = holders.map((holder) => ({
    apiVersion: 'coordination.k8s.io/v1',
    kind: 'Lease',
    metadata: { name: `orkestra-shop-shard-${holder}`, namespace: 'ops', resourceVersion: '1' },
    spec: { holderIdentity: holder, renewTime: '2026-12-05T00:00:00.000000Z', leaseDurationSeconds: 15 },
  }));
  const items = apps.map((app, i) => ({
    apiVersion: 'meta.k8s.io/v1',
    kind: 'PartialObjectMetadata',
    metadata: {
      name: app.name,
      namespace: 'web',
      resourceVersion: String(100 + i),
      labels: app.labels ?? {},
    },
  }));
  const listWatch: SharderOptions['listWatch'] = {
    list: (path, query) => {
      lists.push(path);
      const all = path === LEASES ? leases : path === APPS ? items : [];
      const limit = Number(query['limit'] ?? all.length);
      const start = Number(query['continue'] ?? 0);
      const next = start + limit < all.length ? String(start + limit) : undefined;
      return Promise.resolve({
        metadata: { resourceVersion: '1000', ...(next == null ? {} : { continue: next }) },
        items: all.slice(start, start + limit),
      });
    },
    watch: (path, _query, handlers) => {
      if (path === LEASES) leaseWatch = handlers;
      return { abort: () => undefined };
    },
  };
  /** While set, every patch waits for it (a slow API server). */
  let hold: Promise<void> | undefined;
  const client: SharderOptions['client'] = {
    mergePatch: async (ref, patch, options) => {
      await hold;
      const labels = (patch as { metadata: { labels: Record<string, unknown> } }).metadata.labels;
      patches.push({
        name: ref.name,
        labels,
        ...(options?.resourceVersion == null ? {} : { resourceVersion: options.resourceVersion }),
      });
      return { apiVersion: 'v1', kind: 'x', metadata: {} };
    },
    // A Lease delete with a resource-version precondition, seen by the watch as DELETED.
    delete: (ref, options) => {
      deletes.push({
        name: ref.name,
        ...(options?.resourceVersion == null ? {} : { resourceVersion: options.resourceVersion }),
      });
      const at = leases.findIndex((l) => l.metadata.name === ref.name);
      const lease = leases[at];
      if (lease == null)
        return Promise.reject(new NotFoundError({ verb: 'delete', status: 404, message: 'gone' }));
      if (options?.resourceVersion != null && options.resourceVersion !== lease.metadata.resourceVersion)
        return Promise.reject(new ConflictError({ verb: 'delete', status: 409, message: 'changed' }));
      leases.splice(at, 1);
      leaseWatch?.onEvent({ type: 'DELETED', object: JSON.parse(JSON.stringify(lease)) as unknown });
      return Promise.resolve();
    },
    get: (ref) => {
      gets.push(ref.name);
      const lease = leases.find((l) => l.metadata.name === ref.name);
      if (lease == null) return Promise.reject(new Error('no such lease'));
      return Promise.resolve(JSON.parse(JSON.stringify(serverLease(lease))) as never);
    },
  };
  /** What the API server answers for a Lease: the watched one, unless a renewal was hidden from the watch. */
  const hidden = new Map<string, string>();
  const serverLease = (lease: (typeof leases)[number]) => {
    const renewTime = hidden.get(lease.spec.holderIdentity);
    return renewTime == null ? lease : { ...lease, spec: { ...lease.spec, renewTime } };
  };
  /** renewUnseen renews a Lease on the API server only: the watch misses it (a lagging watch). */
  const renewUnseen = (holder: string, at: string) => hidden.set(holder, at);
  const gets: string[] = [];
  const deletes: { name: string; resourceVersion?: string }[] = [];
  /** renew writes a new renewTime on a shard's Lease, as its replica does every retry period. */
  const renew = (holder: string, at: string) => {
    const lease = leases.find((l) => l.spec.holderIdentity === holder);
    if (lease == null || leaseWatch == null) throw new Error('no such lease or no watch');
    lease.spec.renewTime = at;
    lease.metadata.resourceVersion = String(Number(lease.metadata.resourceVersion) + 1);
    leaseWatch.onEvent({ type: 'MODIFIED', object: JSON.parse(JSON.stringify(lease)) as unknown });
  };
  /** hold makes patches wait until the returned function is called. */
  const holdPatches = (): (() => void) => {
    let release = (): void => undefined;
    hold = new Promise((resolve) => {
      release = () => {
        hold = undefined;
        resolve();
      };
    });
    return release;
  };
  return { listWatch, client, lists, patches, leases, renew, renewUnseen, gets, deletes, holdPatches };
}

const sharders: Sharder[] = [];
afterEach(async () => {
  await Promise.all(sharders.splice(0).map((s) => s.stop()));
});

function sharder(
  server: ReturnType<typeof fakeServer>,
  now: () => number,
  extra: Partial<SharderOptions> = {},
): Sharder {
  const made = new Sharder({
    ...extra,
    client: server.client,
    listWatch: server.listWatch,
    leaseListWatch: server.listWatch,
    katalogName: 'shop',
    leaseNamespace: 'ops',
    namespace: 'web',
    resources: [{ group: 'shop.example.com', version: 'v1', kind: 'App', plural: 'apps', namespaced: true }],
    tickMs: 10,
    now,
  });
  sharders.push(made);
  return made;
}

/** watchingLeases is a replica's Lease watch started (and synced) at `now()`, as every replica runs one from its start. */
async function watchingLeases(
  server: ReturnType<typeof fakeServer>,
  now: () => number,
): Promise<ShardLeaseWatch> {
  const leaseWatch = new ShardLeaseWatch({
    listWatch: server.listWatch,
    katalogName: 'shop',
    namespace: 'ops',
    now,
  });
  leaseWatch.start();
  await leaseWatch.informer.waitForSync();
  return leaseWatch;
}

const names = Array.from({ length: 1_000 }, (_, i) => `app-${i}`);
const ring = new ShardAssignment(['a', 'b']);
/** onRing is every CR labelled with the shard the two-shard ring gives it. */
const onRing = () =>
  names.map((name) => ({ name, labels: { [OrkestraLabel.Shard]: ring.ownerOf(key(name)) ?? '' } }));
/** on counts the CRs labelled with `shard`. */
const on = (apps: { labels: Record<string, string> }[], shard: string) =>
  apps.filter((app) => app.labels[OrkestraLabel.Shard] === shard).length;

describe('Sharder', () => {
  it('assigns 1,000 unlabelled CRs with one patch each, from two lists and no reads per CR', async () => {
    const server = fakeServer(
      names.map((name) => ({ name })),
      ['a', 'b'],
    );
    await sharder(server, () => 0).start();
    await vi.waitFor(() => expect(server.patches).toHaveLength(1_000));
    expect(new Set(server.lists)).toEqual(new Set([LEASES, APPS]));
    expect(server.lists.length).toBeLessThanOrEqual(3); // the CR list in pages of 500
    for (const patch of server.patches) {
      expect(patch.labels).toEqual({ [OrkestraLabel.Shard]: ring.ownerOf(key(patch.name)) });
      expect(patch.resourceVersion).toBeDefined();
    }
  });

  it('writes nothing when every CR is already on the ring’s choice, however many ticks pass', async () => {
    const labelled = onRing();
    const server = fakeServer(labelled, ['a', 'b']);
    const made = sharder(server, () => 0);
    await made.start();
    await new Promise((resolve) => setTimeout(resolve, 100)); // about 10 ticks
    expect(server.patches).toEqual([]);
    expect(made.stats()).toMatchObject({ live: ['a', 'b'], objects: 1_000, patches: 0 });
  });

  it('moves a shard’s CRs only after its Lease has not changed for the lease duration', async () => {
    const labelled = onRing();
    const onB = on(labelled, 'b');
    const server = fakeServer(labelled, ['a', 'b']);
    let now = 0;
    await sharder(server, () => now).start();
    now = 10_000;
    server.renew('a', '2026-12-05T00:00:10.000000Z'); // a renews; b has stopped
    now = 14_999; // b last seen renewing at 0: still alive for the sharder
    await new Promise((resolve) => setTimeout(resolve, 50));
    expect(server.patches).toEqual([]);
    now = 15_000; // b's Lease expired: its CRs go to a at once (b stopped at its renew deadline)
    await vi.waitFor(() => expect(server.patches).toHaveLength(onB));
    expect(onB).toBeGreaterThan(0);
    for (const patch of server.patches) expect(patch.labels).toEqual({ [OrkestraLabel.Shard]: 'a' });
  });

  it('a new leader whose replica watched the Leases before it led moves a dead shard’s CRs without waiting another lease duration', async () => {
    const labelled = onRing();
    const onB = on(labelled, 'b');
    const server = fakeServer(labelled, ['a', 'b']);
    let now = 0;
    // The standby replica's watch, from its start: b's last renewal is seen at 0.
    const leaseWatch = await watchingLeases(server, () => now);
    now = 10_000;
    await vi.waitFor(() => server.renew('a', '2026-12-05T00:00:10.000000Z')); // once the watch is open
    now = 15_000; // b stopped renewing 15 s ago: dead; this replica becomes leader now
    const made = new Sharder({
      client: server.client,
      listWatch: server.listWatch,
      leaseListWatch: server.listWatch,
      katalogName: 'shop',
      leaseNamespace: 'ops',
      namespace: 'web',
      resources: [
        { group: 'shop.example.com', version: 'v1', kind: 'App', plural: 'apps', namespaced: true },
      ],
      tickMs: 10,
      now: () => now,
      leaseWatch,
    });
    sharders.push(made);
    await made.start();
    await vi.waitFor(() => expect(server.patches).toHaveLength(onB));
    expect(made.live()).toEqual(['a']);
    await leaseWatch.stop();
  });

  it('relabels a dead shard’s CRs before it hands any CR to a new shard', async () => {
    // CRs on a, b and c; d has just joined (its CRs must drain first) when c dies.
    const three = new ShardAssignment(['a', 'b', 'c']);
    const labelled = names.map((name) => ({
      name,
      labels: { [OrkestraLabel.Shard]: three.ownerOf(key(name)) ?? '' },
    }));
    const onC = labelled.filter((app) => app.labels[OrkestraLabel.Shard] === 'c').length;
    const server = fakeServer(labelled, ['a', 'b', 'c', 'd']);
    let now = 0;
    const release = server.holdPatches();
    await sharder(server, () => now, { maxConcurrentPatches: 4 }).start();
    // The drains toward d are queued; 4 of them in flight, held by a slow API server.
    now = 10_000;
    await vi.waitFor(() => server.renew('a', '2026-12-05T00:00:10.000000Z'));
    server.renew('b', '2026-12-05T00:00:10.000000Z');
    server.renew('d', '2026-12-05T00:00:10.000000Z');
    now = 15_000;
    server.renew('a', '2026-12-05T00:00:15.000000Z'); // c last renewed at 0: dead now
    release();
    await vi.waitFor(() => expect(server.patches.length).toBeGreaterThan(onC + 4));
    const assigns = server.patches
      .map((patch, i) => ({ i, assign: patch.labels[OrkestraLabel.Shard] != null }))
      .filter((p) => p.assign);
    expect(assigns).toHaveLength(onC);
    // After the 4 drains already in flight, every patch is an assign until c's CRs are all moved.
    expect(assigns.map((p) => p.i)).toEqual(Array.from({ length: onC }, (_, i) => i + 4));
  });

  it('a claimer labels only the dead shard’s CRs the ring gives its own replica, and no drain', async () => {
    const labelled = onRing();
    // c joined (its share must drain from a and b: only a leader asks) and b dies.
    const server = fakeServer(labelled, ['a', 'b', 'c']);
    const afterB = new ShardAssignment(['a', 'c']);
    const claimedByA = labelled.filter(
      (app) => app.labels[OrkestraLabel.Shard] === 'b' && afterB.ownerOf(key(app.name)) === 'a',
    ).length;
    let now = 0;
    const claimer = sharder(server, () => now, { claimFor: 'a' });
    await claimer.start();
    await new Promise((resolve) => setTimeout(resolve, 50));
    expect(server.patches).toEqual([]); // the drains toward c are the leader's
    now = 10_000;
    await vi.waitFor(() => server.renew('a', '2026-12-05T00:00:10.000000Z'));
    server.renew('c', '2026-12-05T00:00:10.000000Z');
    now = 15_000; // b last renewed at 0: dead
    await vi.waitFor(() => expect(server.patches).toHaveLength(claimedByA));
    await new Promise((resolve) => setTimeout(resolve, 50));
    expect(server.patches).toHaveLength(claimedByA);
    expect(claimedByA).toBeGreaterThan(0);
    for (const patch of server.patches) expect(patch.labels).toEqual({ [OrkestraLabel.Shard]: 'a' });
    expect(claimer.leading()).toBe(false);
    // Made leader: it drains toward c and labels what is left of b's (none: c claims its own).
    claimer.lead();
    await vi.waitFor(() =>
      expect(server.patches.some((p) => p.labels[OrkestraLabel.Drain] === 'true')).toBe(true),
    );
  });

  it('is busy from a Lease’s expiry until the dead shard’s CRs are all patched, and only then', async () => {
    const labelled = onRing();
    const onB = on(labelled, 'b');
    const server = fakeServer(labelled, ['a', 'b']);
    let now = 0;
    const made = sharder(server, () => now, { maxConcurrentPatches: 1_000 });
    await made.start();
    expect(made.busy()).toBe(false); // every CR on its shard
    const release = server.holdPatches();
    now = 10_000;
    await vi.waitFor(() => server.renew('a', '2026-12-05T00:00:10.000000Z'));
    now = 15_000; // b last renewed at 0: dead, before the sharder has looked again
    expect(made.busy()).toBe(true);
    await vi.waitFor(() => expect(made.live()).toEqual(['a']));
    expect(server.patches).toEqual([]); // b's CRs all in flight, held by a slow API server
    expect(made.busy()).toBe(true);
    release();
    await vi.waitFor(() => expect(server.patches).toHaveLength(onB));
    await vi.waitFor(() => expect(made.busy()).toBe(false));
  });

  it('is busy while a live shard has not renewed for half its lease duration (a leader killed before its shard’s Lease expired)', async () => {
    const labelled = onRing();
    const server = fakeServer(labelled, ['a', 'b']);
    let now = 0;
    const made = sharder(server, () => now);
    await made.start();
    now = 5_000; // both last renewed at 0, lease 15 s: on time
    expect(made.busy()).toBe(false);
    await vi.waitFor(() => server.renew('a', '2026-12-05T00:00:05.000000Z'));
    await vi.waitFor(() => expect(made.busy()).toBe(false));
    now = 8_000; // b silent for 8 s: not yet dead, overdue
    expect(made.live()).toEqual(['a', 'b']);
    expect(made.busy()).toBe(true);
    server.renew('b', '2026-12-05T00:00:08.000000Z'); // it was only slow
    await vi.waitFor(() => expect(made.busy()).toBe(false));
  });

  it('moves nothing while the API server shows a Lease the watch counts dead as renewed', async () => {
    const labelled = onRing();
    const server = fakeServer(labelled, ['a', 'b']);
    let now = 0;
    const made = sharder(server, () => now);
    await made.start();
    now = 10_000;
    await vi.waitFor(() => server.renew('a', '2026-12-05T00:00:10.000000Z'));
    server.renewUnseen('b', '2026-12-05T00:00:12.000000Z'); // b renews; the watch does not show it
    now = 15_000;
    await vi.waitFor(() => expect(server.gets.length).toBeGreaterThanOrEqual(2)); // read again each tick
    expect(server.patches).toEqual([]);
    expect(made.live()).toEqual(['a', 'b']);
  });

  it('a leader with a shard of its own leaves another shard’s new CRs to that shard’s claimer for one tick, then labels them itself', async () => {
    const server = fakeServer(
      names.map((name) => ({ name })),
      ['a', 'b'],
    );
    const onA = names.filter((name) => ring.ownerOf(key(name)) === 'a').length;
    let now = 0;
    // This replica has watched b hold its Lease for a lease duration (15 s): b's claimer sees what it sees.
    const leaseWatch = await watchingLeases(server, () => now);
    now = 10_000;
    await vi.waitFor(() => server.renew('a', '2026-12-05T00:00:10.000000Z'));
    server.renew('b', '2026-12-05T00:00:10.000000Z');
    now = 15_000;
    const leader = sharder(server, () => now, { claimFor: 'a', leaseWatch });
    leader.lead();
    await leader.start();
    await vi.waitFor(() => expect(server.patches).toHaveLength(onA));
    await new Promise((resolve) => setTimeout(resolve, 50)); // ticks pass, the clock does not
    expect(server.patches).toHaveLength(onA); // b's claimer would have labelled its share meanwhile
    for (const patch of server.patches) expect(patch.labels).toEqual({ [OrkestraLabel.Shard]: 'a' });
    now = 15_020; // a whole tick (10 ms) later b's share is still unassigned here: the leader labels it
    await vi.waitFor(() => expect(server.patches).toHaveLength(names.length));
    await leaseWatch.stop();
  });

  it('the replica that confirms a death deletes the dead Lease on the version it read, not a renewed one', async () => {
    const server = fakeServer(onRing(), ['a', 'b']);
    let now = 0;
    const made = sharder(server, () => now, { claimFor: 'a' }); // a claimer confirms deaths too
    await made.start();
    now = 10_000;
    await vi.waitFor(() => server.renew('a', '2026-12-05T00:00:10.000000Z')); // b has stopped
    now = 15_000;
    await vi.waitFor(() =>
      expect(server.deletes).toEqual([{ name: 'orkestra-shop-shard-b', resourceVersion: '1' }]),
    );
    expect(server.leases.map((l) => l.spec.holderIdentity)).toEqual(['a']);
    expect(made.stats().leaseDeletes).toBe(1);

    // A Lease renewed on the API server after the watch's view: its delete answers 409, it stays.
    const lagging = fakeServer(onRing(), ['a', 'b']);
    now = 0;
    const other = sharder(lagging, () => now, { claimFor: 'a' });
    await other.start();
    now = 10_000;
    await vi.waitFor(() => lagging.renew('a', '2026-12-05T00:00:10.000000Z'));
    lagging.renewUnseen('b', '2026-12-05T00:00:12.000000Z');
    now = 15_000;
    await vi.waitFor(() => expect(lagging.gets.length).toBeGreaterThanOrEqual(2));
    expect(lagging.deletes).toEqual([]);
  });

  it('a claimer that has just joined claims its share of a dead shard’s CRs the moment the dead Lease is deleted', async () => {
    // b has just joined: its tracker counts c alive for a lease duration from its start, so only
    // another replica's confirmation, as c's Lease deleted, lets it see c dead now.
    const server = fakeServer(
      names.map((name) => ({ name, labels: { [OrkestraLabel.Shard]: 'c' } })),
      ['a', 'b', 'c'],
    );
    const claimer = sharder(server, () => 0, { claimFor: 'b' });
    await claimer.start();
    await new Promise((resolve) => setTimeout(resolve, 50)); // ticks pass, the clock does not
    expect(server.patches).toEqual([]);
    await server.client.delete(
      {
        apiVersion: 'coordination.k8s.io/v1',
        kind: 'Lease',
        namespace: 'ops',
        name: 'orkestra-shop-shard-c',
      },
      { resourceVersion: '1' },
    );
    const onB = names.filter((name) => ring.ownerOf(key(name)) === 'b').length;
    await vi.waitFor(() => expect(server.patches).toHaveLength(onB));
    for (const patch of server.patches) expect(patch.labels).toEqual({ [OrkestraLabel.Shard]: 'b' });
  });

  it('a leader still leaves a young shard’s new CRs to that shard’s claimer for a tick', async () => {
    // A new CR has no shard label: b's claimer labels its share whatever b's age, so the leader waits.
    const server = fakeServer(
      names.map((name) => ({ name })),
      ['a', 'b'],
    );
    const onA = names.filter((name) => ring.ownerOf(key(name)) === 'a').length;
    const leader = sharder(server, () => 0, { claimFor: 'a' });
    leader.lead();
    await leader.start();
    await vi.waitFor(() => expect(server.patches).toHaveLength(onA));
    await new Promise((resolve) => setTimeout(resolve, 50)); // ticks pass, the clock does not
    expect(server.patches).toHaveLength(onA);
  });
});
