/**
 * The `enrich` targets ADR 0087 adds, on a control plane that runs workloads (docs/reference/katalog.md
 * §3.5): the Deployment controller creates the Deployment's ReplicaSet (`replicasets`), kwok makes its
 * pods Ready, the Service selects them (`backingpods`), and every child's controller owner reference
 * names the CR (`owner`); the scheduler places the Pod child on the kwok node (`node`, a
 * cluster-wide Node cache) and the claim names a StorageClass the test creates (`storageclass`, a
 * cluster-wide StorageClass cache), and a Warning Event the test records about the Deployment
 * reaches `_warnings` (`events`, an Event cache listed with `type=Warning`) — all read through upstream's notes from the informers the
 * entry's enrich starts, with no request per render.
 */
import { CoreV1Api, StorageV1Api } from '@kubernetes/client-node';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { KatalogRuntime } from '@orkestra/reconciler';
import { katalogFrom, useRuntimeTest, waitFor } from './runtime-helpers.js';

const { env, group, crs, startRuntime } = useRuntimeTest({
  prefix: 'ec',
  kind: 'Probe',
  plural: 'probes',
  workloads: true,
});

const storageClass = `${group.split('.')[0] ?? 'ec'}-sc`;

const katalog = katalogFrom(`apiVersion: orkestra.konductor.io/v1alpha1
kind: Katalog
metadata: {name: enrich-cached}
spec:
  crds:
    probe:
      apiTypes: {group: ${group}, version: v1, kind: Probe, plural: probes}
      resync: 10m
      enrich: [owner, backingpods, replicasets, node, storageclass, events]
      operatorBox:
        onReconcile:
          deployments:
            - {name: "{{ metadata.name }}-web", image: nginx:1.27, replicas: 2, port: 8080}
          services:
            - {name: "{{ metadata.name }}-svc", port: 80, targetPort: 8080, workload: "{{ metadata.name }}-web"}
          pods:
            - {name: "{{ metadata.name }}-pod", image: busybox:1.36}
          persistentVolumeClaims:
            - {name: "{{ metadata.name }}-data", storage: 1Gi, storageClassName: ${storageClass}}
        status:
          fields:
            - { path: replicaSets, type: int, value: '{{ deploymentReplicaSetCount .children.deployment }}' }
            - { path: replicaSetNames, value: '{{ join (deploymentReplicaSets .children.deployment) "," }}' }
            - { path: backingPods, type: int, value: '{{ backingPodCount .children.service }}' }
            - { path: backingPodNames, value: '{{ backingPodNames .children.service }}' }
            - { path: ownerKind, value: '{{ replicaSetOwnerKind .children.deployment }}' }
            - { path: ownerName, value: '{{ replicaSetOwnerName .children.deployment }}' }
            - { path: podNode, value: '{{ podNodeName .children.pod }}' }
            - { path: firstWarning, value: '{{ firstWarning .children.deployment }}' }
            - { path: warningCount, type: int, value: '{{ warningCount .children.deployment }}' }
            - { path: podZone, value: '{{ podNodeZone .children.pod }}' }
            - { path: scProvisioner, value: '{{ pvcStorageClassProvisioner .children.pvc }}' }
`);

let runtime: KatalogRuntime;

beforeAll(async () => {
  await env.kubeConfig.makeApiClient(StorageV1Api).createStorageClass({
    body: {
      apiVersion: 'storage.k8s.io/v1',
      kind: 'StorageClass',
      metadata: { name: storageClass },
      provisioner: 'example.com/none',
      reclaimPolicy: 'Retain',
    },
  });
  runtime = await startRuntime({ katalog });
});

afterAll(async () => {
  await runtime.stop({ timeoutMs: 5000 });
});

describe('enrich: owner, backingpods, replicasets, node, storageclass, events (kwok)', () => {
  it(
    "writes the Deployment's ReplicaSets, the Service's backing pods, the children's owner, the Pod's node, the claim's StorageClass and the Deployment's Warning events into status",
    { timeout: 300_000 },
    async () => {
      const ns = env.namespace;
      // A Warning and a Normal event about the Deployment the CR is about to get.
      const core = env.kubeConfig.makeApiClient(CoreV1Api);
      for (const [name, type] of [
        ['one-web.warning', 'Warning'],
        ['one-web.normal', 'Normal'],
      ] as const)
        await core.createNamespacedEvent({
          namespace: ns,
          body: {
            metadata: { name, namespace: ns },
            involvedObject: { apiVersion: 'apps/v1', kind: 'Deployment', name: 'one-web', namespace: ns },
            type,
            reason: 'ProbeReason',
            message: `${type} recorded by the test`,
            count: 1,
            source: { component: 'enrich-test' },
          },
        });
      await crs.create(ns, 'one', {});
      let last: unknown;
      await waitFor(
        'status reflects the enriched children',
        async () => {
          const status = (await crs.get(ns, 'one')).status ?? {};
          last = status;
          return (
            status['replicaSets'] === 1 &&
            status['backingPods'] === 2 &&
            status['podNode'] === 'kwok-node-0' &&
            status['scProvisioner'] === 'example.com/none' &&
            status['firstWarning'] === 'Warning recorded by the test'
          );
        },
        240_000,
      ).catch((error: unknown) => {
        throw new Error(`${String(error)}; last seen ${JSON.stringify(last)}`);
      });
      const status = (await crs.get(ns, 'one')).status ?? {};
      expect(String(status['replicaSetNames'])).toMatch(/^one-web-[a-z0-9]+$/);
      const pods = String(status['backingPodNames']).split(', ');
      expect(pods).toHaveLength(2);
      for (const name of pods) expect(name).toMatch(/^one-web-[a-z0-9]+-[a-z0-9]+$/);
      expect(status['ownerKind']).toBe('Probe');
      expect(status['ownerName']).toBe('one');
      expect(status['podZone']).toBe('');
      expect(status['warningCount']).toBe(1);
      // The Normal event is never cached: the Event informer lists with type=Warning.
      const events = runtime.snapshot().caches.filter((c) => /(^|\/)events$/.test(c.resource));
      expect(events).toEqual([{ resource: expect.stringMatching(/events$/) as unknown, objects: 1 }]);
      // Every render read the informer caches: the runtime's client read none of these kinds (the
      // Pod child's own create is the only request for its kind).
      expect(
        Object.keys(runtime.requestCounts()).filter((key) =>
          /^(get|list) (Pod|ReplicaSet|Node|StorageClass|Event)$/.test(key),
        ),
      ).toEqual([]);
    },
  );
});
