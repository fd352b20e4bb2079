/**
 * Readiness on a control plane that runs workloads (docs/reference/runtime.md §7): kube-scheduler binds pods, kwok
 * makes them Running and Ready and completes Job pods, the workload controllers do the rest.
 *
 * - ordering: the migration Job waits for the database StatefulSet, the Deployment for the Job;
 * - Ready names the first child not ready, becomes True once everything is, and is never True
 *   while a child is not ready: every status write is checked against the children's state at
 *   the same etcd revision, over random scale changes.
 */
import { AppsV1Api, BatchV1Api, Watch } from '@kubernetes/client-node';
import type { KubeConfig } from '@kubernetes/client-node';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { KatalogRuntime } from '@orkestra/reconciler';
import { katalogFrom, readyOf, syncedOf, useRuntimeTest, waitFor } from './runtime-helpers.js';

const { env, group, crs, startRuntime } = useRuntimeTest({
  prefix: 'rd',
  kind: 'Shop',
  plural: 'shops',
  workloads: true,
});

const katalog = katalogFrom(`apiVersion: orkestra.konductor.io/v1alpha1
kind: Katalog
metadata: {name: readiness}
spec:
  crds:
    shop:
      apiTypes: {group: ${group}, version: v1, kind: Shop, plural: shops}
      resync: 10m
      operatorBox:
        onReconcile:
          statefulSets:
            - {id: db, name: "{{ metadata.name }}-db", image: postgres:16, replicas: 1}
          jobs:
            - {id: migrate, name: "{{ metadata.name }}-migrate", image: migrate:1, waitFor: [db]}
          deployments:
            - id: web
              name: "{{ metadata.name }}-web"
              image: nginx:1.27
              replicas: "{{ default spec.replicas 2 }}"
              waitFor: [migrate]
        status:
          fields:
            - { path: phase, value: Pending }
            - path: phase
              value: Running
              when: [{ field: '{{ allReplicasReady children.deployment }}', equals: 'true' }]
            - path: readyReplicas
              type: int
              value: '{{ default children.deployment.status.readyReplicas 0 }}'
`);

let runtime: KatalogRuntime;

/** Event is one watch event of a CR or a Deployment, ordered by its etcd revision. */
interface Event {
  readonly rv: bigint;
  readonly kind: 'Shop' | 'Deployment';
  readonly object: Record<string, unknown> & { metadata: { name: string; resourceVersion: string } };
}

async function record(
  kubeConfig: KubeConfig,
  path: string,
  kind: Event['kind'],
  into: Event[],
): Promise<() => void> {
  const request = await new Watch(kubeConfig).watch(
    path,
    {},
    (_type, object: Event['object']) => {
      into.push({ rv: BigInt(object.metadata.resourceVersion), kind, object });
    },
    () => undefined,
  );
  return () => request.abort();
}

/** deploymentReady is an independent reading of "a Deployment is ready": every wanted replica updated and available, at its generation. */
function deploymentReady(object: Record<string, unknown>): boolean {
  const metadata = object['metadata'] as { generation?: number };
  const spec = object['spec'] as { replicas?: number };
  const status = (object['status'] ?? {}) as Record<string, number | undefined>;
  const want = spec.replicas ?? 1;
  return (
    (status['observedGeneration'] ?? 0) >= (metadata.generation ?? 0) &&
    (status['updatedReplicas'] ?? 0) === want &&
    (status['availableReplicas'] ?? 0) === want &&
    (status['replicas'] ?? 0) === want
  );
}

beforeAll(async () => {
  runtime = await startRuntime({ katalog });
});

afterAll(async () => {
  await runtime.stop({ timeoutMs: 5000 });
});

describe('readiness with workloads (kwok)', () => {
  it(
    'applies children in waitFor order and reports Ready only once every child is ready',
    { timeout: 300_000 },
    async () => {
      const ns = env.namespace;
      await crs.create(ns, 'one', {});
      // Synced first; Ready waits, naming the child that holds it up.
      await waitFor(
        'one Synced=True',
        async () => syncedOf(await crs.get(ns, 'one'))?.status === 'True',
        60_000,
      );
      const early = readyOf(await crs.get(ns, 'one'));
      expect(early?.status).toBe('False');
      expect(early?.reason).toMatch(/^(ChildNotReady|WaitingForChildren)$/);

      let last: unknown;
      await waitFor(
        'one Ready=True',
        async () => {
          const seen = await crs.get(ns, 'one');
          last = { ready: readyOf(seen), inventory: seen.status?.inventory };
          return readyOf(seen)?.status === 'True';
        },
        240_000,
      ).catch((error: unknown) => {
        throw new Error(`${String(error)}; last seen ${JSON.stringify(last)}`);
      });
      const cr = await crs.get(ns, 'one');
      expect(cr.status?.['phase']).toBe('Running');
      expect(cr.status?.['readyReplicas']).toBe(2);
      const states = (cr.status?.inventory ?? []).map((i) => [i.kind, i.readiness?.state]);
      expect(states.sort()).toEqual([
        ['Deployment', 'Current'],
        ['Job', 'Current'],
        ['StatefulSet', 'Current'],
      ]);

      // The Job was created only once the StatefulSet was ready, the Deployment only after the Job completed.
      const apps = env.kubeConfig.makeApiClient(AppsV1Api);
      const batch = env.kubeConfig.makeApiClient(BatchV1Api);
      const job = await batch.readNamespacedJob({ namespace: ns, name: 'one-migrate' });
      const web = await apps.readNamespacedDeployment({ namespace: ns, name: 'one-web' });
      const completed = job.status?.completionTime;
      expect(completed).toBeDefined();
      expect(new Date(web.metadata?.creationTimestamp ?? 0).getTime()).toBeGreaterThanOrEqual(
        new Date(completed ?? 0).getTime(),
      );
    },
  );

  it(
    'never writes Ready=True while the Deployment is not ready (random scale changes, every status write checked)',
    { timeout: 600_000 },
    async () => {
      const ns = env.namespace;
      const events: Event[] = [];
      const sequence: number[] = [];
      const stops = [
        await record(env.kubeConfig, `/apis/${group}/v1/namespaces/${ns}/shops`, 'Shop', events),
        await record(env.kubeConfig, `/apis/apps/v1/namespaces/${ns}/deployments`, 'Deployment', events),
      ];
      try {
        await crs.create(ns, 'two', { replicas: 1 });
        await waitFor(
          'two Ready=True',
          async () => readyOf(await crs.get(ns, 'two'))?.status === 'True',
          120_000,
        );
        // A fixed seed keeps the run reproducible; the printed sequence says what was tried.
        let seed = 18;
        const random = (): number => (seed = (seed * 1103515245 + 12345) % 2 ** 31) / 2 ** 31;
        for (let round = 0; round < 6; round++) {
          const replicas = 1 + Math.floor(random() * 4);
          sequence.push(replicas);
          await crs.patchSpec(ns, 'two', { replicas });
          // Sometimes let it settle, sometimes change it again mid-rollout.
          if (random() < 0.5) {
            await waitFor(
              `two Ready=True at ${replicas}`,
              async () => {
                const cr = await crs.get(ns, 'two');
                const ready = readyOf(cr);
                return ready?.status === 'True' && ready.observedGeneration === cr.metadata.generation;
              },
              120_000,
            );
          }
        }
        await waitFor(
          'two Ready=True at the end',
          async () => {
            const cr = await crs.get(ns, 'two');
            const ready = readyOf(cr);
            return ready?.status === 'True' && ready.observedGeneration === cr.metadata.generation;
          },
          120_000,
        );
      } finally {
        for (const stop of stops) stop();
      }

      // Replay in etcd revision order: at each CR write with Ready=True, the Deployment as of that revision must be ready.
      events.sort((a, b) => (a.rv < b.rv ? -1 : a.rv > b.rv ? 1 : 0));
      let deployment: Record<string, unknown> | undefined;
      let readyWrites = 0;
      const violations: string[] = [];
      let previousStatus: string | undefined;
      for (const event of events) {
        if (event.kind === 'Deployment') {
          if (event.object.metadata.name === 'two-web') deployment = event.object;
          continue;
        }
        if (event.object.metadata.name !== 'two') continue;
        // Only status writes count: the test's own spec patches carry the status as it was.
        const statusJson = JSON.stringify(event.object['status'] ?? null);
        if (statusJson === previousStatus) continue;
        previousStatus = statusJson;
        const conditions =
          (event.object['status'] as { conditions?: { type: string; status: string }[] } | undefined)
            ?.conditions ?? [];
        if (conditions.find((c) => c.type === 'Ready')?.status !== 'True') continue;
        readyWrites++;
        if (deployment == null || !deploymentReady(deployment))
          violations.push(
            `rv ${event.rv}: Ready=True while Deployment is ${JSON.stringify(deployment?.['status'] ?? null)}`,
          );
      }
      expect(readyWrites).toBeGreaterThan(0);
      expect(violations, `replica sequence ${sequence.join(', ')}`).toEqual([]);
    },
  );
});
