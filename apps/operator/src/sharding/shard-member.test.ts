import type { KubeConfig } from '@kubernetes/client-node';
import type { KubeListWatchClient } from '@orkestra/reconciler';
import type { KubeClient, KubeObject } from '@orkestra/registry';
import type { Logger } from '@orkestra/types';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { createShardMember } from './shard-member.js';
import type { ShardMember } from './shard-member.js';

const silent: Logger = {
  debug: () => undefined,
  info: () => undefined,
  warn: () => undefined,
  error: () => undefined,
  child: () => silent,
};

/** An API server of Leases: every write is recorded; lists answer empty, watches stay silent. */
function fakeApi() {
  const writes: { verb: 'create' | 'replace'; name: string; holder: unknown }[] = [];
  const stored = new Map<string, KubeObject>();
  let version = 0;
  const status = (code: number) => Object.assign(new Error(`HTTP ${code}`), { status: code });
  const save = (object: KubeObject): KubeObject => {
    const saved = {
      ...object,
      metadata: { ...object.metadata, resourceVersion: String(++version) },
    } as KubeObject;
    stored.set(object.metadata.name ?? '', saved);
    return JSON.parse(JSON.stringify(saved)) as KubeObject;
  };
  const holderOf = (object: KubeObject): unknown =>
    (object as { spec?: { holderIdentity?: unknown } }).spec?.holderIdentity;
  const client = {
    get: (ref: { name: string }) => {
      const found = stored.get(ref.name);
      return found == null
        ? Promise.reject(status(404))
        : Promise.resolve(JSON.parse(JSON.stringify(found)) as KubeObject);
    },
    create: (object: KubeObject) => {
      writes.push({ verb: 'create', name: object.metadata.name ?? '', holder: holderOf(object) });
      return Promise.resolve(save(object));
    },
    replace: (object: KubeObject) => {
      writes.push({ verb: 'replace', name: object.metadata.name ?? '', holder: holderOf(object) });
      return Promise.resolve(save(object));
    },
    mergePatch: () => Promise.resolve({ apiVersion: 'v1', kind: 'x', metadata: {} }),
  } as unknown as KubeClient;
  const listWatch = {
    list: () => Promise.resolve({ metadata: { resourceVersion: '1' }, items: [] }),
    watch: () => ({ abort: () => undefined }),
  } as unknown as KubeListWatchClient;
  return { client, listWatch, writes };
}

function memberOn(api: ReturnType<typeof fakeApi>, onHeld: () => void): ShardMember {
  return createShardMember({
    id: 'replica-0a1b2c3d',
    katalogName: 'shop',
    namespace: 'ops',
    client: api.client,
    kubeConfig: {} as KubeConfig,
    listWatch: api.listWatch,
    userAgent: 'test',
    leaseDurationMs: 6000,
    renewDeadlineMs: 4000,
    retryPeriodMs: 1000,
    logger: silent,
    onHeld,
    onLost: () => undefined,
  });
}

describe('createShardMember', () => {
  beforeEach(() => {
    vi.useFakeTimers({ now: Date.parse('2026-12-06T07:00:00Z') });
  });
  afterEach(() => {
    vi.useRealTimers();
  });

  it('writes no membership Lease before its informers have synced, and joins once they have', async () => {
    const api = fakeApi();
    let held = 0;
    const member = memberOn(api, () => held++);
    let synced = (): void => undefined;
    member.start(
      new Promise<void>((resolve) => {
        synced = resolve;
      }),
      () => [],
    );
    // A slow sync: many retry periods and lease durations pass.
    await vi.advanceTimersByTimeAsync(30_000);
    expect(api.writes).toEqual([]);
    expect(member.holds()).toBe(false);
    expect(held).toBe(0);

    synced();
    await vi.advanceTimersByTimeAsync(1);
    expect(api.writes[0]).toEqual({
      verb: 'create',
      name: 'orkestra-shop-shard-replica-0a1b2c3d',
      holder: 'replica-0a1b2c3d',
    });
    expect(member.holds()).toBe(true);
    expect(held).toBe(1);
    // Then renewed every retry period.
    await vi.advanceTimersByTimeAsync(3000);
    expect(api.writes.filter((w) => w.verb === 'replace').length).toBeGreaterThanOrEqual(2);
    await member.release();
  });

  it('never joins when released before its informers synced, or when the sync fails', async () => {
    const api = fakeApi();
    const released = memberOn(api, () => undefined);
    let synced = (): void => undefined;
    released.start(
      new Promise<void>((resolve) => {
        synced = resolve;
      }),
      () => [],
    );
    await vi.advanceTimersByTimeAsync(5000);
    await released.release();
    synced();
    const failed = memberOn(api, () => undefined);
    failed.start(Promise.reject(new Error('sync timed out')), () => []);
    await vi.advanceTimersByTimeAsync(30_000);
    expect(api.writes).toEqual([]);
    expect(released.holds()).toBe(false);
    expect(failed.holds()).toBe(false);
  });
});
