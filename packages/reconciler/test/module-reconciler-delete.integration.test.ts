/**
 * A module reconciler's `onDelete` step (docs/reference/katalog.md §15.3, ADR 0109) on the local
 * control plane: it runs on the deletion path before the finalizer is released and before the
 * reconciler's children are deleted; while it fails the CR keeps its finalizer and says why
 * (Ready=False `RemoteReconcileFailed`), and once it returns the CR goes.
 */
import { CoreV1Api } from '@kubernetes/client-node';
import { RECONCILER_MODULE_MARK } from '@orkestra/types';
import type { LoadedModuleExport } from '@orkestra/types';
import { beforeAll, describe, expect, it } from 'vitest';
import { moduleHookKey } from '@orkestra/reconciler';
import { katalogFrom, readyOf, useRuntimeTest, waitFor, waitForSynced } from './runtime-helpers.js';
import type { CrObject } from './runtime-helpers.js';

const { env, group, crs, startRuntime } = useRuntimeTest({ prefix: 'mrdel', kind: 'Site', plural: 'sites' });

/** What the reconciler's deletion step saw, in order; while `busy` it fails (counted in `refused`). */
const released: { key: string; zone: unknown; pageThere: boolean }[] = [];
let busy = false;
let refused = 0;

async function pageExists(name: string): Promise<boolean> {
  try {
    await env.kubeConfig.makeApiClient(CoreV1Api).readNamespacedConfigMap({ name, namespace: env.namespace });
    return true;
  } catch {
    return false;
  }
}

const reconciler = {
  orkestra: RECONCILER_MODULE_MARK,
  run: ({ cr }: { cr: { metadata: { name: string } } }) => ({
    resources: [{ type: 'configmap', fields: { name: `${cr.metadata.name}-page`, data: { up: 'yes' } } }],
  }),
  onDelete: async ({
    key,
    cr,
    args,
  }: {
    key: string;
    cr: { metadata: { name: string } };
    args: Record<string, unknown>;
  }) => {
    if (busy) {
      refused++;
      throw new Error(`cdn purge of ${cr.metadata.name} is busy`);
    }
    released.push({ key, zone: args['zone'], pageThere: await pageExists(`${cr.metadata.name}-page`) });
  },
} as unknown as LoadedModuleExport;

beforeAll(async () => {
  await startRuntime({
    katalog: katalogFrom(`apiVersion: orkestra.konductor.io/v1alpha1
kind: Katalog
metadata: {name: module-reconciler-delete}
spec:
  crds:
    site:
      apiTypes: {group: ${group}, version: v1, kind: Site, plural: sites}
      resync: "0"
      operatorBox:
        remote:
          module: "@acme/site-reconciler"
          function: reconcile
          args: {zone: "{{ metadata.name }}.example.com"}
          managedResources: [{group: "", plural: configmaps}]
`),
    moduleHooks: new Map([[moduleHookKey('@acme/site-reconciler', 'reconcile'), reconciler]]),
  });
});

describe('a module reconciler’s onDelete', () => {
  it('keeps the finalizer with RemoteReconcileFailed while it fails, then runs before the children go and releases the CR', async () => {
    const ns = env.namespace;
    await crs.create(ns, 'shop', {});
    await waitForSynced(crs, ns, 'shop');
    await waitFor('the page', () => pageExists('shop-page'));
    busy = true;
    await crs.remove(ns, 'shop');
    let held: CrObject | undefined;
    await waitFor('the failed step on the CR', async () => {
      const cr = await crs.get(ns, 'shop');
      if (readyOf(cr)?.reason !== 'RemoteReconcileFailed') return false;
      held = cr;
      return true;
    });
    expect(readyOf(held as CrObject)?.message).toContain(
      'remote reconciler module @acme/site-reconciler#reconcile onDelete failed: cdn purge of shop is busy',
    );
    expect(held?.metadata.deletionTimestamp).toBeDefined();
    expect(held?.metadata.finalizers).toContain('orkestra.konductor.io/finalizer');
    // Still there while the step fails; it goes once the step returns.
    expect(await crs.exists(ns, 'shop')).toBe(true);
    busy = false;
    await waitFor('the CR gone', async () => !(await crs.exists(ns, 'shop')));
    expect(refused).toBeGreaterThan(0);
    // Called once it could succeed: its args rendered on the CR, the reconciler's child still there.
    expect(released).toEqual([{ key: `${ns}/shop`, zone: 'shop.example.com', pageThere: true }]);
  });
});
