import { X509Certificate } from 'node:crypto';
import { AppsV1Api, BatchV1Api, CoreV1Api, PatchStrategy, setHeaderOptions } from '@kubernetes/client-node';
import { beforeAll, describe, expect, it } from 'vitest';
import type { KatalogRuntime } from '@orkestra/reconciler';
import {
  completeJob,
  createNamespace,
  jobExists,
  katalogFrom,
  readConfigMap,
  readyOf,
  syncedOf,
  useRuntimeTest,
  waitFor,
  waitForSynced,
} from './runtime-helpers.js';

const { env, group, crs, startRuntime, onCleanup } = useRuntimeTest({
  prefix: 'rt',
  kind: 'Website',
  plural: 'websites',
});
const restricted = `restricted-${Math.random().toString(36).slice(2, 8)}`;

const katalog = katalogFrom(`
apiVersion: orkestra.konductor.io/v1alpha1
kind: Katalog
metadata: {name: runtime-test}
spec:
  crds:
    website:
      apiTypes: {group: ${group}, version: v1, kind: Website, plural: websites}
      resync: "0"
      restrictedNamespaces: ["restricted-*"]
      validation:
        rules:
          - {field: spec.image, notPrefix: "bad/", message: "image {{ spec.image }} is not allowed"}
      operatorBox:
        onDelete:
          when: [{field: spec.cleanup, equals: "true"}]
          jobs:
            - name: "{{ metadata.name }}-cleanup"
              image: busybox:1.36
              command: ["sh", "-c", "true"]
        onReconcile:
          configMaps:
            - name: "{{ metadata.name }}-config"
              data: {greeting: "{{ spec.greeting }}"}
            - name: "{{ metadata.name }}-extra"
              when: [{field: spec.extra, equals: "true"}]
              data: {extra: "yes"}
            - name: "{{ metadata.name }}-region-{{ item }}"
              forEach: {field: spec.regions}
              data: {region: "{{ item }}"}
          secrets:
            - name: "{{ metadata.name }}-creds"
              once: true
              data: {password: "{{ randomAlphanumeric 24 }}"}
            - name: "{{ metadata.name }}-tls"
              when: [{field: spec.tls, equals: "true"}]
              tls: {dnsNames: ["{{ metadata.name }}.{{ metadata.namespace }}.svc"], validFor: 30d}
          deployments:
            - image: "{{ spec.image }}"
              replicas: 1
        status:
          fields:
            - {path: phase, value: Running}
`);

let runtime: KatalogRuntime;

function core(): CoreV1Api {
  return env.kubeConfig.makeApiClient(CoreV1Api);
}

function configMap(namespace: string, name: string): Promise<Record<string, string> | undefined> {
  return readConfigMap(env.kubeConfig, namespace, name);
}

async function secretData(namespace: string, name: string): Promise<Record<string, string> | undefined> {
  try {
    const secret = await core().readNamespacedSecret({ namespace, name });
    return { ...secret.data, __type: secret.type ?? '' };
  } catch (error) {
    if ((error as { code?: number }).code === 404) return undefined;
    throw error;
  }
}

beforeAll(async () => {
  runtime = await startRuntime({ katalog });
});

describe('createKatalogRuntime against the control plane', () => {
  it('creates children and reports Ready=True with observedGeneration, declared fields and an inventory', async () => {
    const ns = env.namespace;
    await crs.create(ns, 'shop', { image: 'nginx:1.27', greeting: 'hello', regions: ['eu'] });
    await waitForSynced(crs, ns, 'shop');
    expect(await configMap(ns, 'shop-config')).toEqual({ greeting: 'hello' });
    expect(await configMap(ns, 'shop-region-eu')).toEqual({ region: 'eu' });
    const deployment = await env.kubeConfig
      .makeApiClient(AppsV1Api)
      .readNamespacedDeployment({ namespace: ns, name: 'shop-deployment' });
    expect(deployment.spec?.template.spec?.containers[0]?.image).toBe('nginx:1.27');
    const cr = await crs.get(ns, 'shop');
    expect(cr.metadata.finalizers).toContain('orkestra.konductor.io/finalizer');
    expect(syncedOf(cr)).toMatchObject({ status: 'True', reason: 'ReconcileSucceeded' });
    // No workload controllers run on this control plane, so the Deployment never
    // becomes available and Ready says so, naming it.
    expect(readyOf(cr)).toMatchObject({ status: 'False', reason: 'ChildNotReady' });
    expect(readyOf(cr)?.message).toMatch(/^Deployment shop-deployment: /);
    // ADR 0020: the new CR's Events say what was created, not that it waits for its Deployment.
    expect(await runtime.events.flush(5000)).toBe(true);
    const events = await core().listNamespacedEvent({
      namespace: ns,
      fieldSelector: `involvedObject.name=shop,involvedObject.uid=${cr.metadata.uid ?? ''}`,
    });
    expect(events.items.map((e) => e.reason)).toEqual(['Created']);
    expect(cr.status?.['phase']).toBe('Running');
    expect(cr.status?.observedGeneration).toBe(cr.metadata.generation);
    expect(cr.status?.inventory?.map((i) => `${i.kind}/${i.name}/${i.mode}`).sort()).toEqual([
      'ConfigMap/shop-config/apply',
      'ConfigMap/shop-region-eu/apply',
      'Deployment/shop-deployment/apply',
      'Secret/shop-creds/create',
    ]);
  });

  it('updates children on a spec change and keeps lastTransitionTime', async () => {
    const ns = env.namespace;
    const before = syncedOf(await crs.get(ns, 'shop'));
    await crs.patchSpec(ns, 'shop', { greeting: 'bonjour' });
    await waitFor(
      'config updated',
      async () => (await configMap(ns, 'shop-config'))?.['greeting'] === 'bonjour',
    );
    await waitForSynced(crs, ns, 'shop');
    expect(syncedOf(await crs.get(ns, 'shop'))?.lastTransitionTime).toBe(before?.lastTransitionTime);
  });

  it('reverts a manual edit of a child through the watch within 2 s (resync off)', async () => {
    const ns = env.namespace;
    await core().patchNamespacedConfigMap(
      { namespace: ns, name: 'shop-config', body: { data: { greeting: 'tampered' } } },
      setHeaderOptions('Content-Type', PatchStrategy.MergePatch),
    );
    // The deadline is the requirement: reverted within 2 s with resync disabled.
    await waitFor(
      'manual edit reverted',
      async () => (await configMap(ns, 'shop-config'))?.['greeting'] === 'bonjour',
      2000,
      25,
    );
  });

  it('prunes a child whose when turned false, and a child whose forEach item disappeared', async () => {
    const ns = env.namespace;
    await crs.patchSpec(ns, 'shop', { extra: 'true', regions: ['eu', 'us'] });
    await waitFor(
      'extra and us created',
      async () =>
        (await configMap(ns, 'shop-extra')) != null && (await configMap(ns, 'shop-region-us')) != null,
    );
    await crs.patchSpec(ns, 'shop', { extra: 'false', regions: ['us'] });
    await waitFor(
      'extra and eu pruned',
      async () =>
        (await configMap(ns, 'shop-extra')) == null && (await configMap(ns, 'shop-region-eu')) == null,
    );
    expect(await configMap(ns, 'shop-region-us')).toEqual({ region: 'us' });
    await waitForSynced(crs, ns, 'shop');
    const names = (await crs.get(ns, 'shop')).status?.inventory?.map((i) => i.name) ?? [];
    expect(names).not.toContain('shop-extra');
    expect(names).not.toContain('shop-region-eu');
  });

  it('fails validation with Ready=False ValidationFailed and touches no child', async () => {
    const ns = env.namespace;
    await crs.create(ns, 'invalid', { image: 'bad/nginx', greeting: 'x' });
    await waitFor(
      'ValidationFailed',
      async () => syncedOf(await crs.get(ns, 'invalid'))?.reason === 'ValidationFailed',
    );
    const condition = syncedOf(await crs.get(ns, 'invalid'));
    expect(condition?.status).toBe('False');
    expect(condition?.message).toContain('image bad/nginx is not allowed');
    expect(condition?.message).toContain('website.validation');
    expect(await configMap(ns, 'invalid-config')).toBeUndefined();
    expect(await secretData(ns, 'invalid-creds')).toBeUndefined();
  });

  it('reports NamespaceRestricted for a CR in a restricted namespace and writes no children', async () => {
    onCleanup(await createNamespace(env.kubeConfig, restricted));
    await crs.create(restricted, 'blocked', { image: 'nginx', greeting: 'x' });
    await waitFor(
      'NamespaceRestricted',
      async () => syncedOf(await crs.get(restricted, 'blocked'))?.reason === 'NamespaceRestricted',
    );
    const cr = await crs.get(restricted, 'blocked');
    expect(syncedOf(cr)?.status).toBe('False');
    expect(cr.metadata.finalizers ?? []).not.toContain('orkestra.konductor.io/finalizer');
    expect(await configMap(restricted, 'blocked-config')).toBeUndefined();
  });

  it('keeps a once Secret byte-identical across a runtime restart', async () => {
    const ns = env.namespace;
    const first = await secretData(ns, 'shop-creds');
    expect(first?.['password']).toMatch(/^[A-Za-z0-9+/=]+$/);
    await runtime.stop({ timeoutMs: 5000 });
    runtime = await startRuntime({ katalog });
    await crs.patchSpec(ns, 'shop', { greeting: 'hallo' });
    await waitFor(
      'config updated after restart',
      async () => (await configMap(ns, 'shop-config'))?.['greeting'] === 'hallo',
    );
    await waitForSynced(crs, ns, 'shop');
    expect(await secretData(ns, 'shop-creds')).toEqual(first);
  });

  it('generates a TLS Secret whose certificate verifies against its ca.crt', async () => {
    const ns = env.namespace;
    await crs.patchSpec(ns, 'shop', { tls: 'true' });
    await waitFor('tls secret', async () => (await secretData(ns, 'shop-tls')) != null);
    const data = await secretData(ns, 'shop-tls');
    expect(data?.['__type']).toBe('kubernetes.io/tls');
    const decode = (key: string): string => Buffer.from(data?.[key] ?? '', 'base64').toString('utf8');
    const leaf = new X509Certificate(decode('tls.crt'));
    const ca = new X509Certificate(decode('ca.crt'));
    expect(leaf.verify(ca.publicKey)).toBe(true);
    expect(leaf.checkIssued(ca)).toBe(true);
    expect(leaf.subjectAltName).toContain(`DNS:shop.${ns}.svc`);
    expect(decode('tls.key')).toContain('BEGIN PRIVATE KEY');
  });

  it('keeps same-named CRs in two namespaces independent', async () => {
    const other = `${env.namespace}-b`;
    onCleanup(await createNamespace(env.kubeConfig, other));
    await crs.create(other, 'shop', { image: 'nginx:1.26', greeting: 'other' });
    await waitForSynced(crs, other, 'shop');
    expect(await configMap(other, 'shop-config')).toEqual({ greeting: 'other' });
    expect(await configMap(env.namespace, 'shop-config')).toEqual({ greeting: 'hallo' });
    const a = await crs.get(env.namespace, 'shop');
    const b = await crs.get(other, 'shop');
    const owner = async (namespace: string): Promise<string | undefined> =>
      (await core().readNamespacedConfigMap({ namespace, name: 'shop-config' })).metadata?.labels?.[
        'orkestra.konductor.io/owner-uid'
      ];
    expect(await owner(env.namespace)).toBe(a.metadata.uid);
    expect(await owner(other)).toBe(b.metadata.uid);
    await crs.remove(other, 'shop');
    await waitFor('other shop gone', async () => !(await crs.exists(other, 'shop')));
    expect(await configMap(env.namespace, 'shop-config')).toEqual({ greeting: 'hallo' });
  });

  it('runs the onDelete Job, deletes the children, then removes the finalizer', async () => {
    const ns = env.namespace;
    await crs.create(ns, 'gone', { image: 'nginx', greeting: 'bye', cleanup: 'true' });
    await waitForSynced(crs, ns, 'gone');
    expect(await configMap(ns, 'gone-config')).toBeDefined();
    await crs.remove(ns, 'gone');
    await waitFor('cleanup job created', () => jobExists(env.kubeConfig, ns, 'gone-cleanup'));
    const batch = env.kubeConfig.makeApiClient(BatchV1Api);
    const job = await batch.readNamespacedJob({ namespace: ns, name: 'gone-cleanup' });
    expect(job.metadata?.ownerReferences ?? []).toEqual([]);
    expect(job.spec?.ttlSecondsAfterFinished).toBe(600);
    const deleting = await crs.get(ns, 'gone');
    expect(deleting.metadata.finalizers).toContain('orkestra.konductor.io/finalizer');
    expect(syncedOf(deleting)?.reason).toBe('Deleting');
    // No kubelet runs Pods here: mark the Job complete as admin, as the Job controller would.
    await completeJob(env.kubeConfig, ns, 'gone-cleanup');
    await waitFor('CR gone', async () => !(await crs.exists(ns, 'gone')), 30_000);
    // Deterministic deletion (ADR 0010): the finalizer is released only once every child is gone,
    // so they are gone when the CR is, whatever the garbage collector knows.
    expect(await configMap(ns, 'gone-config')).toBeUndefined();
  });
});
