import { CoreV1Api, PatchStrategy, RbacAuthorizationV1Api, setHeaderOptions } from '@kubernetes/client-node';
import type { KubeConfig } from '@kubernetes/client-node';
import { proxiedKubeConfig, startFreezableProxy } from '@orkestra/testenv';
import type { FreezableProxy } from '@orkestra/testenv';
import { useControlPlane } from '@orkestra/testenv/vitest';
import { afterEach, describe, expect, it } from 'vitest';
// The informer is engine room, not public API (ADR 0013): this test reads it from the source.
import type { CacheChange } from '../src/cache.js';
import { Informer } from '../src/informer.js';
import type { InformerOptions, ResourceRef } from '../src/informer.js';
import { KubeListWatchClient } from '../src/list-watch-client.js';

const env = useControlPlane();

const configMaps: ResourceRef = {
  group: '',
  version: 'v1',
  plural: 'configmaps',
  kind: 'ConfigMap',
  namespaced: true,
};
const clusterRoles: ResourceRef = {
  group: 'rbac.authorization.k8s.io',
  version: 'v1',
  plural: 'clusterroles',
  kind: 'ClusterRole',
  namespaced: false,
};

const cleanups: (() => Promise<unknown>)[] = [];
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
});

/** waitFor polls until `check` returns true; a deadline only turns a hang into a failure. */
async function waitFor(what: string, check: () => boolean, deadlineMs = 30_000): Promise<void> {
  const until = Date.now() + deadlineMs;
  while (!check()) {
    if (Date.now() > until) throw new Error(`timed out waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
}

function sleep(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms));
}

function startInformer(
  options: Partial<InformerOptions> & { kubeConfig?: KubeConfig; resource?: ResourceRef },
) {
  const client = new KubeListWatchClient({ kubeConfig: options.kubeConfig ?? env.kubeConfig });
  const informer = new Informer({ client, resource: options.resource ?? configMaps, ...options });
  const changes: CacheChange[] = [];
  informer.subscribe((change) => changes.push(change));
  informer.start();
  cleanups.push(() => informer.stop());
  const seen = (type: string, key: string): boolean => changes.some((c) => c.type === type && c.key === key);
  return { client, informer, changes, seen };
}

function core(): CoreV1Api {
  return env.kubeConfig.makeApiClient(CoreV1Api);
}

let counter = 0;
function unique(prefix: string): string {
  counter++;
  return `${prefix}-${counter}-${Math.random().toString(36).slice(2, 7)}`;
}

describe('Informer against the control plane', () => {
  it('syncs, then delivers add, update and delete', async () => {
    const label = unique('sync');
    const api = core();
    await api.createNamespacedConfigMap({
      namespace: env.namespace,
      body: { metadata: { name: 'before', labels: { suite: label } }, data: { a: '1' } },
    });
    const { informer, changes, seen } = startInformer({
      namespace: env.namespace,
      labelSelector: `suite=${label}`,
    });
    await informer.waitForSync();
    expect(informer.hasSynced()).toBe(true);
    const key = `${env.namespace}/before`;
    expect(changes.map((c) => `${c.type}:${c.key}`)).toEqual([`add:${key}`]);
    expect(informer.cache.get(key)).toMatchObject({ apiVersion: 'v1', kind: 'ConfigMap', data: { a: '1' } });
    expect(informer.cache.get(key)?.metadata['managedFields']).toBeUndefined();

    await api.createNamespacedConfigMap({
      namespace: env.namespace,
      body: { metadata: { name: 'after', labels: { suite: label } }, data: { b: '1' } },
    });
    await waitFor('add of after', () => seen('add', `${env.namespace}/after`));
    await api.patchNamespacedConfigMap(
      { name: 'after', namespace: env.namespace, body: { data: { b: '2' } } },
      mergePatch(),
    );
    await waitFor(
      'update of after',
      () =>
        informer.cache.get(`${env.namespace}/after`)?.['data'] != null &&
        (informer.cache.get(`${env.namespace}/after`)?.['data'] as { b?: string }).b === '2',
    );
    expect(changes.filter((c) => c.key === `${env.namespace}/after`).map((c) => c.type)).toEqual([
      'add',
      'update',
    ]);
    await api.deleteNamespacedConfigMap({ name: 'before', namespace: env.namespace });
    await waitFor('delete of before', () => seen('delete', key));
    expect(informer.cache.get(key)).toBeUndefined();
    expect(informer.stats().listRequests).toBe(1);
  });

  it('filters by label selector, and an object leaving the selector is deleted from the cache', async () => {
    const label = unique('sel');
    const api = core();
    const { informer, seen, changes } = startInformer({
      namespace: env.namespace,
      labelSelector: `suite=${label},pick=yes`,
    });
    await informer.waitForSync();
    await api.createNamespacedConfigMap({
      namespace: env.namespace,
      body: { metadata: { name: `${label}-no`, labels: { suite: label, pick: 'no' } } },
    });
    await api.createNamespacedConfigMap({
      namespace: env.namespace,
      body: { metadata: { name: `${label}-yes`, labels: { suite: label, pick: 'yes' } } },
    });
    await waitFor('add of the matching object', () => seen('add', `${env.namespace}/${label}-yes`));
    expect(informer.cache.get(`${env.namespace}/${label}-no`)).toBeUndefined();

    await api.patchNamespacedConfigMap(
      { name: `${label}-no`, namespace: env.namespace, body: { metadata: { labels: { pick: 'yes' } } } },
      mergePatch(),
    );
    await waitFor('object entering the selector', () => seen('add', `${env.namespace}/${label}-no`));
    await api.patchNamespacedConfigMap(
      { name: `${label}-yes`, namespace: env.namespace, body: { metadata: { labels: { pick: 'no' } } } },
      mergePatch(),
    );
    await waitFor('object leaving the selector', () => seen('delete', `${env.namespace}/${label}-yes`));
    expect(informer.cache.keys().sort()).toEqual([`${env.namespace}/${label}-no`]);
    expect(changes.every((c) => c.key.startsWith(`${env.namespace}/${label}`))).toBe(true);
  });

  it('watches all namespaces or one namespace', async () => {
    const label = unique('scope');
    const api = core();
    const other = unique('other');
    await api.createNamespace({ body: { metadata: { name: other } } });
    cleanups.push(() => api.deleteNamespace({ name: other }));
    const all = startInformer({ labelSelector: `suite=${label}` });
    const one = startInformer({ namespace: env.namespace, labelSelector: `suite=${label}` });
    await Promise.all([all.informer.waitForSync(), one.informer.waitForSync()]);
    await api.createNamespacedConfigMap({
      namespace: other,
      body: { metadata: { name: 'x', labels: { suite: label } } },
    });
    await api.createNamespacedConfigMap({
      namespace: env.namespace,
      body: { metadata: { name: `${label}-x`, labels: { suite: label } } },
    });
    await waitFor('both adds in the all-namespaces informer', () => all.informer.cache.size === 2);
    await waitFor('the add in the one-namespace informer', () =>
      one.seen('add', `${env.namespace}/${label}-x`),
    );
    expect(one.informer.cache.keys()).toEqual([`${env.namespace}/${label}-x`]);
    expect(all.informer.cache.listByNamespace(other).map((o) => o.metadata.name)).toEqual(['x']);
    expect(all.informer.path).toBe('/api/v1/configmaps');
  });

  it('watches a cluster-scoped resource', async () => {
    const label = unique('cluster');
    const rbac = env.kubeConfig.makeApiClient(RbacAuthorizationV1Api);
    const { informer, seen } = startInformer({ resource: clusterRoles, labelSelector: `suite=${label}` });
    await informer.waitForSync();
    expect(informer.cache.size).toBe(0);
    const name = `${label}-role`;
    await rbac.createClusterRole({ body: { metadata: { name, labels: { suite: label } }, rules: [] } });
    cleanups.push(() => rbac.deleteClusterRole({ name }).catch(() => undefined));
    await waitFor('add of the ClusterRole', () => seen('add', name));
    expect(informer.cache.get(name)).toMatchObject({
      apiVersion: 'rbac.authorization.k8s.io/v1',
      kind: 'ClusterRole',
    });
    await rbac.deleteClusterRole({ name });
    await waitFor('delete of the ClusterRole', () => seen('delete', name));
  });

  it('reports a 403 as an RBAC warning and keeps retrying without syncing', async () => {
    const warnings: { fields: Readonly<Record<string, unknown>>; message: string }[] = [];
    const { informer } = startInformer({
      kubeConfig: env.userKubeConfig(unique('no-rbac')),
      namespace: env.namespace,
      initialBackoffMs: 100,
      logger: { warn: (fields, message) => warnings.push({ fields, message }) },
    });
    await waitFor('a failed list', () => informer.stats().relists.error >= 1);
    expect(informer.hasSynced()).toBe(false);
    expect(informer.stats().forbidden).toBe(true);
    const rbac = warnings.filter((w) => w.message.startsWith('RBAC'));
    expect(rbac).toHaveLength(1);
    expect(rbac[0]?.fields).toMatchObject({
      verb: 'list',
      resource: `/api/v1/namespaces/${env.namespace}/configmaps`,
    });
    expect(rbac[0]?.fields['err']).toMatchObject({ status: 403, reason: 'Forbidden', verb: 'list' });
  });

  it('makes no list request while idle', async () => {
    const label = unique('idle');
    const api = core();
    const { client, informer, seen } = startInformer({
      namespace: env.namespace,
      labelSelector: `suite=${label}`,
    });
    await informer.waitForSync();
    expect(client.requestCounts().list).toBe(1);
    await sleep(3000);
    await api.createNamespacedConfigMap({
      namespace: env.namespace,
      body: { metadata: { name: `${label}-a`, labels: { suite: label } } },
    });
    await waitFor('add', () => seen('add', `${env.namespace}/${label}-a`));
    await sleep(3000);
    expect(client.requestCounts()).toEqual({ list: 1, watch: 1 });
    expect(informer.stats().relists).toEqual({ gone: 0, watchdog: 0, error: 0 });
  });
});

describe('Informer recovery through a frozen connection', () => {
  let proxy: FreezableProxy | undefined;
  afterEach(async () => {
    await proxy?.stop();
    proxy = undefined;
  });

  /** A KubeConfig that reaches the API server through the proxy (same TLS identity: 127.0.0.1). */
  async function throughProxy(): Promise<KubeConfig> {
    const target = new URL(env.server);
    proxy = await startFreezableProxy({ host: target.hostname, port: Number(target.port) });
    return proxiedKubeConfig(env.kubeConfig, proxy.port);
  }

  it('the watchdog relists a silent watch, and the relist diff delivers changes missed meanwhile, including a deletion', async () => {
    const label = unique('frozen');
    const api = core();
    const kubeConfig = await throughProxy();
    for (const name of ['stays', 'goes']) {
      await api.createNamespacedConfigMap({
        namespace: env.namespace,
        body: { metadata: { name: `${label}-${name}`, labels: { suite: label } } },
      });
    }
    const { informer, seen, changes } = startInformer({
      kubeConfig,
      namespace: env.namespace,
      labelSelector: `suite=${label}`,
      watchIdleTimeoutMs: 4000,
    });
    // Which list (1 = initial, 2 = first relist) was the latest when each change was delivered.
    const listAtChange = new Map<string, number>();
    informer.subscribe((c) => listAtChange.set(`${c.type}:${c.key}`, informer.stats().listRequests));
    await informer.waitForSync();
    // Prove the watch is live before freezing it.
    await api.createNamespacedConfigMap({
      namespace: env.namespace,
      body: { metadata: { name: `${label}-live`, labels: { suite: label } } },
    });
    await waitFor('add via the watch', () => seen('add', `${env.namespace}/${label}-live`));
    expect(proxy?.freeze()).toBeGreaterThanOrEqual(1);
    const frozenAt = changes.length;

    await api.deleteNamespacedConfigMap({ name: `${label}-goes`, namespace: env.namespace });
    await api.createNamespacedConfigMap({
      namespace: env.namespace,
      body: { metadata: { name: `${label}-new`, labels: { suite: label } } },
    });
    await api.patchNamespacedConfigMap(
      { name: `${label}-stays`, namespace: env.namespace, body: { data: { changed: 'yes' } } },
      mergePatch(),
    );

    await waitFor('the watchdog relist', () => informer.stats().relists.watchdog >= 1);
    await waitFor('the missed deletion', () => seen('delete', `${env.namespace}/${label}-goes`));
    await waitFor('the missed add', () => seen('add', `${env.namespace}/${label}-new`));
    await waitFor('the missed update', () =>
      changes.slice(frozenAt).some((c) => c.type === 'update' && c.key === `${env.namespace}/${label}-stays`),
    );
    // Delivered by the relist's diff, not by the frozen watch.
    const ns = env.namespace;
    expect(listAtChange.get(`delete:${ns}/${label}-goes`)).toBeGreaterThanOrEqual(2);
    expect(listAtChange.get(`add:${ns}/${label}-new`)).toBeGreaterThanOrEqual(2);
    expect(listAtChange.get(`update:${ns}/${label}-stays`)).toBeGreaterThanOrEqual(2);
    expect(informer.cache.keys().sort()).toEqual(
      [`${label}-live`, `${label}-new`, `${label}-stays`].map((n) => `${env.namespace}/${n}`),
    );
    // One initial list plus one per watchdog relist (a loaded machine may see a second one); nothing else.
    const { relists, listRequests } = informer.stats();
    expect(relists.gone + relists.error).toBe(0);
    expect(listRequests).toBe(1 + relists.watchdog);

    // Events flow again on the new watch.
    await api.deleteNamespacedConfigMap({ name: `${label}-live`, namespace: env.namespace });
    await waitFor('delete via the new watch', () => seen('delete', `${env.namespace}/${label}-live`));
  });
});

/** Options that make client-node send a JSON merge patch (its default is a JSON patch). */
function mergePatch(): ReturnType<typeof setHeaderOptions> {
  return setHeaderOptions('Content-Type', PatchStrategy.MergePatch);
}
