import { describe, expect, it } from 'vitest';
import type { KubeObject } from '@orkestra/registry';
import { Rollout } from '@orkestra/types';
import type { Logger } from '@orkestra/types';
import { ManualClock } from '../clock.js';
import { completeAt, control, startRollout } from './plan.js';
import type { RolloutState } from './plan.js';
import { RolloutController } from './rollout-controller.js';
import type { StoredRollout } from './rollout-store.js';

const silent: Logger = {
  debug: () => undefined,
  info: () => undefined,
  warn: () => undefined,
  error: () => undefined,
  child: () => silent,
};

/** memoryStore keeps the state as the ConfigMap would, with a resource version per write. */
function memoryStore(): {
  read(): Promise<StoredRollout | undefined>;
  write(s: RolloutState, rv: string | undefined): Promise<StoredRollout>;
  stored?: StoredRollout | undefined;
} {
  let version = 0;
  const store = {
    stored: undefined as StoredRollout | undefined,
    read: () => Promise.resolve(store.stored == null ? undefined : structuredClone(store.stored)),
    write: (state: RolloutState, rv: string | undefined) => {
      if ((store.stored?.resourceVersion ?? undefined) !== rv) return Promise.reject(new Error('conflict'));
      store.stored = { state: structuredClone(state), resourceVersion: String(++version) };
      return Promise.resolve(store.stored);
    },
  };
  return store;
}

const crs: KubeObject[] = Array.from({ length: 10 }, (_, i) => ({
  apiVersion: 'x/v1',
  kind: 'App',
  metadata: { name: `a${i}`, namespace: 'ns', uid: `u${i}`, generation: 1 },
}));

describe('RolloutController', () => {
  it('a replica that does not tick (another shard) follows the stored state and re-queues only its own CRs whose revision changed', async () => {
    const policy = Rollout.parse({ canary: { count: 3 } });
    const store = memoryStore();
    const options = {
      store,
      resourceVersion: undefined,
      policy: () => policy,
      ready: () => true,
      events: { normal: () => undefined, warning: () => undefined },
      namespace: 'ops',
      katalogName: 'k',
      logger: silent,
    };
    const leader = new RolloutController({
      ...options,
      state: startRollout('old', 'new', policy, 0),
      crs: () => crs,
      enqueue: () => undefined,
    });
    const own = crs.slice(0, 5);
    const enqueued: string[] = [];
    const shard = new RolloutController({
      ...options,
      state: startRollout('old', 'new', policy, 0),
      crs: () => own,
      enqueue: (cr) => enqueued.push(cr.metadata.name ?? ''),
    });
    await leader.tickOnce();
    await shard.follow();
    // Both replicas give every CR the same revision; the follower re-queued its own that moved.
    for (const cr of crs) expect(shard.assign(cr)).toBe(leader.assign(cr));
    const moved = own.filter((cr) => leader.assign(cr) === 'current').map((cr) => cr.metadata.name);
    expect(enqueued.sort()).toEqual([...moved].sort());
    // A follower that ticks itself (it leads now) ignores follow.
    shard.start();
    await shard.stop();
  });

  it('picks the canary on its first tick, re-queues exactly those CRs, and obeys an undo written to the store', async () => {
    const policy = Rollout.parse({ canary: { count: 3 } });
    const store = memoryStore();
    const enqueued: string[] = [];
    const events: string[] = [];
    const controller = new RolloutController({
      store,
      state: startRollout('old', 'new', policy, 0),
      resourceVersion: undefined,
      policy: () => policy,
      crs: () => crs,
      enqueue: (cr) => enqueued.push(cr.metadata.name ?? ''),
      ready: () => true,
      events: { normal: (_s, reason) => events.push(reason), warning: (_s, reason) => events.push(reason) },
      namespace: 'ops',
      katalogName: 'k',
      logger: silent,
    });
    expect(crs.filter((cr) => controller.assign(cr) === 'current')).toHaveLength(0);
    await controller.tickOnce();
    const canary = crs.filter((cr) => controller.assign(cr) === 'current').map((cr) => cr.metadata.name);
    expect(canary).toHaveLength(3);
    expect(enqueued.sort()).toEqual([...canary].sort());
    expect(events).toEqual(['RolloutStep']);
    expect(store.stored?.state.threshold).toBeDefined();

    // `ork rollout undo` writes the stored state; the next tick applies it and re-queues the canary.
    const stored = store.stored as StoredRollout;
    store.stored = { state: control(stored.state, 'undo', 1), resourceVersion: stored.resourceVersion };
    enqueued.length = 0;
    await controller.tickOnce();
    expect(controller.state.phase).toBe('Undone');
    expect(crs.filter((cr) => controller.assign(cr) === 'current')).toHaveLength(0);
    expect(enqueued.sort()).toEqual([...canary].sort());
  });

  it('does not tick before the caches have synced, and leaves a newer target alone', async () => {
    const policy = Rollout.parse({});
    const store = memoryStore();
    let ready = false;
    const controller = new RolloutController({
      store,
      state: startRollout('old', 'new', policy, 0),
      resourceVersion: undefined,
      policy: () => policy,
      crs: () => crs,
      enqueue: () => undefined,
      ready: () => ready,
      events: { normal: () => undefined, warning: () => undefined },
      namespace: 'ops',
      katalogName: 'k',
      logger: silent,
    });
    await controller.tickOnce();
    expect(store.stored).toBeUndefined();
    ready = true;
    store.stored = { state: startRollout('new', 'newer', policy, 0), resourceVersion: '7' };
    await controller.tickOnce();
    expect(store.stored.state.target).toBe('newer');
    expect(store.stored.resourceVersion).toBe('7');
  });

  it('ticks only while a rollout is under way or when nudged: no reads at all once it is complete', async () => {
    const policy = Rollout.parse({ canary: { count: 3 } });
    const store = memoryStore();
    let reads = 0;
    const counted = {
      read: () => {
        reads++;
        return store.read();
      },
      write: (state: RolloutState, rv: string | undefined) => store.write(state, rv),
    };
    const clock = new ManualClock(0);
    const controller = new RolloutController({
      store: counted,
      state: completeAt('rev', 0),
      resourceVersion: undefined,
      policy: () => policy,
      crs: () => crs,
      enqueue: () => undefined,
      ready: () => true,
      events: { normal: () => undefined, warning: () => undefined },
      namespace: 'ops',
      katalogName: 'k',
      logger: silent,
      clock,
      tickMs: 2_000,
    });
    controller.start();
    await clock.advanceAsync(60_000);
    expect(reads).toBe(1);
    expect(clock.pendingTimers).toBe(0);

    // A command (here: a new rollout written by another writer) arrives through the watch: a nudge.
    const stored = store.stored as StoredRollout;
    store.stored = { state: startRollout('rev', 'next', policy, 0), resourceVersion: stored.resourceVersion };
    controller.nudge();
    await clock.advanceAsync(0);
    expect(reads).toBe(2);
    // It is other target's rollout: left alone, and the controller's own state is complete: no more ticks.
    await clock.advanceAsync(60_000);
    expect(reads).toBe(2);
    await controller.stop();

    // Under way: ticks repeat every tickMs.
    const moving = new RolloutController({
      store: counted,
      state: startRollout('old', 'new', policy, 0),
      resourceVersion: undefined,
      policy: () => policy,
      crs: () => crs,
      enqueue: () => undefined,
      ready: () => true,
      events: { normal: () => undefined, warning: () => undefined },
      namespace: 'ops',
      katalogName: 'k',
      logger: silent,
      clock,
      tickMs: 2_000,
    });
    store.stored = undefined;
    reads = 0;
    moving.start();
    await clock.advanceAsync(10_000);
    expect(reads).toBe(6);
    await moving.stop();
  });
});
