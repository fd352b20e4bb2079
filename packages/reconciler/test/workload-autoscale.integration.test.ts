/**
 * Workload autoscale on the local control plane (docs/reference/katalog.md §18.4, ADR 0065): a
 * Deployment child's replicas follow `scaleUp`/`scaleDown`, driven by an external metric (a local
 * HTTP server the reconcile calls through the external-call path and its address guard) and a
 * time window, within `min`..`max`, held by the cooldown, with the decision and why in
 * `status.autoscale`; a child created once is scaled in place without being re-applied.
 */
import { createServer } from 'node:http';
import type { Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { AppsV1Api } from '@kubernetes/client-node';
import { LOOPBACK_CIDRS } from '@orkestra/reconciler';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { katalogFrom, useRuntimeTest, waitFor } from './runtime-helpers.js';

const { env, group, crs, startRuntime } = useRuntimeTest({ prefix: 'wa', kind: 'Shop', plural: 'shops' });

/** The external metric each CR's reconcile reads, by CR name. */
const load = new Map<string, number>();
let server: Server;

beforeAll(async () => {
  server = createServer((req, res) => {
    const name = (req.url ?? '').split('/')[1] ?? '';
    res.writeHead(200, { 'content-type': 'application/json' });
    res.end(JSON.stringify({ queueDepth: load.get(name) ?? 0 }));
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const port = (server.address() as AddressInfo).port;
  await startRuntime({
    katalog: katalogFrom(`apiVersion: orkestra.konductor.io/v1alpha1
kind: Katalog
metadata: {name: workload-autoscale}
spec:
  crds:
    shop:
      apiTypes: {group: ${group}, version: v1, kind: Shop, plural: shops}
      resync: 1h
      operatorBox:
        external:
          - name: meter
            url: "http://127.0.0.1:${port}/{{ metadata.name }}"
        onCreate:
          deployments:
            - name: "{{ metadata.name }}-once"
              image: nginx:1.27
              replicas: 1
              autoscale:
                max: 4
                cooldown: 1h
                scaleUp:
                  conditions: {when: [{field: external.meter.queueDepth, greaterThan: 10}]}
                  increment: 2
        onReconcile:
          deployments:
            - name: "{{ metadata.name }}-web"
              image: nginx:1.27
              replicas: 1
              autoscale:
                max: 4
                cooldown: 1h
                scaleUp:
                  conditions:
                    when:
                      - field: external.meter.queueDepth
                        greaterThan: 10
                      - dayOfWeek: {in: [Monday, Tuesday, Wednesday, Thursday, Friday, Saturday, Sunday]}
                  increment: 2
                scaleDown:
                  conditions:
                    when:
                      - field: external.meter.queueDepth
                        lessThan: 5
                  target: 1
`),
    options: { allowPrivateAddresses: LOOPBACK_CIDRS },
  });
});

afterAll(async () => {
  server.closeAllConnections();
  await new Promise((resolve) => server.close(resolve));
});

async function replicasOf(name: string): Promise<number | undefined> {
  const deployment = await env.kubeConfig
    .makeApiClient(AppsV1Api)
    .readNamespacedDeployment({ namespace: env.namespace, name })
    .catch(() => undefined);
  return deployment?.spec?.replicas;
}

type ScaleStatus = { decision?: string; why?: string; replicas?: number; lastScaleTime?: string };
async function scaleStatusOf(name: string): Promise<ScaleStatus | undefined> {
  const cr = await crs.get(env.namespace, name);
  const autoscale = (cr.status as { autoscale?: Record<string, ScaleStatus> } | undefined)?.autoscale;
  return autoscale?.[`${name}-web`];
}

describe('workload autoscale on a control plane', () => {
  it('scales a Deployment up on an external metric, holds it for the cooldown, and says why', async () => {
    load.set('busy', 50);
    await crs.create(env.namespace, 'busy', { note: 'a' });
    await waitFor('busy-web at 3 replicas', async () => (await replicasOf('busy-web')) === 3, 60_000);
    const after = await env.kubeConfig
      .makeApiClient(AppsV1Api)
      .readNamespacedDeployment({ namespace: env.namespace, name: 'busy-web' });
    expect(after.metadata?.annotations?.['orkestra.konductor.io/autoscaled-at']).toMatch(/^\d{4}-\d\d-\d\dT/);
    // The reconcile that scaled reports `up`; the Deployment's own change reconciles the CR again,
    // which may already report the hold: either way the status names 3 and when it changed.
    await waitFor(
      'status names 3 replicas',
      async () => (await scaleStatusOf('busy'))?.replicas === 3,
      30_000,
    );
    const first = await scaleStatusOf('busy');
    expect(['up', 'cooldown']).toContain(first?.decision);
    expect(first?.lastScaleTime).toBe(after.metadata?.annotations?.['orkestra.konductor.io/autoscaled-at']);

    // The metric stays high and the spec changes: the next step is held by the 1 h cooldown.
    await crs.patchSpec(env.namespace, 'busy', { note: 'b' });
    await waitFor(
      'status says cooldown',
      async () => (await scaleStatusOf('busy'))?.decision === 'cooldown',
      30_000,
    );
    expect(await replicasOf('busy-web')).toBe(3);
    expect((await scaleStatusOf('busy'))?.why).toMatch(
      /^scaleUp passed; held at 3 for the cooldown \(\d+s left\)$/,
    );
  }, 120_000);

  it('scales a child created once in place: replicas and the change time only, the rest not re-applied', async () => {
    const apps = env.kubeConfig.makeApiClient(AppsV1Api);
    load.set('fixed', 7);
    await crs.create(env.namespace, 'fixed', { note: 'a' });
    await waitFor('fixed-once exists', async () => (await replicasOf('fixed-once')) === 1, 60_000);
    // Someone changes the created-once child: Orkestra does not re-apply it.
    await apps.patchNamespacedDeployment({
      namespace: env.namespace,
      name: 'fixed-once',
      body: [{ op: 'replace', path: '/spec/template/spec/containers/0/image', value: 'nginx:1.28' }],
    });
    load.set('fixed', 50);
    await crs.patchSpec(env.namespace, 'fixed', { note: 'b' });
    await waitFor('fixed-once at 3 replicas', async () => (await replicasOf('fixed-once')) === 3, 60_000);
    const scaled = await apps.readNamespacedDeployment({ namespace: env.namespace, name: 'fixed-once' });
    expect(scaled.spec?.template.spec?.containers[0]?.image).toBe('nginx:1.28');
    expect(scaled.metadata?.annotations?.['orkestra.konductor.io/autoscaled-at']).toMatch(
      /^\d{4}-\d\d-\d\dT/,
    );
    await waitFor(
      'status names 3 replicas for fixed-once',
      async () => {
        const cr = await crs.get(env.namespace, 'fixed');
        const autoscale = (cr.status as { autoscale?: Record<string, ScaleStatus> } | undefined)?.autoscale;
        return autoscale?.['fixed-once']?.replicas === 3;
      },
      30_000,
    );
  }, 120_000);

  it('a quiet metric leaves the declared replicas and says no condition passed', async () => {
    load.set('calm', 7);
    await crs.create(env.namespace, 'calm', { note: 'a' });
    await waitFor('status for calm', async () => (await scaleStatusOf('calm')) != null, 60_000);
    expect(await replicasOf('calm-web')).toBe(1);
    expect(await scaleStatusOf('calm')).toMatchObject({
      decision: 'none',
      why: 'no scale condition passed: 1',
    });
  }, 120_000);
});
