import { describe, expect, it } from 'vitest';
import { ManualClock, flushMacrotask } from './clock.js';
import type { CacheChange } from './cache.js';
import { Informer, resourcePath } from './informer.js';
import type { InformerLogger, InformerOptions } from './informer.js';
import { createKubeApiError, kubeErrorCodeOf } from '@orkestra/registry';
import type { ListResponse, ListWatchClient, WatchHandle, WatchHandlers } from './list-watch-client.js';

interface FakeWatch {
  readonly path: string;
  readonly query: Readonly<Record<string, string>>;
  readonly handlers: WatchHandlers;
  aborted: boolean;
  event(type: string, object: unknown): void;
  close(error?: unknown): void;
}

/**
 * A scripted transport: a narrow seam that lets the loop's timing (backoff, watchdog, reopen) run
 * on a manual clock. Behaviour against a real API server is covered by the integration tests.
 */
class ScriptedClient implements ListWatchClient {
  readonly lists: { path: string; query: Readonly<Record<string, string>> }[] = [];
  readonly watches: FakeWatch[] = [];
  /** Answers list requests; replace per test. */
  onList: (query: Readonly<Record<string, string>>) => ListResponse | Error = () => ({
    metadata: { resourceVersion: '1' },
    items: [],
  });
  /** Called when a watch opens; may close it at once. */
  onWatch: (watch: FakeWatch) => void = () => {};

  list(path: string, query: Readonly<Record<string, string>>): Promise<ListResponse> {
    this.lists.push({ path, query });
    const answer = this.onList(query);
    return answer instanceof Error ? Promise.reject(answer) : Promise.resolve(answer);
  }

  watch(path: string, query: Readonly<Record<string, string>>, handlers: WatchHandlers): WatchHandle {
    let closed = false;
    const watch: FakeWatch = {
      path,
      query,
      handlers,
      aborted: false,
      event: (type, object) => {
        if (!closed) handlers.onEvent({ type, object });
      },
      close: (error) => {
        if (closed) return;
        closed = true;
        handlers.onClose(error);
      },
    };
    this.watches.push(watch);
    queueMicrotask(() => this.onWatch(watch));
    return {
      abort: () => {
        closed = true;
        watch.aborted = true;
      },
    };
  }

  get lastWatch(): FakeWatch {
    const watch = this.watches[this.watches.length - 1];
    if (watch == null) throw new Error('no watch opened');
    return watch;
  }
}

function cm(name: string, rv: string, namespace = 'ns'): object {
  return { metadata: { name, namespace, uid: `uid-${name}`, resourceVersion: rv } };
}

const configMaps = {
  group: '',
  version: 'v1',
  plural: 'configmaps',
  kind: 'ConfigMap',
  namespaced: true,
} as const;

function setup(overrides: Partial<InformerOptions> = {}) {
  const clock = new ManualClock();
  const client = new ScriptedClient();
  const warnings: string[] = [];
  const logger: InformerLogger = { warn: (_fields, message) => warnings.push(message) };
  const informer = new Informer({
    client,
    resource: configMaps,
    clock,
    random: () => 0.5,
    logger,
    ...overrides,
  });
  const changes: CacheChange[] = [];
  informer.subscribe((c) => changes.push(c));
  const summary = (): string[] =>
    changes.map((c) => `${c.type}:${c.key}@${c.object.metadata.resourceVersion ?? ''}`);
  return { clock, client, informer, changes, summary, warnings };
}

const tick = flushMacrotask;

describe('resourcePath', () => {
  it('builds core, grouped, namespaced and cluster-wide paths', () => {
    expect(resourcePath(configMaps)).toBe('/api/v1/configmaps');
    expect(resourcePath(configMaps, 'shop')).toBe('/api/v1/namespaces/shop/configmaps');
    expect(resourcePath({ group: 'apps', version: 'v1', plural: 'deployments', namespaced: true }, 'a')).toBe(
      '/apis/apps/v1/namespaces/a/deployments',
    );
    expect(
      resourcePath(
        { group: 'rbac.authorization.k8s.io', version: 'v1', plural: 'clusterroles', namespaced: false },
        'x',
      ),
    ).toBe('/apis/rbac.authorization.k8s.io/v1/clusterroles');
  });
});

describe('Informer list', () => {
  it('lists every page with limit 500, syncs, emits adds and fills in apiVersion and kind', async () => {
    const { client, informer, summary } = setup({ labelSelector: 'app=x' });
    client.onList = (q) =>
      q['continue'] == null
        ? {
            kind: 'ConfigMapList',
            metadata: { resourceVersion: '10', continue: 'page2' },
            items: [cm('a', '5')],
          }
        : { kind: 'ConfigMapList', metadata: { resourceVersion: '10' }, items: [cm('b', '7')] };
    expect(informer.hasSynced()).toBe(false);
    informer.start();
    await informer.waitForSync();
    expect(informer.hasSynced()).toBe(true);
    expect(client.lists.map((l) => l.query)).toEqual([
      { limit: '500', labelSelector: 'app=x' },
      { limit: '500', labelSelector: 'app=x', continue: 'page2' },
    ]);
    expect(summary()).toEqual(['add:ns/a@5', 'add:ns/b@7']);
    expect(informer.cache.get('ns/a')).toMatchObject({ apiVersion: 'v1', kind: 'ConfigMap' });
    await tick();
    expect(client.lastWatch.query).toMatchObject({
      resourceVersion: '10',
      allowWatchBookmarks: 'true',
      labelSelector: 'app=x',
    });
    const timeout = Number(client.lastWatch.query['timeoutSeconds']);
    expect(timeout).toBeGreaterThanOrEqual(300);
    expect(timeout).toBeLessThan(600);
    await informer.stop();
  });

  it('draws the watch timeout from [300, 600)', async () => {
    for (const [random, expected] of [
      [0, 300],
      [0.999999, 599],
    ] as const) {
      const { client, informer } = setup({ random: () => random });
      informer.start();
      await tick();
      expect(client.lastWatch.query['timeoutSeconds']).toBe(String(expected));
      await informer.stop();
    }
  });

  it('restarts the list from scratch when a continue token expired', async () => {
    const { client, informer, summary } = setup();
    let calls = 0;
    client.onList = (q) => {
      calls++;
      if (calls === 1) return { metadata: { resourceVersion: '10', continue: 't' }, items: [cm('a', '5')] };
      if (calls === 2)
        return createKubeApiError({
          status: 410,
          reason: kubeErrorCodeOf(410, 'Expired'),
          verb: 'watch',
          message: 'expired',
        });
      return q['continue'] == null
        ? { metadata: { resourceVersion: '20' }, items: [cm('b', '15')] }
        : new Error('unexpected');
    };
    informer.start();
    await informer.waitForSync();
    expect(summary()).toEqual(['add:ns/b@15']);
    expect(informer.stats().resourceVersion).toBe('20');
    await informer.stop();
  });

  it('retries a failed list with backoff and counts an error relist', async () => {
    const { clock, client, informer, warnings } = setup();
    let fail = 2;
    client.onList = () =>
      fail-- > 0
        ? createKubeApiError({
            status: 500,
            reason: kubeErrorCodeOf(500, undefined),
            verb: 'watch',
            message: 'boom',
          })
        : { metadata: { resourceVersion: '3' }, items: [] };
    informer.start();
    await tick();
    expect(client.lists).toHaveLength(1);
    await clock.advanceAsync(999);
    expect(client.lists).toHaveLength(1);
    await clock.advanceAsync(1);
    expect(client.lists).toHaveLength(2);
    await clock.advanceAsync(1999);
    expect(client.lists).toHaveLength(2);
    await clock.advanceAsync(1);
    expect(informer.hasSynced()).toBe(true);
    expect(informer.stats().relists).toEqual({ gone: 0, watchdog: 0, error: 2 });
    expect(warnings).toHaveLength(2);
    await informer.stop();
  });
});

describe('Informer watch', () => {
  it('delivers add, update and delete, ignores stale events, and bookmarks only move the resource version', async () => {
    const { client, informer, summary, changes } = setup();
    informer.start();
    await tick();
    const watch = client.lastWatch;
    watch.event('ADDED', cm('a', '2'));
    watch.event('MODIFIED', cm('a', '3'));
    watch.event('MODIFIED', cm('a', '3'));
    watch.event('MODIFIED', cm('a', '2'));
    watch.event('BOOKMARK', { metadata: { resourceVersion: '9' } });
    watch.event('DELETED', cm('a', '10'));
    expect(summary()).toEqual(['add:ns/a@2', 'update:ns/a@3', 'delete:ns/a@3']);
    expect(changes[1]?.old?.metadata.resourceVersion).toBe('2');
    watch.event('BOOKMARK', { metadata: { resourceVersion: '42' } });
    expect(changes).toHaveLength(3);
    expect(informer.stats().resourceVersion).toBe('42');
    watch.close();
    await tick();
    expect(client.watches).toHaveLength(2);
    expect(client.lastWatch.query['resourceVersion']).toBe('42');
    expect(client.lists).toHaveLength(1);
    expect(informer.stats().watchRestarts).toBe(1);
    await informer.stop();
  });

  it('re-opens a normally ended watch at once, without a list', async () => {
    const { clock, client, informer } = setup();
    informer.start();
    await tick();
    client.lastWatch.event('ADDED', cm('a', '2'));
    await clock.advanceAsync(60_000);
    client.lastWatch.event('BOOKMARK', { metadata: { resourceVersion: '5' } });
    client.lastWatch.close();
    await tick();
    expect(client.watches).toHaveLength(2);
    expect(client.lists).toHaveLength(1);
    await informer.stop();
  });

  it('backs off when a watch ends at once without events, so it cannot spin', async () => {
    const { clock, client, informer } = setup();
    client.onWatch = (w) => w.close();
    informer.start();
    await tick();
    expect(client.watches).toHaveLength(1);
    await clock.advanceAsync(999);
    expect(client.watches).toHaveLength(1);
    await clock.advanceAsync(1);
    expect(client.watches).toHaveLength(2);
    await informer.stop();
  });

  it('relists on 410 Gone when opening a watch and as an ERROR event, delivering missed deletions', async () => {
    const { client, informer, summary } = setup();
    let listRv = 1;
    let items = [cm('a', '1'), cm('b', '1')];
    client.onList = () => ({ metadata: { resourceVersion: String(listRv) }, items });
    informer.start();
    await tick();
    expect(summary()).toEqual(['add:ns/a@1', 'add:ns/b@1']);

    // 410 as an in-stream ERROR event; the watch opened after that relist then gets 410 on open.
    listRv = 5;
    items = [cm('a', '4')];
    client.onWatch = (w) => {
      if (w.query['resourceVersion'] !== '5') return;
      listRv = 8;
      items = [];
      w.close(
        createKubeApiError({
          status: 410,
          reason: kubeErrorCodeOf(410, undefined),
          verb: 'watch',
          message: 'gone',
        }),
      );
    };
    client.lastWatch.event('BOOKMARK', { metadata: { resourceVersion: '2' } });
    client.lastWatch.event('ERROR', { kind: 'Status', code: 410, reason: 'Expired', message: 'too old' });
    for (let i = 0; i < 5; i++) await tick();
    expect(client.lists).toHaveLength(3);
    expect(summary().slice(2)).toEqual(['update:ns/a@4', 'delete:ns/b@1', 'delete:ns/a@4']);
    expect(client.lastWatch.query['resourceVersion']).toBe('8');
    expect(informer.stats().relists).toEqual({ gone: 2, watchdog: 0, error: 0 });
    await informer.stop();
  });

  it('backs off when every watch gets 410 before any event, instead of relisting in a loop', async () => {
    const { clock, client, informer } = setup();
    client.onWatch = (w) =>
      w.close(
        createKubeApiError({
          status: 410,
          reason: kubeErrorCodeOf(410, undefined),
          verb: 'watch',
          message: 'gone',
        }),
      );
    informer.start();
    for (let i = 0; i < 5; i++) await tick();
    // Initial list, then one immediate relist; the second 410 in a row waits for the backoff.
    expect(client.lists).toHaveLength(2);
    await clock.advanceAsync(999);
    expect(client.lists).toHaveLength(2);
    await clock.advanceAsync(1);
    expect(client.lists).toHaveLength(3);
    await informer.stop();
  });

  it('backs off 1 s doubling to 30 s on errors, and an event resets the backoff', async () => {
    const { clock, client, informer } = setup();
    client.onWatch = (w) =>
      w.close(
        createKubeApiError({
          status: 503,
          reason: kubeErrorCodeOf(503, undefined),
          verb: 'watch',
          message: 'unavailable',
        }),
      );
    informer.start();
    await tick();
    const opened: number[] = [clock.now()];
    for (let i = 0; i < 7; i++) {
      const before = client.watches.length;
      while (client.watches.length === before) {
        await clock.advanceAsync(clock.nextDueAt == null ? 1 : clock.nextDueAt - clock.now());
      }
      opened.push(clock.now());
    }
    const gaps = opened.slice(1).map((t, i) => t - (opened[i] ?? 0));
    expect(gaps).toEqual([1000, 2000, 4000, 8000, 16_000, 30_000, 30_000]);
    // An event resets the backoff.
    client.onWatch = () => {};
    await clock.advanceAsync(30_000);
    client.lastWatch.event('BOOKMARK', { metadata: { resourceVersion: '2' } });
    client.lastWatch.close(new Error('connection reset'));
    const before = client.watches.length;
    await clock.advanceAsync(999);
    expect(client.watches.length).toBe(before);
    await clock.advanceAsync(1);
    expect(client.watches.length).toBe(before + 1);
    expect(informer.stats().relists).toEqual({ gone: 0, watchdog: 0, error: 0 });
    await informer.stop();
  });

  it('applies ±20 % jitter to the backoff', async () => {
    for (const [random, expected] of [
      [0, 800],
      [0.999999, 1200],
    ] as const) {
      const { clock, client, informer } = setup({ random: () => random });
      client.onWatch = (w) => w.close(new Error('reset'));
      informer.start();
      await tick();
      expect(clock.nextDueAt).toBe(expected);
      await informer.stop();
    }
  });

  it("honours a 429's Retry-After", async () => {
    const { clock, client, informer } = setup();
    client.onWatch = (w) => {
      if (client.watches.length === 1)
        w.close(
          createKubeApiError({
            status: 429,
            reason: kubeErrorCodeOf(429, undefined),
            verb: 'watch',
            message: 'slow down',
            retryAfterSeconds: 7,
          }),
        );
    };
    informer.start();
    await tick();
    await clock.advanceAsync(6999);
    expect(client.watches).toHaveLength(1);
    await clock.advanceAsync(1);
    expect(client.watches).toHaveLength(2);
    await informer.stop();
  });

  it('logs a 403 as an RBAC error at most once a minute and reports forbidden', async () => {
    const { clock, client, informer, warnings } = setup();
    client.onWatch = (w) =>
      w.close(
        createKubeApiError({
          status: 403,
          reason: kubeErrorCodeOf(403, 'Forbidden'),
          verb: 'watch',
          message: 'forbidden',
        }),
      );
    informer.start();
    await tick();
    await clock.advanceAsync(59_000);
    const rbac = warnings.filter((w) => w.startsWith('RBAC'));
    expect(rbac).toEqual(['RBAC: forbidden to watch /api/v1/configmaps; the entry stays not ready']);
    expect(client.watches.length).toBeGreaterThan(3);
    expect(informer.stats().forbidden).toBe(true);
    await clock.advanceAsync(60_000);
    expect(warnings.filter((w) => w.startsWith('RBAC')).length).toBe(2);
    await informer.stop();
  });

  it('aborts a silent watch after watchIdleTimeoutMs and relists; events keep it alive', async () => {
    const { clock, client, informer } = setup({ watchIdleTimeoutMs: 10_000 });
    informer.start();
    await tick();
    const first = client.lastWatch;
    await clock.advanceAsync(9_000);
    first.event('BOOKMARK', { metadata: { resourceVersion: '3' } });
    await clock.advanceAsync(9_000);
    expect(first.aborted).toBe(false);
    expect(client.lists).toHaveLength(1);
    await clock.advanceAsync(1_000);
    expect(first.aborted).toBe(true);
    expect(client.lists).toHaveLength(2);
    expect(client.watches).toHaveLength(2);
    expect(informer.stats().relists).toEqual({ gone: 0, watchdog: 1, error: 0 });
    expect(informer.stats().lastEventAt).toBe(9_000);
    await informer.stop();
  });

  it('ignores events of an aborted watch', async () => {
    const { clock, client, informer, changes } = setup({ watchIdleTimeoutMs: 1000 });
    informer.start();
    await tick();
    const first = client.lastWatch;
    await clock.advanceAsync(1000);
    first.handlers.onEvent({ type: 'ADDED', object: cm('late', '99') });
    expect(changes).toHaveLength(0);
    await informer.stop();
  });
});

describe('Informer stop', () => {
  it('stops the loop and leaves no timers', async () => {
    const { clock, client, informer } = setup();
    informer.start();
    await tick();
    await informer.stop();
    expect(client.lastWatch.aborted).toBe(true);
    expect(clock.pendingTimers).toBe(0);
    await clock.advanceAsync(1_000_000);
    expect(client.watches).toHaveLength(1);
  });

  it('stops during a backoff wait', async () => {
    const { clock, client, informer } = setup();
    client.onList = () => new Error('down');
    informer.start();
    await tick();
    expect(clock.pendingTimers).toBe(1);
    await informer.stop();
    expect(clock.pendingTimers).toBe(0);
  });

  it('rejects waitForSync when stopped before syncing', async () => {
    const { client, informer } = setup();
    client.onList = () => new Error('down');
    informer.start();
    const waiting = informer.waitForSync();
    await informer.stop();
    await expect(waiting).rejects.toThrow(/stopped/);
    await expect(informer.waitForSync()).rejects.toThrow(/stopped/);
  });

  it('waitForSync honours an abort signal', async () => {
    const { client, informer } = setup();
    client.onList = () => new Error('down');
    informer.start();
    const controller = new AbortController();
    const waiting = informer.waitForSync(controller.signal);
    controller.abort(new Error('timed out'));
    await expect(waiting).rejects.toThrow('timed out');
    await informer.stop();
  });
});

describe('Informer suspend and resume (docs/reference/runtime.md §2.9)', () => {
  it('suspended: aborts the watch, empties the cache reporting deletes, and neither lists nor waits on a timer', async () => {
    const { clock, client, informer, summary } = setup();
    client.onList = () => ({ metadata: { resourceVersion: '3' }, items: [cm('a', '2')] });
    informer.start();
    await tick();
    informer.suspend();
    await tick();
    expect(client.lastWatch.aborted).toBe(true);
    expect(summary()).toEqual(['add:ns/a@2', 'delete:ns/a@2']);
    expect(informer.cache.size).toBe(0);
    expect(informer.suspended).toBe(true);
    expect(clock.pendingTimers).toBe(0); // waits for resume, no polling
    await clock.advanceAsync(600_000);
    expect(client.lists).toHaveLength(1);
    expect(client.watches).toHaveLength(1);
    expect(informer.hasSynced()).toBe(true);
    await informer.stop();
  });

  it('resume lists at once (no resource version) and watches again', async () => {
    const { client, informer, summary } = setup();
    informer.start();
    await tick();
    informer.suspend();
    await tick();
    client.onList = () => ({ metadata: { resourceVersion: '50' }, items: [cm('b', '40')] });
    informer.resume();
    await tick();
    expect(client.lists).toHaveLength(2);
    expect(summary()).toEqual(['add:ns/b@40']);
    expect(client.watches).toHaveLength(2);
    expect(client.lastWatch.query['resourceVersion']).toBe('50');
    await informer.stop();
  });

  it('suspends during a failing list’s backoff without logging more failures; stop ends a suspended loop', async () => {
    const { clock, client, informer, warnings } = setup();
    client.onList = () => new Error('404 the server could not find the requested resource');
    informer.start();
    await tick();
    const logged = warnings.length;
    informer.suspend();
    await tick();
    expect(clock.pendingTimers).toBe(0);
    await clock.advanceAsync(120_000);
    expect(warnings).toHaveLength(logged);
    await informer.stop();
  });
});
