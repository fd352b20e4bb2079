/**
 * Declared Events and cleanup on the local control plane (docs/reference/katalog.md §20.5–20.6): a
 * CR's reconciles record the entry's declared Events (templated, on success); once its status
 * reaches a terminal phase, `cleanup-pending-since` is recorded and the CR is deleted `deleteAfter`
 * later by a timed re-queue (resync is 1 h, so nothing else reconciles it), with a `CleanedUp` Event.
 */
import { CoreV1Api } from '@kubernetes/client-node';
import { beforeAll, describe, expect, it } from 'vitest';
import { OrkestraAnnotation } from '@orkestra/types';
import { katalogFrom, useRuntimeTest, waitFor } from './runtime-helpers.js';

const { env, group, crs, startRuntime } = useRuntimeTest({ prefix: 'oc', kind: 'Task', plural: 'tasks' });
let core: CoreV1Api;

/** eventsFor lists `reason: message` of the Events about one object. */
async function eventsFor(name: string): Promise<string[]> {
  const list = await core.listNamespacedEvent({ namespace: env.namespace });
  return list.items
    .filter((e) => e.involvedObject.name === name)
    .map((e) => `${e.type ?? ''} ${e.reason ?? ''}: ${e.message ?? ''}`);
}

beforeAll(async () => {
  core = env.kubeConfig.makeApiClient(CoreV1Api);
  // Upstream's G3 layout: operatorBox.emit.events and operatorBox.runtime.cleanup.
  await startRuntime({
    katalog: katalogFrom(`apiVersion: orkestra.orkspace.io/v1
kind: Katalog
metadata: {name: outcomes}
spec:
  crds:
    task:
      apiTypes: {group: ${group}, version: v1, kind: Task, plural: tasks}
      resync: 1h
      operatorBox:
        reconcile:
          onReconcile:
            configMaps:
              - name: "{{ .metadata.name }}-out"
                data: {phase: "{{ .spec.phase }}"}
        runtime:
          cleanup:
            or:
              - field: status.phase
                equals: Completed
              - field: status.phase
                equals: Failed
            deleteAfter: 3s
        emit:
          status:
            fields:
              - path: phase
                value: "{{ .spec.phase }}"
          events:
            synced:
              type: Normal
              reason: Synced
              message: "{{ .name }} is {{ .spec.phase }}"
              on: [success]
            failed:
              type: Warning
              reason: Failed
              message: "{{ .lastError }}"
              on: [failure]
`),
  });
});

describe('declared outcomes on a control plane', () => {
  it('records the declared Event, then deletes the CR deleteAfter after it reached a terminal phase', async () => {
    await crs.create(env.namespace, 'job1', { phase: 'Running' });
    await waitFor('the Synced Event', async () =>
      (await eventsFor('job1')).includes('Normal Synced: job1 is Running'),
    );
    expect((await eventsFor('job1')).some((e) => e.includes('Failed'))).toBe(false);
    await crs.patchSpec(env.namespace, 'job1', { phase: 'Completed' });
    let since: string | undefined;
    await waitFor('cleanup-pending-since', async () => {
      since = (await crs.get(env.namespace, 'job1'))?.metadata.annotations?.[
        OrkestraAnnotation.CleanupPendingSince
      ];
      return since != null;
    });
    expect(await crs.exists(env.namespace, 'job1')).toBe(true);
    let deletedAt: string | undefined;
    await waitFor('the CR deleted', async () => {
      // Gone between two polls (no finalizer holds it): `get` answers 404, which it throws.
      if (!(await crs.exists(env.namespace, 'job1'))) return true;
      const cr = await crs.get(env.namespace, 'job1');
      deletedAt = cr?.metadata.deletionTimestamp as string | undefined;
      return cr == null || deletedAt != null;
    });
    // The delete was issued deleteAfter (3 s) after the recorded time (both of second precision).
    const waited = Date.parse(deletedAt ?? new Date().toISOString()) - Date.parse(since ?? '');
    expect(waited).toBeGreaterThanOrEqual(2_000);
    expect(waited).toBeLessThanOrEqual(4_000);
    await waitFor(
      'the CR gone (its deletion path ran)',
      async () => !(await crs.exists(env.namespace, 'job1')),
    );
    await waitFor('the CleanedUp Event', async () =>
      (await eventsFor('job1')).includes('Normal CleanedUp: deleted: its cleanup conditions held after 3s'),
    );
  });

  it('does not delete a CR that leaves the terminal phase before it falls due', async () => {
    await crs.create(env.namespace, 'job2', { phase: 'Failed' });
    await waitFor('cleanup-pending-since', async () => {
      const cr = await crs.get(env.namespace, 'job2');
      return cr?.metadata.annotations?.[OrkestraAnnotation.CleanupPendingSince] != null;
    });
    await crs.patchSpec(env.namespace, 'job2', { phase: 'Running' });
    await waitFor('the record removed', async () => {
      const cr = await crs.get(env.namespace, 'job2');
      return cr != null && cr.metadata.annotations?.[OrkestraAnnotation.CleanupPendingSince] == null;
    });
    await new Promise((resolve) => setTimeout(resolve, 4_000));
    expect(await crs.exists(env.namespace, 'job2')).toBe(true);
  });
});
