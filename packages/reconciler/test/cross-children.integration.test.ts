/**
 * A cross read of a CR this operator serves, with `protocol: cr`, answers `children.<kind>.ready`
 * from the child caches (ADR 0101). A change of one of the target's children's readiness re-queues
 * the reader, not only a change of the target CR itself (ADR 0108): here the target's own
 * reconcile after its Job completes is held by a slow external call, so its status does not change
 * (which would re-queue its readers too) until long after the reader must have seen the Job ready.
 */
import { createServer } from 'node:http';
import type { Server, ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { CoreV1Api } from '@kubernetes/client-node';
import { useControlPlane } from '@orkestra/testenv/vitest';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { LOOPBACK_CIDRS, createKatalogRuntime } from '@orkestra/reconciler';
import type { KatalogRuntime } from '@orkestra/reconciler';
import {
  completeJob,
  crClient,
  installCrd,
  katalogFrom,
  quietLogger,
  uniqueGroup,
  waitFor,
} from './runtime-helpers.js';
import type { CrClient } from './runtime-helpers.js';

const env = useControlPlane();
const group = uniqueGroup('xchild');
const apis = {
  batch: { group, version: 'v1', kind: 'Batch', plural: 'batches' },
  watcher: { group, version: 'v1', kind: 'Watcher', plural: 'watchers' },
};

/** The batch's ledger service: answers until `hold` is set, then holds every call until the file ends. */
let hold = false;
const held: ServerResponse[] = [];
const ledger: Server = createServer((_req, res) => {
  if (hold) {
    held.push(res);
    return;
  }
  res.writeHead(200, { 'content-type': 'application/json' }).end('{"open": true}');
});
await new Promise<void>((resolve) => ledger.listen(0, '127.0.0.1', resolve));
const ledgerUrl = `http://127.0.0.1:${(ledger.address() as AddressInfo).port}/ledger`;

const katalog = katalogFrom(`
apiVersion: orkestra.konductor.io/v1alpha1
kind: Katalog
metadata: {name: cross-children}
spec:
  crds:
    batch:
      apiTypes: {group: ${group}, version: v1, kind: Batch, plural: batches}
      resync: "0"
      operatorBox:
        external:
          - {name: ledger, url: "${ledgerUrl}", timeout: 120s}
        onReconcile:
          jobs:
            - {name: "{{ metadata.name }}-run", image: "busybox:1.36"}
    watcher:
      apiTypes: {group: ${group}, version: v1, kind: Watcher, plural: watchers}
      resync: "0"
      operatorBox:
        cross:
          # upstream's form of a peer read; the kind is this operator's, so it is read in process
          - crd: batch
            endpoint: http://batch-operator.example:8082
            protocol: cr
            selector: {name: "{{ spec.batch }}"}
            as: batch
        onReconcile:
          configMaps:
            - name: "{{ metadata.name }}-seen"
              data:
                found: "{{ cross.batch.found }}"
                ready: "{{ cross.batch.children.job.ready }}"
`);

let runtime: KatalogRuntime;
const clients = {} as Record<keyof typeof apis, CrClient>;
const cleanups: (() => Promise<void>)[] = [];

beforeAll(async () => {
  for (const [name, api] of Object.entries(apis)) {
    cleanups.push(await installCrd(env.kubeConfig, api));
    clients[name as keyof typeof apis] = crClient(env.kubeConfig, api);
  }
  runtime = createKatalogRuntime({
    kubeConfig: env.kubeConfig,
    katalog,
    logger: quietLogger(),
    options: { allowPrivateAddresses: LOOPBACK_CIDRS },
  });
  await runtime.start();
});

afterAll(async () => {
  for (const res of held) res.writeHead(503).end();
  await runtime.stop({ timeoutMs: 5000 });
  ledger.closeAllConnections();
  await new Promise((resolve) => ledger.close(resolve));
  for (const cleanup of cleanups.reverse()) await cleanup();
});

async function seen(name: string): Promise<Record<string, string> | undefined> {
  try {
    return (
      (
        await env.kubeConfig
          .makeApiClient(CoreV1Api)
          .readNamespacedConfigMap({ namespace: env.namespace, name })
      ).data ?? {}
    );
  } catch {
    return undefined;
  }
}

describe('cross reads of children readiness', () => {
  it('re-queues a reader of children.<kind>.ready when a child of the target becomes ready', async () => {
    const ns = env.namespace;
    await clients.batch.create(ns, 'nightly', {});
    await clients.watcher.create(ns, 'w', { batch: 'nightly' });
    await waitFor('the reader sees the job not ready', async () => {
      const data = await seen('w-seen');
      return data?.['found'] === 'true' && data['ready'] === 'false';
    });
    // From now on the batch's reconcile waits on its ledger: its status stays as it is.
    hold = true;
    const before = await clients.batch.get(ns, 'nightly');
    await completeJob(env.kubeConfig, ns, 'nightly-run');
    await waitFor(
      'the reader sees the job ready',
      async () => (await seen('w-seen'))?.['ready'] === 'true',
      20_000,
    );
    // The batch itself did not change: its reconcile is still waiting on the ledger.
    await waitFor('the batch reconcile waits on its ledger', () => held.length > 0, 20_000);
    expect((await clients.batch.get(ns, 'nightly')).metadata.resourceVersion).toBe(
      before.metadata.resourceVersion,
    );
  });
});
