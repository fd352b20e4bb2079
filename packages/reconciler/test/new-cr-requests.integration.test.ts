/**
 * What a new CR costs in API requests (docs/reference/runtime.md §20, ADR 0097): with the child
 * informer synced, a child the cache does not hold is created by one create-only server-side
 * apply, without the GET before it (ADR 0032's read is left for the objects that turn out to
 * exist). Counts come from the runtime's own client, which counts every request it sends by verb
 * and kind (`runtime.requestCounts()`, as in runtime-requests.integration.test.ts). The safety
 * half — an unmanaged object of a child's name is never written — is
 * no-adoption.integration.test.ts.
 *
 * The whole budget per new CR whose child is ready on creation (a ConfigMap): one child apply,
 * one finalizer patch (runtime.md §10.1), one status patch carrying the final status
 * (observedGeneration, Ready and Synced True: the first reconcile already knows the child is
 * ready), and one Event — the Ready transition naming the child it created (ADR 0100). A count
 * above that fails here.
 */
import type { KatalogRuntime, RuntimeObserver } from '@orkestra/reconciler';
import { CoreV1Api } from '@kubernetes/client-node';
import { diffCounts } from '@orkestra/registry';
import type { RequestCounts } from '@orkestra/registry';
import { beforeAll, describe, expect, it } from 'vitest';
import { katalogFrom, readConfigMap, syncedOf, useRuntimeTest, waitFor } from './runtime-helpers.js';

const { env, group, crs, startRuntime } = useRuntimeTest({ prefix: 'nc', kind: 'Note', plural: 'notes' });
const COUNT = 10;

const katalog = katalogFrom(`
apiVersion: orkestra.konductor.io/v1alpha1
kind: Katalog
metadata: {name: new-cr-requests}
spec:
  crds:
    note:
      apiTypes: {group: ${group}, version: v1, kind: Note, plural: notes}
      resync: "0"
      workers: 4
      operatorBox:
        onReconcile:
          configMaps:
            - name: "{{ metadata.name }}-config"
              data: {text: "{{ spec.text }}"}
        status:
          fields:
            - {path: phase, value: Written}
`);

let runtime: KatalogRuntime;
let delta: RequestCounts = {};
/** What the runtime's observer saw over the same window: status writes by result, Events by reason. */
const seen = { status: new Map<string, number>(), events: new Map<string, number>(), counting: false };
const bump = (map: Map<string, number>, key: string): void => {
  if (seen.counting) map.set(key, (map.get(key) ?? 0) + 1);
};
const observer: Partial<RuntimeObserver> = {
  statusWrite: (_controller, result) => bump(seen.status, result),
  event: (_controller, type, reason) => bump(seen.events, `${type} ${reason}`),
};
const names = Array.from({ length: COUNT }, (_, i) => `note-${i}`);

/** quiesce waits until the runtime's request counts stop moving for `quietMs` and its queue is empty. */
async function quiesce(quietMs = 1500): Promise<void> {
  const entry = runtime.entries.get('note');
  let last = JSON.stringify(runtime.requestCounts());
  let since = Date.now();
  await waitFor(
    'the runtime to go quiet',
    () => {
      const now = JSON.stringify(runtime.requestCounts());
      if (now !== last || (entry?.dispatcher.inFlight ?? 0) > 0 || (entry?.queue.len() ?? 0) > 0) {
        last = now;
        since = Date.now();
        return false;
      }
      return Date.now() - since >= quietMs;
    },
    60_000,
    100,
  );
}

beforeAll(async () => {
  runtime = await startRuntime({ katalog, observer });
  await waitFor('the runtime to sync', () => runtime.isReady(), 60_000, 100);
  await quiesce();
  const before = runtime.requestCounts();
  seen.counting = true;
  await Promise.all(names.map((name) => crs.create(env.namespace, name, { text: name })));
  await waitFor(
    `${COUNT} CRs Synced`,
    async () => {
      const all = await Promise.all(names.map((name) => crs.get(env.namespace, name)));
      return all.every(
        (cr) => syncedOf(cr)?.status === 'True' && cr.status?.observedGeneration === cr.metadata.generation,
      );
    },
    120_000,
    250,
  );
  await quiesce();
  expect(await runtime.events.flush(10_000)).toBe(true);
  await quiesce();
  seen.counting = false;
  delta = diffCounts(before, runtime.requestCounts());
  console.log(
    `[figures] ${COUNT} new CRs with one ConfigMap child each: runtime requests ${JSON.stringify(delta)}`,
  );
}, 240_000);

describe('a new CR with one child, the child informer synced', () => {
  it('creates the child with one apply and no GET before it', async () => {
    for (const name of names)
      expect((await readConfigMap(env.kubeConfig, env.namespace, `${name}-config`))?.['text']).toBe(name);
    expect(delta['apply ConfigMap']).toBe(COUNT);
    // ADR 0032's read before create, made unnecessary by the synced cache (ADR 0097).
    expect(delta['get ConfigMap'] ?? 0).toBe(0);
  });

  it('costs no request beyond the child apply, the finalizer and status patches and one Event', () => {
    const other = Object.keys(delta).filter(
      (key) => !['apply ConfigMap', 'patch Note', 'create Event', 'patch Event'].includes(key),
    );
    expect(other).toEqual([]);
  });

  it('writes the final status once per new CR: one status patch and one finalizer patch', () => {
    // A later reconcile (a watch event that overtook the write's answer) finds the same status: skipped.
    expect(seen.status.get('written')).toBe(COUNT);
    expect([...seen.status.keys()].filter((result) => result !== 'written' && result !== 'skipped')).toEqual(
      [],
    );
    // patch Note = the finalizer (metadata) + the status subresource, one each per CR.
    expect(delta['patch Note']).toBe(2 * COUNT);
  });

  it('records one Event per new CR: its Ready transition, naming the child it created', async () => {
    expect(delta['create Event']).toBe(COUNT);
    expect(delta['patch Event'] ?? 0).toBe(0);
    expect(Object.fromEntries(seen.events)).toEqual({ 'Normal ReconcileSucceeded': COUNT });
    const events = await env.kubeConfig
      .makeApiClient(CoreV1Api)
      .listNamespacedEvent({ namespace: env.namespace });
    const about = (name: string) => events.items.filter((e) => e.involvedObject.name === name);
    for (const name of names) {
      expect(about(name).map((e) => `${e.reason ?? ''}: ${e.message ?? ''}`)).toEqual([
        `ReconcileSucceeded: Ready; ConfigMap ${env.namespace}/${name}-config (onReconcile.configMaps[0]) was created`,
      ]);
    }
  });
});
