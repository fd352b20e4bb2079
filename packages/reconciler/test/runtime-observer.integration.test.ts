/**
 * The runtime's observer calls, once Secrets (data rendered only on create, metadata kept in sync
 * in onReconcile), Events without discovery, and cleanup Jobs that are not created again after
 * their TTL removed them.
 */
import { randomBytes } from 'node:crypto';
import {
  BatchV1Api,
  CoreV1Api,
  CustomObjectsApi,
  PatchStrategy,
  setHeaderOptions,
} from '@kubernetes/client-node';
import { beforeAll, describe, expect, it } from 'vitest';
import type { KatalogRuntime, RuntimeObserver } from '@orkestra/reconciler';
import {
  completeJob,
  jobExists,
  katalogFrom,
  useRuntimeTest,
  waitFor,
  waitForSynced,
} from './runtime-helpers.js';

const { env, group, crs, startRuntime } = useRuntimeTest({ prefix: 'obs', kind: 'App', plural: 'apps' });

const katalog = katalogFrom(`
apiVersion: orkestra.konductor.io/v1alpha1
kind: Katalog
metadata: {name: observer-test}
spec:
  crds:
    app:
      apiTypes: {group: ${group}, version: v1, kind: App, plural: apps}
      resync: "0"
      validation:
        rules:
          - {field: spec.tier, notEquals: forbidden, message: "tier {{ spec.tier }} is not allowed"}
      operatorBox:
        onDelete:
          jobs:
            - name: "{{ metadata.name }}-cleanup"
              image: busybox:1.36
              command: ["sh", "-c", "true"]
          ordered: true
          groups:
            - name: data
              configMaps: [{name: "{{ metadata.name }}-keep"}]
        onReconcile:
          configMaps:
            - name: "{{ metadata.name }}-config"
              data: {tier: "{{ spec.tier }}"}
            - name: "{{ metadata.name }}-keep"
              data: {keep: "yes"}
          secrets:
            - name: "{{ metadata.name }}-creds"
              once: true
              labels: {tier: "{{ spec.tier }}"}
              data: {password: "{{ randomAlphanumeric 16 }}"}
`);

let runtime: KatalogRuntime;
const calls: string[] = [];
let randomCalls = 0;

/** A recording observer: every call as `method arg1 arg2 …` without the durations. */
const observer: Partial<RuntimeObserver> = {
  reconcileFinished: (controller, result, _seconds, options) =>
    calls.push(`reconcileFinished ${controller} ${result}${options?.terminal === true ? ' terminal' : ''}`),
  reconcileStep: (controller, step) => calls.push(`reconcileStep ${controller} ${step}`),
  maxConcurrentReconciles: (controller, workers) =>
    calls.push(`maxConcurrentReconciles ${controller} ${workers}`),
  queueAdd: (controller) => calls.push(`queueAdd ${controller}`),
  queueWait: (controller) => calls.push(`queueWait ${controller}`),
  queueWork: (controller) => calls.push(`queueWork ${controller}`),
  restRequest: (method, code) => calls.push(`restRequest ${method} ${code}`),
  informerEvent: (resource) => calls.push(`informerEvent ${resource}`),
  childWrite: (controller, kind, operation) => calls.push(`childWrite ${controller} ${kind} ${operation}`),
  childWriteSkipped: (controller, kind) => calls.push(`childWriteSkipped ${controller} ${kind}`),
  statusWrite: (controller, result) => calls.push(`statusWrite ${controller} ${result}`),
  event: (controller, type, reason) => calls.push(`event ${controller} ${type} ${reason}`),
  validation: (controller, result) => calls.push(`validation ${controller} ${result}`),
  secretGenerated: (controller, reason) => calls.push(`secretGenerated ${controller} ${reason}`),
};

function core(): CoreV1Api {
  return env.kubeConfig.makeApiClient(CoreV1Api);
}

beforeAll(async () => {
  runtime = await startRuntime({
    katalog,
    observer,
    randomBytes: (size) => {
      randomCalls++;
      return new Uint8Array(randomBytes(size));
    },
  });
});

async function secret(
  namespace: string,
  name: string,
): Promise<{ labels: Record<string, string>; data: Record<string, string> }> {
  const s = await core().readNamespacedSecret({ namespace, name });
  return { labels: s.metadata?.labels ?? {}, data: s.data ?? {} };
}

describe('the runtime observer and once Secrets', () => {
  it('reports a reconcile through the observer', async () => {
    const ns = env.namespace;
    calls.length = 0;
    await crs.create(ns, 'alpha', { tier: 'gold' });
    await waitForSynced(crs, ns, 'alpha');
    // The runtime does not re-reconcile the echo of its own writes; a foreign metadata change
    // does, and that reconcile finds the status unchanged, so its write is skipped.
    await env.kubeConfig.makeApiClient(CustomObjectsApi).patchNamespacedCustomObject(
      {
        group,
        version: 'v1',
        namespace: ns,
        plural: 'apps',
        name: 'alpha',
        body: { metadata: { annotations: { touched: 'yes' } } },
      },
      setHeaderOptions('Content-Type', PatchStrategy.MergePatch),
    );
    await waitFor('a status write was skipped (converged)', () => calls.includes('statusWrite app skipped'));
    expect(calls).toEqual(
      expect.arrayContaining([
        'queueAdd app',
        'queueWait app',
        'queueWork app',
        'validation app passed',
        'childWrite app ConfigMap apply',
        'childWrite app Secret create',
        'secretGenerated app created',
        'statusWrite app written',
        'event app Normal ReconcileSucceeded',
        'reconcileStep app onReconcile',
        'reconcileStep app status',
        'restRequest PATCH 201',
        'restRequest POST 201',
        `informerEvent apps.${group}`,
      ]),
    );
    expect(calls.some((c) => /^reconcileFinished app (success|requeue_after)$/.test(c))).toBe(true);
    // The children the first reconcile created are one Event, not one each; they are ready on
    // creation, so that Event is the Ready transition naming them (ADR 0100), with no Created beside it.
    expect(calls.filter((c) => c === 'event app Normal ReconcileSucceeded')).toHaveLength(1);
    expect(calls.filter((c) => c === 'event app Normal Created')).toHaveLength(0);
    // The converged reconcile wrote nothing: every child was skipped.
    expect(calls).toContain('childWriteSkipped app ConfigMap');
    const snapshot = runtime.snapshot();
    expect(snapshot.entries).toEqual([
      expect.objectContaining({ controller: 'app', maxConcurrentReconciles: 3, workersStarted: true }),
    ]);
    expect(snapshot.caches).toEqual(
      expect.arrayContaining([
        { resource: `apps.${group}`, objects: 1 },
        { resource: 'secrets', objects: 1 },
      ]),
    );
  });

  it('writes Events with a direct POST: no discovery request for core v1', async () => {
    const counts = runtime.requestCounts();
    expect(counts['create Event']).toBeGreaterThan(0);
    expect(counts['discovery v1']).toBeUndefined();
  });

  it('renders once Secret data only on create and keeps its labels in sync without touching data', async () => {
    const ns = env.namespace;
    const before = await secret(ns, 'alpha-creds');
    expect(before.labels['tier']).toBe('gold');
    const randomBefore = randomCalls;
    expect(randomBefore).toBeGreaterThan(0); // the create rendered the password
    await crs.patchSpec(ns, 'alpha', { tier: 'silver' });
    await waitFor('config map updated', async () => {
      const cm = await core().readNamespacedConfigMap({ namespace: ns, name: 'alpha-config' });
      return cm.data?.['tier'] === 'silver';
    });
    await waitFor(
      'secret label updated',
      async () => (await secret(ns, 'alpha-creds')).labels['tier'] === 'silver',
    );
    await waitForSynced(crs, ns, 'alpha');
    const after = await secret(ns, 'alpha-creds');
    expect(after.data).toEqual(before.data);
    expect(randomCalls).toBe(randomBefore); // no reconcile after the create ran a random helper
  });

  it('does not create a finished cleanup Job again after its TTL removed it', async () => {
    const ns = env.namespace;
    const batch = env.kubeConfig.makeApiClient(BatchV1Api);
    await crs.create(ns, 'beta', { tier: 'gold' });
    await waitForSynced(crs, ns, 'beta');
    // Hold the ordered group's ConfigMap with a foreign finalizer, so deletion waits after the job step.
    await core().patchNamespacedConfigMap(
      { namespace: ns, name: 'beta-keep', body: { metadata: { finalizers: ['example.com/hold'] } } },
      setHeaderOptions('Content-Type', PatchStrategy.MergePatch),
    );
    await crs.remove(ns, 'beta');
    const cleanupJobExists = (): Promise<boolean> => jobExists(env.kubeConfig, ns, 'beta-cleanup');
    await waitFor('cleanup job created', cleanupJobExists);
    await completeJob(env.kubeConfig, ns, 'beta-cleanup');
    await waitFor('completion recorded on the CR', async () => {
      const cr = (await crs.get(ns, 'beta')) as unknown as {
        metadata: { annotations?: Record<string, string> };
      };
      return (
        cr.metadata.annotations?.['orkestra.konductor.io/cleanup-jobs-finished'] === `${ns}/beta-cleanup`
      );
    });
    await waitFor('ordered group deletion started', async () => {
      const cm = await core().readNamespacedConfigMap({ namespace: ns, name: 'beta-keep' });
      return cm.metadata?.deletionTimestamp != null;
    });
    // What the TTL controller does after ttlSecondsAfterFinished.
    await batch.deleteNamespacedJob({ namespace: ns, name: 'beta-cleanup', propagationPolicy: 'Background' });
    await waitFor('job gone', async () => !(await cleanupJobExists()));
    // The deletion path keeps re-queuing every 3 s while the group waits: let two reconciles pass.
    const finished = (): number => calls.filter((c) => c.startsWith('reconcileFinished app')).length;
    const mark = finished();
    await waitFor('two more reconciles', () => finished() >= mark + 2, 30_000);
    expect(await cleanupJobExists()).toBe(false);
    // Release the group: the CR finishes deleting.
    await core().patchNamespacedConfigMap(
      { namespace: ns, name: 'beta-keep', body: { metadata: { finalizers: null } } },
      setHeaderOptions('Content-Type', PatchStrategy.MergePatch),
    );
    await waitFor('CR gone', async () => !(await crs.exists(ns, 'beta')), 30_000);
    expect(await cleanupJobExists()).toBe(false);
  });
});
