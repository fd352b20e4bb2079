/**
 * A watch item's enqueueGate on the local control plane (docs/reference/katalog.md §3.2, ADR 0072):
 * a change of the watched Secret re-queues the CRs that copy it only when the gate passes for the
 * Secret itself; a held change re-queues nothing, so the copy keeps its old value until a change
 * the gate lets through.
 */
import { CoreV1Api } from '@kubernetes/client-node';
import { beforeAll, describe, expect, it } from 'vitest';
import { katalogFrom, sleep, useRuntimeTest, waitFor } from './runtime-helpers.js';

const { env, group, crs, startRuntime } = useRuntimeTest({
  prefix: 'wg',
  kind: 'Gadget',
  plural: 'gadgets',
});
let core: CoreV1Api;

async function copied(): Promise<string | undefined> {
  try {
    const secret = await core.readNamespacedSecret({ namespace: env.namespace, name: 'one-copy' });
    const value = secret.data?.['password'];
    return value == null ? undefined : Buffer.from(value, 'base64').toString('utf8');
  } catch {
    return undefined;
  }
}

async function writeSource(password: string, sync: string): Promise<void> {
  await core.replaceNamespacedSecret({
    namespace: env.namespace,
    name: 'src',
    body: { metadata: { name: 'src', labels: { sync } }, stringData: { password } },
  });
}

beforeAll(async () => {
  core = env.kubeConfig.makeApiClient(CoreV1Api);
  await core.createNamespacedSecret({
    namespace: env.namespace,
    body: { metadata: { name: 'src', labels: { sync: 'no' } }, stringData: { password: 'v1' } },
  });
  await startRuntime({
    katalog: katalogFrom(`apiVersion: orkestra.konductor.io/v1alpha1
kind: Katalog
metadata: {name: watch-gate}
spec:
  crds:
    gadget:
      apiTypes: {group: ${group}, version: v1, kind: Gadget, plural: gadgets}
      resync: 1h
      watch:
        - apiVersion: v1
          kind: Secret
          name: src
          enqueueGate:
            when:
              - field: metadata.labels.sync
                equals: "yes"
      operatorBox:
        onReconcile:
          secrets:
            - name: "{{ metadata.name }}-copy"
              copyFrom: {name: "{{ spec.from }}"}
`),
  });
});

describe('watch[].enqueueGate on a control plane', () => {
  it('re-queues the CR for a change of the watched Secret only when the gate passes for the Secret', async () => {
    await crs.create(env.namespace, 'one', { from: 'src' });
    await waitFor('the first copy', async () => (await copied()) === 'v1');

    await writeSource('v2', 'no'); // held by the gate: nothing re-queued
    await sleep(2000);
    expect(await copied()).toBe('v1');

    await writeSource('v3', 'yes'); // passes: the CR is re-queued and copies the new value
    await waitFor('the gated-through copy', async () => (await copied()) === 'v3');
  });
});
