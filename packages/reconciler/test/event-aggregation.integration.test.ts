/**
 * Event aggregation on a real API server (docs/reference/runtime.md §12, ADR 0042): identical Events
 * about one CR become one Event whose `count` grows, written as one POST and then one PATCH per
 * repeat (fewer when repeats arrive while a write is queued), and one object's token bucket (25
 * writes) caps the requests. Requests are counted where `rest_client_requests_total` is fed: the
 * runtime observer's `restRequest`, by HTTP method. The runtime is idle meanwhile (resync off, the
 * CR converged), so every request counted is an Event write.
 */
import { CoreV1Api } from '@kubernetes/client-node';
import type { CoreV1Event } from '@kubernetes/client-node';
import { beforeAll, describe, expect, it } from 'vitest';
import type { KatalogRuntime } from '@orkestra/reconciler';
import { katalogFrom, useRuntimeTest, waitForSynced } from './runtime-helpers.js';

const { env, group, crs, startRuntime } = useRuntimeTest({ prefix: 'evagg', kind: 'Box', plural: 'boxes' });

const katalog = katalogFrom(`
apiVersion: orkestra.konductor.io/v1alpha1
kind: Katalog
metadata: {name: event-aggregation-test}
spec:
  crds:
    box:
      apiTypes: {group: ${group}, version: v1, kind: Box, plural: boxes}
      resync: "0"
      operatorBox:
        onReconcile:
          configMaps:
            - name: "{{ metadata.name }}-config"
              data: {size: "{{ spec.size }}"}
`);

let runtime: KatalogRuntime;
/** Requests by HTTP method, as `rest_client_requests_total{method}` counts them. */
const requests = new Map<string, number>();
let box: { apiVersion: string; kind: string; metadata: { name: string; namespace: string; uid: string } };

function requestsSince(before: ReadonlyMap<string, number>): Record<string, number> {
  const delta: Record<string, number> = {};
  for (const [method, n] of requests) {
    const d = n - (before.get(method) ?? 0);
    if (d > 0) delta[method] = d;
  }
  return delta;
}

async function eventsFor(reason: string): Promise<CoreV1Event[]> {
  const core = env.kubeConfig.makeApiClient(CoreV1Api);
  const list = await core.listNamespacedEvent({
    namespace: env.namespace,
    fieldSelector: `involvedObject.uid=${box.metadata.uid},reason=${reason}`,
  });
  return list.items;
}

beforeAll(async () => {
  runtime = await startRuntime({
    katalog,
    observer: {
      restRequest: (method) => requests.set(method, (requests.get(method) ?? 0) + 1),
    },
  });
  const created = await crs.create(env.namespace, 'alpha', { size: 'm' });
  await waitForSynced(crs, env.namespace, 'alpha');
  box = {
    apiVersion: `${group}/v1`,
    kind: 'Box',
    metadata: { name: 'alpha', namespace: env.namespace, uid: created.metadata?.uid ?? '' },
  };
  await runtime.events.flush(10_000);
}, 120_000);

describe('Event aggregation (ADR 0042)', () => {
  it('20 identical failures, each written before the next: 1 Event with count 20, 1 POST + 19 PATCH', async () => {
    const before = new Map(requests);
    for (let i = 0; i < 20; i++) {
      expect(runtime.events.warning(box, 'ApplyFailed', 'the API server refused the ConfigMap')).toBe(true);
      expect(await runtime.events.flush(10_000)).toBe(true);
    }
    const events = await eventsFor('ApplyFailed');
    expect(events).toHaveLength(1);
    expect(events[0]?.count).toBe(20);
    expect(requestsSince(before)).toEqual({ POST: 1, PATCH: 19 });
  });

  it('20 identical failures faster than the writes: 1 Event with count 20, 1 POST', async () => {
    const before = new Map(requests);
    for (let i = 0; i < 20; i++) runtime.events.warning(box, 'HookFailed', 'hook exited 1');
    expect(await runtime.events.flush(10_000)).toBe(true);
    const events = await eventsFor('HookFailed');
    expect(events).toHaveLength(1);
    expect(events[0]?.count).toBe(20);
    expect(requestsSince(before)).toEqual({ POST: 1 });
  });

  it("caps one object's writes at its token bucket (25): the rest wait for a token", async () => {
    // 25 tokens: the CR's one Event (ReconcileSucceeded naming the ConfigMap it created, ADR 0100),
    // then 20 + 1 writes above; 3 left.
    const before = new Map(requests);
    for (let i = 0; i < 10; i++) {
      runtime.events.warning(box, 'ApplyFailed', 'the API server refused the ConfigMap');
      await runtime.events.flush(10_000);
    }
    const patches = requestsSince(before)['PATCH'] ?? 0;
    expect(patches).toBe(3);
    const events = await eventsFor('ApplyFailed');
    expect(events).toHaveLength(1);
    expect(events[0]?.count).toBe(20 + patches);
    // A new Event about the exhausted object is dropped, not written.
    const throttled = runtime.events.stats.throttled;
    expect(runtime.events.warning(box, 'Other', 'x')).toBe(false);
    expect(runtime.events.stats.throttled).toBe(throttled + 1);
    expect(requestsSince(before)).toEqual({ PATCH: patches });
  });
});
