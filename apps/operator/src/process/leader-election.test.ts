import type { V1Lease } from '@kubernetes/client-node';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { LeaderElectionError, LeaderElector, defaultIdentity, leaseNameFor } from './leader-election.js';
import type { LeaderElectorOptions, LeaseApi } from './leader-election.js';

/** An in-memory Lease store with resourceVersion checks, like the API server's. */
function fakeLeaseApi() {
  let stored: V1Lease | undefined;
  let version = 0;
  let failing = false;
  const copy = (lease: V1Lease): V1Lease => JSON.parse(JSON.stringify(lease)) as V1Lease;
  const status = (code: number) => Object.assign(new Error(`HTTP ${code}`), { code });
  const api: LeaseApi = {
    readNamespacedLease: async () => {
      if (failing) throw status(500);
      if (stored == null) throw status(404);
      return copy(stored);
    },
    createNamespacedLease: async ({ body }) => {
      if (failing) throw status(500);
      if (stored != null) throw status(409);
      stored = { ...copy(body), metadata: { ...body.metadata, resourceVersion: String(++version) } };
      return copy(stored);
    },
    replaceNamespacedLease: async ({ body }) => {
      if (failing) throw status(500);
      if (stored == null) throw status(404);
      if (body.metadata?.resourceVersion !== stored.metadata?.resourceVersion) throw status(409);
      stored = { ...copy(body), metadata: { ...body.metadata, resourceVersion: String(++version) } };
      return copy(stored);
    },
  };
  return {
    api,
    holder: () => stored?.spec?.holderIdentity,
    transitions: () => stored?.spec?.leaseTransitions,
    spec: () => stored?.spec,
    labels: () => stored?.metadata?.labels,
    /** Writes the lease as another process would (bumps the version). */
    overwrite: (holder: string) => {
      if (stored?.spec == null) throw new Error('no lease');
      stored = {
        ...stored,
        metadata: { ...stored.metadata, resourceVersion: String(++version) },
        spec: { ...stored.spec, holderIdentity: holder, renewTime: new Date() },
      };
    },
    setFailing: (value: boolean) => {
      failing = value;
    },
  };
}

const electors: LeaderElector[] = [];

function elector(
  api: LeaseApi,
  identity: string,
  extra: Partial<LeaderElectorOptions> = {},
): LeaderElector & { events: string[] } {
  const events: string[] = [];
  const created = new LeaderElector({
    api,
    namespace: 'orkestra-system',
    leaseName: 'orkestra-shop',
    identity,
    leaseDurationMs: 3_000,
    renewDeadlineMs: 2_000,
    retryPeriodMs: 500,
    random: () => 0,
    onStartedLeading: () => events.push('started'),
    onStoppedLeading: () => events.push('stopped'),
    ...extra,
  });
  electors.push(created);
  return Object.assign(created, { events });
}

beforeEach(() => {
  vi.useFakeTimers();
});

afterEach(async () => {
  await Promise.all(electors.splice(0).map((e) => e.stop()));
  vi.useRealTimers();
});

describe('LeaderElector', () => {
  it('creates the Lease and leads when there is none', async () => {
    const store = fakeLeaseApi();
    const a = elector(store.api, 'a');
    a.start();
    await vi.advanceTimersByTimeAsync(0);
    expect(a.isLeader()).toBe(true);
    expect(a.events).toEqual(['started']);
    expect(store.spec()).toMatchObject({ holderIdentity: 'a', leaseDurationSeconds: 3, leaseTransitions: 0 });
    expect(a.state()).toEqual({ identity: 'a', leading: true, observedHolder: 'a', leaderTransitions: 0 });
  });

  it('labels the Lease it creates, so the sharder can list shard Leases (ADR 0045)', async () => {
    const store = fakeLeaseApi();
    const a = elector(store.api, 'a', { labels: { 'orkestra.konductor.io/shard-of': 'shop' } });
    a.start();
    await vi.advanceTimersByTimeAsync(0);
    expect(store.labels()).toEqual({ 'orkestra.konductor.io/shard-of': 'shop' });
  });

  it('keeps one leader; a standby takes over only after the lease expires', async () => {
    const store = fakeLeaseApi();
    const a = elector(store.api, 'a');
    const b = elector(store.api, 'b');
    a.start();
    await vi.advanceTimersByTimeAsync(0);
    b.start();
    await vi.advanceTimersByTimeAsync(10_000);
    expect([a.isLeader(), b.isLeader()]).toEqual([true, false]);
    expect(b.state().observedHolder).toBe('a');

    await a.stop(); // like a crash: the Lease still names a
    expect(a.events).toEqual(['started']);
    await vi.advanceTimersByTimeAsync(2_000);
    expect(b.isLeader()).toBe(false);
    await vi.advanceTimersByTimeAsync(1_600);
    expect(b.isLeader()).toBe(true);
    expect(store.spec()).toMatchObject({ holderIdentity: 'b', leaseTransitions: 1 });
  });

  it('a standby attempts at the holder’s expiry instant, not at its next retry', async () => {
    const store = fakeLeaseApi();
    const a = elector(store.api, 'a', { leaseDurationMs: 4_000 });
    a.start();
    await vi.advanceTimersByTimeAsync(0);
    // Retries every 1.5 s: without the expiry wake-up b would try at 1.5, 3 and 4.5 s, not at 4 s.
    const b = elector(store.api, 'b', { retryPeriodMs: 1_500, leaseDurationMs: 4_000 });
    b.start();
    await vi.advanceTimersByTimeAsync(0);
    await a.stop(); // like a crash: the Lease still names a, renewed just now
    await vi.advanceTimersByTimeAsync(3_990);
    expect(b.isLeader()).toBe(false);
    await vi.advanceTimersByTimeAsync(30);
    expect(b.isLeader()).toBe(true);
  });

  it('release empties the holder so the standby takes over at its next retry', async () => {
    const store = fakeLeaseApi();
    const a = elector(store.api, 'a');
    const b = elector(store.api, 'b');
    a.start();
    await vi.advanceTimersByTimeAsync(0);
    b.start();
    await vi.advanceTimersByTimeAsync(1_000);
    await a.release();
    expect(store.holder()).toBe('');
    expect(a.events).toEqual(['started']);
    await vi.advanceTimersByTimeAsync(500);
    expect(b.isLeader()).toBe(true);
    expect(store.spec()).toMatchObject({ holderIdentity: 'b', leaseTransitions: 1 });
  });

  it('stops leading when another holder shows up on the Lease', async () => {
    const store = fakeLeaseApi();
    const a = elector(store.api, 'a');
    a.start();
    await vi.advanceTimersByTimeAsync(0);
    store.overwrite('intruder');
    await vi.advanceTimersByTimeAsync(500);
    expect(a.isLeader()).toBe(false);
    expect(a.events).toEqual(['started', 'stopped']);
    expect(store.holder()).toBe('intruder');
  });

  it('stops leading when it cannot renew within the renew deadline', async () => {
    const store = fakeLeaseApi();
    const a = elector(store.api, 'a');
    a.start();
    await vi.advanceTimersByTimeAsync(0);
    store.setFailing(true);
    await vi.advanceTimersByTimeAsync(1_500);
    expect(a.isLeader()).toBe(true);
    await vi.advanceTimersByTimeAsync(1_000);
    expect(a.isLeader()).toBe(false);
    expect(a.events).toEqual(['started', 'stopped']);
  });

  it('survives a short API outage while leading', async () => {
    const store = fakeLeaseApi();
    const a = elector(store.api, 'a');
    a.start();
    await vi.advanceTimersByTimeAsync(0);
    store.setFailing(true);
    await vi.advanceTimersByTimeAsync(1_000);
    store.setFailing(false);
    await vi.advanceTimersByTimeAsync(5_000);
    expect(a.isLeader()).toBe(true);
    expect(a.events).toEqual(['started']);
  });

  it('loses a simultaneous takeover race through the resourceVersion (409)', async () => {
    const store = fakeLeaseApi();
    const a = elector(store.api, 'a');
    a.start();
    await vi.advanceTimersByTimeAsync(0);
    await a.release();
    // b reads the empty Lease, then c writes first: b's replace carries a stale resourceVersion
    const read = store.api.readNamespacedLease.bind(store.api);
    const b = elector(
      {
        ...store.api,
        readNamespacedLease: async (params) => {
          const lease = await read(params);
          store.overwrite('c');
          return lease;
        },
      },
      'b',
    );
    b.start();
    await vi.advanceTimersByTimeAsync(0);
    expect(b.isLeader()).toBe(false);
    expect(store.holder()).toBe('c');
  });

  it('rejects timings that cannot work', () => {
    const api = fakeLeaseApi().api;
    const base = { api, namespace: 'n', leaseName: 'l' };
    expect(() => new LeaderElector({ ...base, leaseDurationMs: 10_000, renewDeadlineMs: 10_000 })).toThrow(
      LeaderElectionError,
    );
    expect(() => new LeaderElector({ ...base, renewDeadlineMs: 2_000, retryPeriodMs: 2_000 })).toThrow(
      'renewDeadline must be greater than 1.2 × retryPeriod',
    );
  });
});

describe('names', () => {
  it('builds the Lease name and a hostname_uuid identity', () => {
    expect(leaseNameFor('shop')).toBe('orkestra-shop');
    expect(defaultIdentity({ hostname: 'pod-1', uuid: 'u-1' })).toBe('pod-1_u-1');
    expect(defaultIdentity()).toMatch(/^.+_[0-9a-f-]{36}$/);
  });
});
