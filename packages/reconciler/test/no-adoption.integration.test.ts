/**
 * Children are never adopted (ADR 0032, docs/reference/runtime.md §9.3): an unmanaged Secret that
 * already has a child's name is left untouched, byte for byte, and the CR shows
 * `Ready=False, ChildConflict` naming it; the CR's other children are still written.
 */
import { CoreV1Api } from '@kubernetes/client-node';
import type { KatalogRuntime } from '@orkestra/reconciler';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { katalogFrom, readyOf, useRuntimeTest, waitFor } from './runtime-helpers.js';

const { env, group, crs, startRuntime } = useRuntimeTest({ prefix: 'na', kind: 'Vault', plural: 'vaults' });

const katalog = katalogFrom(`apiVersion: orkestra.konductor.io/v1alpha1
kind: Katalog
metadata: {name: no-adoption}
spec:
  crds:
    vault:
      apiTypes: {group: ${group}, version: v1, kind: Vault, plural: vaults}
      operatorBox:
        onReconcile:
          configMaps:
            - {name: "{{ metadata.name }}-config", data: {a: "1"}}
          secrets:
            - {name: "{{ metadata.name }}-db", data: {password: from-the-katalog}}
`);

let runtime: KatalogRuntime;

beforeAll(async () => {
  runtime = await startRuntime({ katalog });
});

afterAll(async () => {
  await runtime.stop({ timeoutMs: 5000 });
});

describe('an unmanaged object with a child name', () => {
  it('is left untouched and the CR shows ChildConflict naming it', async () => {
    const core = env.kubeConfig.makeApiClient(CoreV1Api);
    const namespace = env.namespace;
    const victim = await core.createNamespacedSecret({
      namespace,
      body: {
        metadata: { name: 'payments-db', namespace, labels: { team: 'payments' } },
        stringData: { password: 'the-real-one' },
      },
    });
    await crs.create(namespace, 'payments', {});
    await waitFor(
      'the CR to report ChildConflict',
      async () => readyOf(await crs.get(namespace, 'payments'))?.reason === 'ChildConflict',
      30_000,
      200,
    );
    const ready = readyOf(await crs.get(namespace, 'payments'));
    expect(ready?.status).toBe('False');
    expect(ready?.message).toContain('payments-db');
    expect(ready?.message).toContain('not managed by Orkestra');
    const after = await core.readNamespacedSecret({ name: 'payments-db', namespace });
    expect(after.metadata?.resourceVersion).toBe(victim.metadata?.resourceVersion);
    expect(after.metadata?.labels).toEqual({ team: 'payments' });
    expect(Buffer.from(after.data?.['password'] ?? '', 'base64').toString()).toBe('the-real-one');
    expect((after.metadata?.managedFields ?? []).map((f) => f.manager)).not.toContain('orkestra');
    // Deleting the CR leaves the unmanaged Secret in place.
    await crs.remove(namespace, 'payments');
    await waitFor('the CR to be gone', async () => !(await crs.exists(namespace, 'payments')), 30_000, 200);
    const still = await core.readNamespacedSecret({ name: 'payments-db', namespace });
    expect(still.metadata?.uid).toBe(victim.metadata?.uid);
  });
});
