/**
 * A conditional `enrich` target (docs/reference/katalog.md §3.5, ADR 0090) on the local control
 * plane: `events` is added only while the CR's `spec.debug` is "true". A Warning Event the test
 * records about the ConfigMap child is in the Event cache all along; the status reads it through
 * upstream's `warningCount` note only once the condition holds, and loses it when it stops.
 */
import { CoreV1Api } from '@kubernetes/client-node';
import { afterAll, beforeAll, describe, it } from 'vitest';
import type { KatalogRuntime } from '@orkestra/reconciler';
import { katalogFrom, useRuntimeTest, waitFor } from './runtime-helpers.js';

const { env, group, crs, startRuntime } = useRuntimeTest({ prefix: 'ew', kind: 'Probe', plural: 'probes' });

const katalog = katalogFrom(`apiVersion: orkestra.konductor.io/v1alpha1
kind: Katalog
metadata: {name: enrich-when}
spec:
  crds:
    probe:
      apiTypes: {group: ${group}, version: v1, kind: Probe, plural: probes}
      resync: 10m
      enrich:
        - events:
            when:
              - {field: spec.debug, equals: "true"}
      operatorBox:
        onReconcile:
          configMaps:
            - {name: "{{ metadata.name }}-cfg", data: {mode: "{{ spec.debug }}"}}
        status:
          fields:
            - { path: mode, value: '{{ spec.debug }}' }
            - { path: warningCount, type: int, value: '{{ warningCount .children.configmap }}' }
`);

let runtime: KatalogRuntime;

beforeAll(async () => {
  runtime = await startRuntime({ katalog });
});

afterAll(async () => {
  await runtime.stop({ timeoutMs: 5000 });
});

describe('a conditional enrich target', () => {
  it('adds the child’s Warning events only while the condition holds', { timeout: 120_000 }, async () => {
    const ns = env.namespace;
    await env.kubeConfig.makeApiClient(CoreV1Api).createNamespacedEvent({
      namespace: ns,
      body: {
        metadata: { name: 'one-cfg.warning', namespace: ns },
        involvedObject: { apiVersion: 'v1', kind: 'ConfigMap', name: 'one-cfg', namespace: ns },
        type: 'Warning',
        reason: 'ProbeReason',
        message: 'recorded by the test',
        count: 1,
        source: { component: 'enrich-when-test' },
      },
    });
    let last: unknown;
    const statusIs = async (mode: string, count: number) =>
      waitFor(
        `status mode ${mode}, warningCount ${count}`,
        async () => {
          const status = (await crs.get(ns, 'one')).status ?? {};
          last = status;
          return status['mode'] === mode && status['warningCount'] === count;
        },
        90_000,
      ).catch((error: unknown) => {
        throw new Error(`${String(error)}; last seen ${JSON.stringify(last)}`);
      });
    await crs.create(ns, 'one', { debug: 'false' });
    await statusIs('false', 0);
    await crs.patchSpec(ns, 'one', { debug: 'true' });
    await statusIs('true', 1);
    await crs.patchSpec(ns, 'one', { debug: 'false' });
    await statusIs('false', 0);
  });
});
