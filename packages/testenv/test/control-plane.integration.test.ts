import {
  ApiException,
  ApiextensionsV1Api,
  AuthenticationV1Api,
  CoreV1Api,
  CustomObjectsApi,
  KubeConfig,
  KubernetesObjectApi,
  PatchStrategy,
  RbacAuthorizationV1Api,
} from '@kubernetes/client-node';
import type { V1ConfigMap } from '@kubernetes/client-node';
import { sumMetric } from '@orkestra/testenv';
import { useControlPlane } from '@orkestra/testenv/vitest';
import { setTimeout as sleep } from 'node:timers/promises';
import { describe, expect, it } from 'vitest';

const env = useControlPlane();

/** Polls `check` until it returns a value other than undefined, or fails after `timeoutMs`. */
async function eventually<T>(
  what: string,
  check: () => Promise<T | undefined>,
  timeoutMs = 60_000,
): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = await check();
    if (value !== undefined) return value;
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await sleep(250);
  }
}

async function statusOf(promise: Promise<unknown>): Promise<number> {
  try {
    await promise;
    return 200;
  } catch (error) {
    if (error instanceof ApiException) return error.code;
    throw error;
  }
}

describe('custom resources', () => {
  it('creates a CRD, waits for Established, then creates and reads a custom resource', async () => {
    const group = `${env.namespace}.testenv.orkestra.dev`;
    const ext = env.kubeConfig.makeApiClient(ApiextensionsV1Api);
    await ext.createCustomResourceDefinition({
      body: {
        metadata: { name: `widgets.${group}` },
        spec: {
          group,
          scope: 'Namespaced',
          names: { plural: 'widgets', singular: 'widget', kind: 'Widget', listKind: 'WidgetList' },
          versions: [
            {
              name: 'v1',
              served: true,
              storage: true,
              schema: {
                openAPIV3Schema: {
                  type: 'object',
                  properties: { spec: { type: 'object', properties: { size: { type: 'integer' } } } },
                },
              },
            },
          ],
        },
      },
    });
    await eventually('the CRD to be Established', async () => {
      const crd = await ext.readCustomResourceDefinition({ name: `widgets.${group}` });
      return crd.status?.conditions?.some((c) => c.type === 'Established' && c.status === 'True') === true
        ? true
        : undefined;
    });

    const custom = env.kubeConfig.makeApiClient(CustomObjectsApi);
    const ref = { group, version: 'v1', namespace: env.namespace, plural: 'widgets' };
    await custom.createNamespacedCustomObject({
      ...ref,
      body: { apiVersion: `${group}/v1`, kind: 'Widget', metadata: { name: 'w1' }, spec: { size: 3 } },
    });
    const read = (await custom.getNamespacedCustomObject({ ...ref, name: 'w1' })) as {
      spec?: { size?: number };
    };
    expect(read.spec?.size).toBe(3);
  });
});

describe('server-side apply', () => {
  it('applies a ConfigMap twice and the second apply changes nothing', async () => {
    const objects = KubernetesObjectApi.makeApiClient(env.kubeConfig);
    const desired: V1ConfigMap = {
      apiVersion: 'v1',
      kind: 'ConfigMap',
      metadata: { name: 'applied', namespace: env.namespace },
      data: { key: 'value' },
    };
    const first = await objects.patch(
      desired,
      undefined,
      undefined,
      'testenv',
      true,
      PatchStrategy.ServerSideApply,
    );
    const second = await objects.patch(
      desired,
      undefined,
      undefined,
      'testenv',
      true,
      PatchStrategy.ServerSideApply,
    );
    expect(first.metadata?.resourceVersion).toEqual(expect.any(String));
    expect(second.metadata?.resourceVersion).toBe(first.metadata?.resourceVersion);
    expect(second.data).toEqual({ key: 'value' });
  });
});

describe('garbage collection (kube-controller-manager)', () => {
  it('deletes a ConfigMap owned by a deleted ConfigMap', async () => {
    expect(env.controllerManager).toBe(true);
    const core = env.kubeConfig.makeApiClient(CoreV1Api);
    const owner = await core.createNamespacedConfigMap({
      namespace: env.namespace,
      body: { metadata: { name: 'owner' } },
    });
    await core.createNamespacedConfigMap({
      namespace: env.namespace,
      body: {
        metadata: {
          name: 'child',
          ownerReferences: [
            { apiVersion: 'v1', kind: 'ConfigMap', name: 'owner', uid: owner.metadata?.uid ?? '' },
          ],
        },
      },
    });
    await core.deleteNamespacedConfigMap({ namespace: env.namespace, name: 'owner' });
    await eventually('the owned ConfigMap to be garbage-collected', async () =>
      (await statusOf(core.readNamespacedConfigMap({ namespace: env.namespace, name: 'child' }))) === 404
        ? true
        : undefined,
    );
  });
});

describe('namespace deletion (kube-controller-manager)', () => {
  it('finishes deleting a namespace with content', async () => {
    const core = env.kubeConfig.makeApiClient(CoreV1Api);
    const name = `${env.namespace}-gone`;
    await core.createNamespace({ body: { metadata: { name } } });
    await core.createNamespacedConfigMap({ namespace: name, body: { metadata: { name: 'content' } } });
    await core.deleteNamespace({ name });
    await eventually('the namespace to disappear', async () =>
      (await statusOf(core.readNamespace({ name }))) === 404 ? true : undefined,
    );
  });
});

describe('authorization', () => {
  it('denies a user without RBAC (403) and allows it after a RoleBinding', async () => {
    const user = `alice-${env.namespace}`;
    const asUser = env.userKubeConfig(user).makeApiClient(CoreV1Api);
    const list = () => asUser.listNamespacedConfigMap({ namespace: env.namespace });
    expect(await statusOf(list())).toBe(403);

    const rbac = env.kubeConfig.makeApiClient(RbacAuthorizationV1Api);
    await rbac.createNamespacedRole({
      namespace: env.namespace,
      body: {
        metadata: { name: 'configmap-reader' },
        rules: [{ apiGroups: [''], resources: ['configmaps'], verbs: ['get', 'list'] }],
      },
    });
    await rbac.createNamespacedRoleBinding({
      namespace: env.namespace,
      body: {
        metadata: { name: 'alice-reads-configmaps' },
        roleRef: { apiGroup: 'rbac.authorization.k8s.io', kind: 'Role', name: 'configmap-reader' },
        subjects: [{ apiGroup: 'rbac.authorization.k8s.io', kind: 'User', name: user }],
      },
    });
    // RBAC reads bindings from an informer: allow a moment for it to see the new one.
    expect(
      await eventually('the RoleBinding to take effect', async () =>
        (await statusOf(list())) === 200 ? 200 : undefined,
      ),
    ).toBe(200);
    // Still nothing beyond the Role.
    expect(await statusOf(asUser.listNamespace())).toBe(403);
    expect(await statusOf(asUser.listNamespacedSecret({ namespace: env.namespace }))).toBe(403);
  });

  it('fills the aggregated ClusterRoles, so a binding to view grants reading', async () => {
    const user = `carol-${env.namespace}`;
    const asUser = env.userKubeConfig(user).makeApiClient(CoreV1Api);
    const list = () => asUser.listNamespacedConfigMap({ namespace: env.namespace });
    expect(await statusOf(list())).toBe(403);
    await env.kubeConfig.makeApiClient(RbacAuthorizationV1Api).createNamespacedRoleBinding({
      namespace: env.namespace,
      body: {
        metadata: { name: 'carol-view' },
        roleRef: { apiGroup: 'rbac.authorization.k8s.io', kind: 'ClusterRole', name: 'view' },
        subjects: [{ apiGroup: 'rbac.authorization.k8s.io', kind: 'User', name: user }],
      },
    });
    expect(
      await eventually('the view binding to take effect', async () =>
        (await statusOf(list())) === 200 ? 200 : undefined,
      ),
    ).toBe(200);
  });

  it('authenticates certificate users with their groups', async () => {
    const review = await env
      .userKubeConfig('bob', ['team-a', 'team-b'])
      .makeApiClient(AuthenticationV1Api)
      .createSelfSubjectReview({ body: {} });
    expect(review.status?.userInfo?.username).toBe('bob');
    expect(review.status?.userInfo?.groups).toEqual(
      expect.arrayContaining(['team-a', 'team-b', 'system:authenticated']),
    );
  });
});

describe('service account tokens', () => {
  it('issues a token with the TokenRequest API that the API server accepts', async () => {
    const core = env.kubeConfig.makeApiClient(CoreV1Api);
    await core.createNamespacedServiceAccount({
      namespace: env.namespace,
      body: { metadata: { name: 'robot' } },
    });
    const request = await core.createNamespacedServiceAccountToken({
      namespace: env.namespace,
      name: 'robot',
      body: { spec: { audiences: [], expirationSeconds: 600 } },
    });
    const token = request.status?.token;
    expect(token).toEqual(expect.any(String));

    const kc = new KubeConfig();
    kc.loadFromOptions({
      clusters: [env.kubeConfig.getCurrentCluster()],
      users: [{ name: 'robot', token }],
      contexts: [{ name: 'robot', cluster: env.kubeConfig.getCurrentCluster()?.name, user: 'robot' }],
      currentContext: 'robot',
    });
    const review = await kc.makeApiClient(AuthenticationV1Api).createSelfSubjectReview({ body: {} });
    expect(review.status?.userInfo?.username).toBe(`system:serviceaccount:${env.namespace}:robot`);
  });
});

describe('metrics', () => {
  it('counts requests in apiserver_request_total', async () => {
    const core = env.kubeConfig.makeApiClient(CoreV1Api);
    await core.createNamespacedConfigMap({
      namespace: env.namespace,
      body: { metadata: { name: 'counted' } },
    });
    const labels = { verb: 'GET', resource: 'configmaps', code: '200' };
    const before = sumMetric(await env.metrics(), 'apiserver_request_total', labels);
    for (let i = 0; i < 3; i++)
      await core.readNamespacedConfigMap({ namespace: env.namespace, name: 'counted' });
    const after = sumMetric(await env.metrics(), 'apiserver_request_total', labels);
    expect(after - before).toBeGreaterThanOrEqual(3);
  });
});
