import { ApiextensionsV1Api, CoreV1Api, CustomObjectsApi } from '@kubernetes/client-node';
import { createNamespace, crClient, installCrd } from '@orkestra/testenv';
import { useControlPlane } from '@orkestra/testenv/vitest';
import { describe, expect, it } from 'vitest';

const env = useControlPlane();

describe('installCrd and crClient', () => {
  it('installs an open-schema CRD, then create, read, patch, list and remove its objects', async () => {
    const type = {
      group: `${env.namespace}.helpers.orkestra.dev`,
      version: 'v1',
      kind: 'Gadget',
      plural: 'gadgets',
    };
    const removeCrd = await installCrd(env.kubeConfig, type);
    try {
      const ext = env.kubeConfig.makeApiClient(ApiextensionsV1Api);
      const crd = await ext.readCustomResourceDefinition({ name: `gadgets.${type.group}` });
      expect(crd.spec.scope).toBe('Namespaced');
      expect(crd.status?.conditions?.find((c) => c.type === 'Established')?.status).toBe('True');

      const gadgets = crClient(env.kubeConfig, type);
      const created = await gadgets.create(env.namespace, 'one', { size: 3, nested: { free: 'form' } });
      expect(created.metadata.name).toBe('one');
      await gadgets.patchSpec(env.namespace, 'one', { size: 4 });
      expect((await gadgets.get(env.namespace, 'one')).spec).toEqual({ size: 4, nested: { free: 'form' } });
      expect((await gadgets.list(env.namespace)).map((g) => g.metadata.name)).toEqual(['one']);
      expect(await gadgets.exists(env.namespace, 'one')).toBe(true);
      await gadgets.remove(env.namespace, 'one');
      expect(await gadgets.exists(env.namespace, 'one')).toBe(false);
    } finally {
      await removeCrd();
    }
  });

  it('installs a cluster-scoped CRD when namespaced is false', async () => {
    const type = {
      group: `${env.namespace}.helpers.orkestra.dev`,
      version: 'v1',
      kind: 'Tenant',
      plural: 'tenants',
      namespaced: false,
    };
    const removeCrd = await installCrd(env.kubeConfig, type);
    try {
      const ext = env.kubeConfig.makeApiClient(ApiextensionsV1Api);
      expect((await ext.readCustomResourceDefinition({ name: `tenants.${type.group}` })).spec.scope).toBe(
        'Cluster',
      );
      expect(() => crClient(env.kubeConfig, type)).toThrow(/namespaced kinds only/);
    } finally {
      await removeCrd();
    }
  });
});

describe('the CRD remover', () => {
  it('releases objects whose finalizer nobody will remove, so the CRD is gone at once', async () => {
    const type = {
      group: `${env.namespace}.held.orkestra.dev`,
      version: 'v1',
      kind: 'Widget',
      plural: 'widgets',
    };
    const removeCrd = await installCrd(env.kubeConfig, type);
    const custom = env.kubeConfig.makeApiClient(CustomObjectsApi);
    await custom.createNamespacedCustomObject({
      group: type.group,
      version: 'v1',
      plural: 'widgets',
      namespace: env.namespace,
      body: {
        apiVersion: `${type.group}/v1`,
        kind: 'Widget',
        metadata: { name: 'held', finalizers: ['example.com/stopped-operator'] },
        spec: {},
      },
    });
    await removeCrd();
    // Without the release the CRD stays terminating as long as the finalizer is there (forever here).
    const ext = env.kubeConfig.makeApiClient(ApiextensionsV1Api);
    const until = Date.now() + 60_000;
    let gone = false;
    while (!gone && Date.now() < until) {
      gone = await ext.readCustomResourceDefinition({ name: `widgets.${type.group}` }).then(
        () => false,
        (error: { code?: number }) => error.code === 404,
      );
      if (!gone) await new Promise((resolve) => setTimeout(resolve, 200));
    }
    expect(gone).toBe(true);
  }, 90_000);
});

describe('createNamespace', () => {
  it('creates a namespace and returns its deleter', async () => {
    const name = `${env.namespace}-extra`;
    const remove = await createNamespace(env.kubeConfig, name);
    const core = env.kubeConfig.makeApiClient(CoreV1Api);
    expect((await core.readNamespace({ name })).metadata?.name).toBe(name);
    await remove();
    // Without kube-controller-manager the namespace stays Terminating; either way deletion began.
    const after = await core.readNamespace({ name }).catch(() => undefined);
    expect(after == null || after.metadata?.deletionTimestamp != null).toBe(true);
  });
});
