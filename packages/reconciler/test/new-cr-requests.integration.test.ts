/**
 * What a new CR costs in API requests (docs/reference/runtime.md §20, ADR 0097): with the child
 * informer synced, a child the cache does not hold is created by one create-only server-side
 * apply, without the GET before it (ADR 0032's read is left for the objects that turn out to
 * exist). Counts come from the runtime's own client, which counts every request it sends by verb
 * and kind (`runtime.requestCounts()`, as in runtime-requests.integration.test.ts). The safety
 * half — an unmanaged object of a child's name is never written — is
 * no-adoption.integration.test.ts.
 */
import type { KatalogRuntime } from '@orkestra/reconciler';
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
  runtime = await startRuntime({ katalog });
  await waitFor('the runtime to sync', () => runtime.isReady(), 60_000, 100);
  await quiesce();
  const before = runtime.requestCounts();
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

  it('costs no request beyond the child apply, the status patch and Events', () => {
    const other = Object.keys(delta).filter(
      (key) => !['apply ConfigMap', 'patch Note', 'create Event', 'patch Event'].includes(key),
    );
    expect(other).toEqual([]);
  });
});
