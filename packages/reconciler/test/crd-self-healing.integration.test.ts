/**
 * CRD self-healing on the local control plane (docs/reference/runtime.md §2.9): the entry's CRD is
 * deleted while the runtime runs — its CRs are finalized while the CRD terminates, then the entry
 * is deactivated (informer suspended, no list retries, an `EntryDeactivated` Event and a log line);
 * the CRD is created again — the entry is reactivated and reconciles a new CR.
 */
import { ApiextensionsV1Api, CoreV1Api } from '@kubernetes/client-node';
import { beforeAll, describe, expect, it } from 'vitest';
import type { KatalogRuntime } from '@orkestra/reconciler';
import type { Logger } from '@orkestra/types';
import { installCrd, katalogFrom, readConfigMap, useRuntimeTest, waitFor } from './runtime-helpers.js';

const { env, group, api, crs, startRuntime, onCleanup } = useRuntimeTest({
  prefix: 'sh',
  kind: 'Gadget',
  plural: 'gadgets',
});
let runtime: KatalogRuntime;
const lines: string[] = [];
const logger: Logger = {
  debug: () => {},
  info: (_f, message) => void lines.push(`info ${message}`),
  warn: (_f, message) => void lines.push(`warn ${message}`),
  error: (_f, message) => void lines.push(`error ${message}`),
  child: () => logger,
};

async function eventReasons(): Promise<string[]> {
  const core = env.kubeConfig.makeApiClient(CoreV1Api);
  const list = await core.listNamespacedEvent({ namespace: 'default' });
  return list.items.filter((e) => e.involvedObject.name === `gadgets.${group}`).map((e) => e.reason ?? '');
}

beforeAll(async () => {
  runtime = await startRuntime({
    logger,
    katalog: katalogFrom(`apiVersion: orkestra.konductor.io/v1alpha1
kind: Katalog
metadata: {name: selfheal}
spec:
  crds:
    gadget:
      apiTypes: {group: ${group}, version: v1, kind: Gadget, plural: gadgets}
      operatorBox:
        onReconcile:
          configMaps:
            - name: "{{ metadata.name }}-cfg"
              data: {v: "{{ spec.v }}"}
`),
  });
});

describe('CRD self-healing on a control plane', () => {
  it('deactivates the entry when its CRD is deleted and reactivates it when the CRD is back', async () => {
    const controller = runtime.entries.get('gadget')?.controller;
    if (controller == null) throw new Error('no entry');
    await crs.create(env.namespace, 'a', { v: '1' });
    await waitFor(
      'a-cfg',
      async () => (await readConfigMap(env.kubeConfig, env.namespace, 'a-cfg'))?.['v'] === '1',
    );

    const ext = env.kubeConfig.makeApiClient(ApiextensionsV1Api);
    await ext.deleteCustomResourceDefinition({ name: `gadgets.${group}` });
    // The API server deletes the CRs first (its finalizer polls every 5 s for up to a minute, then
    // retries), so under load this wait is long; on a timeout the last error says what was pending.
    await waitFor(
      'the entry deactivated',
      async () => {
        if (controller.stats().deactivated) return true;
        const crd = await ext
          .readCustomResourceDefinition({ name: `gadgets.${group}` })
          .catch(() => undefined);
        const left = await crs.get(env.namespace, 'a').catch(() => undefined);
        throw new Error(
          crd == null
            ? `CRD gone, entry still active (CR a: ${left == null ? 'gone' : JSON.stringify(left.metadata)})`
            : `CRD still there: ${JSON.stringify(crd.status?.conditions ?? [])}; CR a: ${left == null ? 'gone' : JSON.stringify(left.metadata)}`,
        );
      },
      150_000,
      500,
    );
    // The CR was finalized while its CRD terminated (the entry stayed active until the CRD was gone).
    expect(controller.cache.size).toBe(0);
    expect(controller.informer.suspended).toBe(true);
    expect(lines).toContain('warn CRD deleted; entry deactivated until it is created again');
    await waitFor('the EntryDeactivated Event', async () =>
      (await eventReasons()).includes('EntryDeactivated'),
    );
    const lists = controller.informer.stats().listRequests;
    const warnings = lines.filter((l) => l.startsWith('warn')).length;
    await new Promise((resolve) => setTimeout(resolve, 3_000));
    expect(controller.informer.stats().listRequests).toBe(lists); // no retry loop against a missing resource
    expect(lines.filter((l) => l.startsWith('warn')).length).toBe(warnings);

    onCleanup(await installCrd(env.kubeConfig, api));
    await waitFor('the entry reactivated', async () => !controller.stats().deactivated);
    expect(lines).toContain('info CRD created again; entry reactivated');
    await crs.create(env.namespace, 'b', { v: '2' });
    await waitFor(
      'b-cfg',
      async () => (await readConfigMap(env.kubeConfig, env.namespace, 'b-cfg'))?.['v'] === '2',
    );
    await waitFor('the EntryReactivated Event', async () =>
      (await eventReasons()).includes('EntryReactivated'),
    );
  }, 240_000);
});
