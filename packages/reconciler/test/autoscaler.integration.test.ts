import { CoreV1Api, CustomObjectsApi } from '@kubernetes/client-node';
import { useControlPlane } from '@orkestra/testenv/vitest';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createKatalogRuntime } from '@orkestra/reconciler';
import type { KatalogRuntime } from '@orkestra/reconciler';
import {
  createNamespace,
  installCrd,
  katalogFrom,
  quietLogger,
  uniqueGroup,
  waitFor,
} from './runtime-helpers.js';

const env = useControlPlane();
const group = uniqueGroup('scale');
const api = { group, version: 'v1', kind: 'Item', plural: 'items' };
const COUNT = 500;
const MIN_WORKERS = 2;
const MAX_WORKERS = 8;
/**
 * The children live in a namespace of their own: a child outside its CR's namespace carries no
 * owner reference, so 500 of them do not keep kube-controller-manager's garbage collector (shared
 * with the other test files) busy verifying owners.
 */
const childNamespace = `scale-children-${Math.random().toString(36).slice(2, 8)}`;

const katalog = katalogFrom(`
apiVersion: orkestra.konductor.io/v1alpha1
kind: Katalog
metadata: {name: autoscale-test}
spec:
  crds:
    item:
      apiTypes: {group: ${group}, version: v1, kind: Item, plural: items}
      workers: ${MIN_WORKERS}
      resync: "0"
      autoscale:
        interval: 250ms
        cooldown: 1500ms
        workers: {min: ${MIN_WORKERS}, max: ${MAX_WORKERS}}
        targets: {busyPercent: 50, queuePerWorker: 2}
      operatorBox:
        onReconcile:
          configMaps:
            - name: "{{ metadata.name }}-cm"
              namespace: ${childNamespace}
              data: {index: "{{ spec.index }}"}
`);

let runtime: KatalogRuntime | undefined;
const cleanups: (() => Promise<void>)[] = [];

function custom(): CustomObjectsApi {
  return env.kubeConfig.makeApiClient(CustomObjectsApi);
}

beforeAll(async () => {
  cleanups.push(await installCrd(env.kubeConfig, api));
  cleanups.push(await createNamespace(env.kubeConfig, childNamespace));
  // The burst: every CR exists before the runtime starts, so starting the workers enqueues all 500.
  const names = Array.from({ length: COUNT }, (_, i) => `item-${i}`);
  for (let i = 0; i < names.length; i += 25) {
    await Promise.all(
      names.slice(i, i + 25).map((name, j) =>
        custom().createNamespacedCustomObject({
          group,
          version: 'v1',
          plural: 'items',
          namespace: env.namespace,
          body: { apiVersion: `${group}/v1`, kind: 'Item', metadata: { name }, spec: { index: i + j } },
        }),
      ),
    );
  }
}, 180_000);

afterAll(async () => {
  if (runtime != null) {
    // Let the runtime remove its finalizers so the CRD can go.
    await custom()
      .deleteCollectionNamespacedCustomObject({
        group,
        version: 'v1',
        plural: 'items',
        namespace: env.namespace,
      })
      .catch(() => undefined);
    await waitFor(
      'items deleted',
      async () => {
        const list = (await custom().listNamespacedCustomObject({
          group,
          version: 'v1',
          plural: 'items',
          namespace: env.namespace,
        })) as { items: unknown[] };
        return list.items.length === 0;
      },
      120_000,
      500,
    ).catch(() => undefined);
    await runtime.stop({ timeoutMs: 5000 });
  }
  for (const cleanup of cleanups.reverse()) await cleanup();
}, 180_000);

describe('autoscaler under a burst', () => {
  it(`scales workers up for ${COUNT} queued CRs and back down to the declared count when idle`, async () => {
    runtime = createKatalogRuntime({
      katalog,
      kubeConfig: env.kubeConfig,
      logger: quietLogger(),
    });
    const started = Date.now();
    await runtime.start();
    const entry = runtime.entries.get('item');
    if (entry?.autoscaler == null) throw new Error('the item entry has no autoscaler');
    const dispatcher = entry.dispatcher;
    let maxWorkers = dispatcher.capacity;
    const sampler = setInterval(() => {
      maxWorkers = Math.max(maxWorkers, dispatcher.capacity);
    }, 20);
    try {
      const core = env.kubeConfig.makeApiClient(CoreV1Api);
      await waitFor(
        `${COUNT} config maps`,
        async () => {
          const list = await core.listNamespacedConfigMap({
            namespace: childNamespace,
            labelSelector: 'orkestra.konductor.io/crd=item',
          });
          return list.items.length === COUNT;
        },
        150_000,
        500,
      );
      await waitFor('queue drained', () => entry.queue.len() === 0 && dispatcher.inFlight === 0, 60_000);
      const drainedAt = Date.now();
      await waitFor('workers back at the minimum', () => dispatcher.capacity === MIN_WORKERS, 60_000, 20);
      const scaledDownAt = Date.now();
      // Stay idle for two more cooldowns: the count must stay exactly at the target.
      await new Promise((resolve) => setTimeout(resolve, 3000));
      const decisions = entry.autoscaler.decisions();
      console.info(
        `[autoscaler burst] ${COUNT} CRs: max workers ${maxWorkers}, burst handled in ${drainedAt - started} ms, ` +
          `scaled down ${scaledDownAt - drainedAt} ms after the queue drained; decisions ${JSON.stringify(decisions.workers)}`,
      );
      expect(maxWorkers).toBeGreaterThan(MIN_WORKERS);
      expect(maxWorkers).toBeLessThanOrEqual(MAX_WORKERS);
      expect(decisions.workers.up).toBeGreaterThan(0);
      expect(decisions.workers.down).toBeGreaterThan(0);
      expect(dispatcher.capacity).toBe(MIN_WORKERS);
    } finally {
      clearInterval(sampler);
    }
  }, 240_000);
});
