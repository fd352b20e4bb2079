/**
 * `enrich` on a control plane that runs workloads (docs/reference/katalog.md §3.5): kwok completes
 * the Job's pod and makes the Deployment's and StatefulSet's pods Ready, the EndpointSlice
 * controller publishes the Service's endpoints, and the CR's status reflects them through upstream's
 * notes over `_pods` and `_endpoints` — read from the Pod and EndpointSlice informers the entry's
 * enrich starts (the Deployment's and StatefulSet's pods by their selector).
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { KatalogRuntime } from '@orkestra/reconciler';
import { katalogFrom, useRuntimeTest, waitFor } from './runtime-helpers.js';

const { env, group, crs, startRuntime } = useRuntimeTest({
  prefix: 'en',
  kind: 'Probe',
  plural: 'probes',
  workloads: true,
});

const katalog = katalogFrom(`apiVersion: orkestra.konductor.io/v1alpha1
kind: Katalog
metadata: {name: enrich}
spec:
  crds:
    probe:
      apiTypes: {group: ${group}, version: v1, kind: Probe, plural: probes}
      resync: 10m
      enrich: [pods, endpoints]
      operatorBox:
        onReconcile:
          jobs:
            - {name: "{{ metadata.name }}-job", image: busybox:1.36}
          deployments:
            - {name: "{{ metadata.name }}-web", image: nginx:1.27, replicas: 2, port: 8080}
          statefulSets:
            - {name: "{{ metadata.name }}-db", image: postgres:16, replicas: 2}
          services:
            - {name: "{{ metadata.name }}-svc", port: 80, targetPort: 8080, workload: "{{ metadata.name }}-web"}
        status:
          fields:
            - { path: succeededPods, value: '{{ jobSucceededPodNames children.job }}' }
            - { path: exitCode, type: int, value: '{{ jobFirstExitCode children.job }}' }
            - { path: endpointCount, type: int, value: '{{ serviceEndpointCount children.service }}' }
            - { path: hasEndpoints, type: bool, value: '{{ hasEndpoints children.service }}' }
            - { path: webPods, type: int, value: '{{ podCount .children.deployment }}' }
            - { path: webReady, type: int, value: '{{ readyPodCount .children.deployment }}' }
            - { path: webNames, value: '{{ podNames .children.deployment }}' }
            - { path: dbPrimary, value: '{{ (podByOrdinal .children.statefulset 0).name }}' }
            - { path: dbReady, type: int, value: '{{ readyPodCount .children.statefulset }}' }
`);

let runtime: KatalogRuntime;

beforeAll(async () => {
  runtime = await startRuntime({ katalog });
});

afterAll(async () => {
  await runtime.stop({ timeoutMs: 5000 });
});

describe('enrich with workloads (kwok)', () => {
  it(
    "writes the Job's pod names and exit code and the Service's endpoint count into status",
    { timeout: 300_000 },
    async () => {
      const ns = env.namespace;
      await crs.create(ns, 'one', {});
      let last: unknown;
      await waitFor(
        'status reflects the enriched pods and endpoints',
        async () => {
          const status = (await crs.get(ns, 'one')).status ?? {};
          last = status;
          return (
            String(status['succeededPods'] ?? '').startsWith('one-job-') &&
            status['endpointCount'] === 2 &&
            status['hasEndpoints'] === true
          );
        },
        240_000,
      ).catch((error: unknown) => {
        throw new Error(`${String(error)}; last seen ${JSON.stringify(last)}`);
      });
      const status = (await crs.get(ns, 'one')).status ?? {};
      expect(status['exitCode']).toBe(0);
      expect(String(status['succeededPods']).split(', ')).toHaveLength(1);
    },
  );

  it(
    "writes a Deployment's and a StatefulSet's pods, selected by their selectors, into status",
    { timeout: 300_000 },
    async () => {
      const ns = env.namespace;
      await crs.create(ns, 'two', {});
      let last: unknown;
      await waitFor(
        'status reflects the workloads’ pods',
        async () => {
          const status = (await crs.get(ns, 'two')).status ?? {};
          last = status;
          return status['webReady'] === 2 && status['dbReady'] === 2;
        },
        240_000,
      ).catch((error: unknown) => {
        throw new Error(`${String(error)}; last seen ${JSON.stringify(last)}`);
      });
      const status = (await crs.get(ns, 'two')).status ?? {};
      expect(status['webPods']).toBe(2);
      expect(String(status['dbPrimary'])).toBe('two-db-0');
      // Only this CR's Deployment pods: the Job's pod and the other CR's pods are not among them.
      const names = String(status['webNames']).split(', ');
      expect(names).toHaveLength(2);
      for (const name of names) expect(name).toMatch(/^two-web-[a-z0-9]+-[a-z0-9]+$/);
      // Every render read the Pod informer's cache: the runtime's client sent no Pod request at all.
      expect(Object.keys(runtime.requestCounts()).filter((key) => / Pod$/.test(key))).toEqual([]);
    },
  );
});
