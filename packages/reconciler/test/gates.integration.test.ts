/**
 * Pre-reconcile gates and granted Secret copies on the local control plane (docs/reference/katalog.md
 * §20.3 and §7.2, ADR 0047 and 0048): a `reconcileGate` holds a CR (nothing written but its Gated
 * condition) until a field of its spec changes; a copy from a namespace the CR names waits with
 * CopyNotGranted until the source Secret grants it, then copies.
 */
import { randomBytes } from 'node:crypto';
import { CoreV1Api } from '@kubernetes/client-node';
import { beforeAll, describe, expect, it } from 'vitest';
import { OrkestraAnnotation } from '@orkestra/types';
import {
  createNamespace,
  katalogFrom,
  readyOf,
  sleep,
  syncedOf,
  useRuntimeTest,
  waitFor,
} from './runtime-helpers.js';

const { env, group, crs, startRuntime, onCleanup } = useRuntimeTest({
  prefix: 'gt',
  kind: 'Gadget',
  plural: 'gadgets',
});
const source = `gt-src-${randomBytes(3).toString('hex')}`;
let core: CoreV1Api;

const conditionOf = (cr: { status?: unknown } | undefined, type: string) =>
  (
    (
      cr?.status as
        { conditions?: { type: string; status: string; reason: string; message: string }[] } | undefined
    )?.conditions ?? []
  ).find((c) => c.type === type);

async function exists(read: () => Promise<unknown>): Promise<boolean> {
  try {
    await read();
    return true;
  } catch {
    return false;
  }
}

beforeAll(async () => {
  core = env.kubeConfig.makeApiClient(CoreV1Api);
  onCleanup(await createNamespace(env.kubeConfig, source));
  await core.createNamespacedSecret({
    namespace: source,
    body: { metadata: { name: 'db' }, stringData: { password: 'from-the-source' } },
  });
  await startRuntime({
    katalog: katalogFrom(`apiVersion: orkestra.konductor.io/v1alpha1
kind: Katalog
metadata: {name: gates}
spec:
  crds:
    gadget:
      apiTypes: {group: ${group}, version: v1, kind: Gadget, plural: gadgets}
      resync: 1h
      preReconcile:
        sentinels: [generationChanged]
        reconcileGate:
          when:
            - field: spec.enabled
              equals: "true"
      operatorBox:
        onReconcile:
          configMaps:
            - name: "{{ metadata.name }}-cfg"
              data: {value: "{{ spec.value }}"}
          secrets:
            - name: "{{ metadata.name }}-copy"
              when: [{field: spec.from, exists: true}]
              copyFrom: {name: db, namespace: "{{ spec.from }}"}
`),
  });
});

describe('preReconcile.reconcileGate on a control plane', () => {
  it('holds a CR, writing only its Gated condition, until spec.enabled changes', async () => {
    await crs.create(env.namespace, 'held', { enabled: 'false', value: 'a' });
    await waitFor(
      'Gated=True',
      async () => conditionOf(await crs.get(env.namespace, 'held'), 'Gated')?.status === 'True',
    );
    await sleep(1500);
    const held = await crs.get(env.namespace, 'held');
    expect(conditionOf(held, 'Gated')).toMatchObject({
      reason: 'ReconcileGated',
      message: expect.stringMatching(/^reconcileGate: when\[0\]/),
    });
    expect(syncedOf(held ?? ({} as never))).toBeUndefined(); // never reconciled: no Synced, no finalizer
    expect(held?.metadata.finalizers ?? []).toEqual([]);
    expect(
      await exists(() => core.readNamespacedConfigMap({ namespace: env.namespace, name: 'held-cfg' })),
    ).toBe(false);
    await crs.patchSpec(env.namespace, 'held', { enabled: 'true' });
    await waitFor('held-cfg', () =>
      exists(() => core.readNamespacedConfigMap({ namespace: env.namespace, name: 'held-cfg' })),
    );
    await waitFor(
      'Gated removed',
      async () => conditionOf(await crs.get(env.namespace, 'held'), 'Gated') == null,
    );
  });
});

describe('a Secret copied from a namespace the CR names', () => {
  it('waits with CopyNotGranted until the source grants the CR namespace, then copies', async () => {
    await crs.create(env.namespace, 'copier', { enabled: 'true', value: 'b', from: source });
    await waitFor('CopyNotGranted', async () => {
      const cr = await crs.get(env.namespace, 'copier');
      return cr != null && readyOf(cr)?.reason === 'CopyNotGranted';
    });
    const cr = await crs.get(env.namespace, 'copier');
    expect(readyOf(cr ?? ({} as never))?.message).toContain(
      `${OrkestraAnnotation.CopyTo}: "${env.namespace}"`,
    );
    const read = () => core.readNamespacedSecret({ namespace: env.namespace, name: 'copier-copy' });
    expect(await exists(read)).toBe(false);
    const db = await core.readNamespacedSecret({ namespace: source, name: 'db' });
    db.metadata = { ...db.metadata, annotations: { [OrkestraAnnotation.CopyTo]: `other,${env.namespace}` } };
    await core.replaceNamespacedSecret({ namespace: source, name: 'db', body: db });
    await waitFor('copier-copy', () => exists(read), 20_000);
    const copy = await read();
    expect(Buffer.from(copy.data?.['password'] ?? '', 'base64').toString()).toBe('from-the-source');
  });
});
