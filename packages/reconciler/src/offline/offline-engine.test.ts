import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { refOf } from '@orkestra/registry';
import type { KubeObject } from '@orkestra/registry';
import { loadKatalogOrThrow } from '@orkestra/types';
import { OfflineEngine, reconcileOnce } from './offline-engine.js';

const examples = fileURLToPath(new URL('../../../../examples/', import.meta.url));
const NOW = Date.parse('2026-01-01T00:00:00Z');
const clock = {
  now: () => NOW,
  setTimeout: () => ({}),
  clearTimeout: () => undefined,
};

function website(): { katalog: ReturnType<typeof loadKatalogOrThrow>; cr: KubeObject } {
  const katalog = loadKatalogOrThrow({ path: `${examples}website/katalog.yaml` });
  const cr: KubeObject = {
    apiVersion: 'demo.example.com/v1alpha1',
    kind: 'Website',
    metadata: { name: 'hello', namespace: 'default' },
    spec: { image: 'nginx:1.27', replicas: 2, title: 'Hello from Orkestra', tier: 'gold' },
  };
  return { katalog, cr };
}

describe('reconcileOnce', () => {
  it('runs the real pipeline: finalizer, children applied in waves, status written, Ready truthful', async () => {
    const { katalog, cr } = website();
    const { run } = await reconcileOnce(katalog, cr, [], {}, { clock });
    expect(run.error).toBeUndefined();
    const verbs = run.writes.map((w) => `${w.verb} ${w.ref.kind}/${w.ref.name}`);
    expect(verbs[0]).toBe('patch Website/hello'); // the finalizer, before anything else
    expect(verbs).toContain('apply Deployment/hello-web');
    expect(verbs.at(-1)).toBe('status Website/hello');
    expect(run.cr?.metadata['finalizers']).toContain('orkestra.konductor.io/finalizer');
    const conditions = (
      run.cr?.['status'] as { conditions: { type: string; status: string; reason: string }[] }
    ).conditions;
    // Everything was applied (Synced), but no controller has observed the Deployment offline: not Ready.
    expect(conditions.find((c) => c.type === 'Synced')?.status).toBe('True');
    expect(conditions.find((c) => c.type === 'Ready')).toMatchObject({
      status: 'False',
      reason: 'ChildNotReady',
    });
  });

  it('writes nothing on a second run of an unchanged CR', async () => {
    const { katalog, cr } = website();
    const { run, engine, cluster } = await reconcileOnce(katalog, cr, [], {}, { clock });
    const second = await engine.reconcile({ ...run.writes[0]!.ref });
    expect(second.writes).toEqual([]);
    expect(cluster.writes.length).toBe(run.writes.length);
  });

  it('runs the deletion path: children deleted explicitly, then the finalizer removed', async () => {
    const { katalog, cr } = website();
    const engine = new OfflineEngine({ katalog, clock });
    const stored = engine.cluster.put(cr);
    const ref = { apiVersion: stored.apiVersion, kind: stored.kind, name: 'hello', namespace: 'default' };
    await engine.reconcile(ref);
    engine.cluster.requestDelete(ref);
    const writes = [];
    let run = await engine.reconcile(ref);
    writes.push(...run.writes);
    // The finalizer is released only once the children are gone: a bounded number of passes.
    for (let pass = 0; run.cr != null && pass < 5; pass++) {
      run = await engine.reconcile(ref);
      writes.push(...run.writes);
    }
    expect(run.cr).toBeUndefined();
    const verbs = writes.map((w) => `${w.verb} ${w.ref.kind}`);
    const crRemoved = verbs.indexOf('removed Website');
    expect(crRemoved).toBeGreaterThan(0);
    expect(verbs.indexOf('delete Deployment')).toBeGreaterThanOrEqual(0);
    expect(verbs.indexOf('delete Deployment')).toBeLessThan(crRemoved);
    expect(engine.cluster.list()).toEqual([]);
  });
});

describe('OfflineEngine for ork diff', () => {
  const crossKatalog = loadKatalogOrThrow({
    text: `apiVersion: orkestra.konductor.io/v1alpha1
kind: Katalog
metadata: {name: cross-reads}
spec:
  crds:
    database:
      apiTypes: {group: demo.example.com, version: v1, kind: Database, plural: databases}
      operatorBox: {}
    app:
      apiTypes: {group: demo.example.com, version: v1, kind: App, plural: apps}
      operatorBox:
        cross:
          - {crd: database, selector: {name: "{{ spec.db }}"}, as: db}
        onReconcile:
          configMaps:
            - name: "{{ metadata.name }}-db"
              data: {host: "{{ cross.db.spec.host }}", found: "{{ cross.db.found }}"}
`,
  });
  const app: KubeObject = {
    apiVersion: 'demo.example.com/v1',
    kind: 'App',
    metadata: { name: 'shop', namespace: 'default' },
    spec: { db: 'main' },
  };
  const database: KubeObject = {
    apiVersion: 'demo.example.com/v1',
    kind: 'Database',
    metadata: { name: 'main', namespace: 'default' },
    spec: { host: 'db-1' },
  };
  const hostOf = (run: { writes: readonly { body?: KubeObject }[] }): unknown =>
    run.writes.find((w) => w.body?.kind === 'ConfigMap')?.body?.['data'];

  it("crossReads 'cluster' answers cross reads from the cluster's CRs; the default reads results", async () => {
    for (const [crossReads, expected] of [
      ['cluster', { host: 'db-1', found: 'true' }],
      ['results', { found: 'false' }], // an empty value is dropped
    ] as const) {
      const engine = new OfflineEngine({ katalog: crossKatalog, clock, crossReads });
      engine.cluster.put(database);
      const stored = engine.cluster.put(app);
      const run = await engine.reconcile(refOf(stored));
      expect(hostOf(run), crossReads).toEqual(expected);
    }
  });

  it('restore keeps the exported UID, generation and creation time', () => {
    const engine = new OfflineEngine({ katalog: crossKatalog, clock });
    const exported = {
      ...app,
      metadata: {
        ...app.metadata,
        uid: 'u-1',
        generation: 7,
        creationTimestamp: '2025-05-05T00:00:00Z',
        resourceVersion: '999',
      },
    };
    const stored = engine.cluster.restore(exported);
    expect(stored.metadata).toMatchObject({
      uid: 'u-1',
      generation: 7,
      creationTimestamp: '2025-05-05T00:00:00Z',
    });
    expect(stored.metadata.resourceVersion).not.toBe('999');
    expect(engine.cluster.put(exported).metadata['generation']).toBe(7); // same spec: unchanged
  });
});

describe('OfflineEngine: declared Events and cleanup (docs/reference/katalog.md §20.5–20.6)', () => {
  const text = `apiVersion: orkestra.konductor.io/v1alpha1
kind: Katalog
metadata: {name: jobs}
spec:
  crds:
    task:
      apiTypes: {group: demo.example.com, version: v1, kind: Task, plural: tasks}
      events:
        synced: {type: Normal, reason: Synced, message: "{{ .name }} is {{ .spec.phase }}", on: [success]}
      cleanup:
        when: [{field: status.phase, equals: Done}]
        deleteAfter: 30s
      operatorBox:
        status:
          fields:
            - {path: phase, value: "{{ spec.phase }}"}
`;

  it('records the declared Event, then the terminal state, and deletes the CR once it falls due', async () => {
    let now = NOW;
    const manual = { now: () => now, setTimeout: () => ({}), clearTimeout: () => undefined };
    const engine = new OfflineEngine({
      katalog: loadKatalogOrThrow({ text, file: 'katalog.yaml' }),
      clock: manual,
    });
    const stored = engine.cluster.put({
      apiVersion: 'demo.example.com/v1',
      kind: 'Task',
      metadata: { name: 't1', namespace: 'default' },
      spec: { phase: 'Done' },
    });
    const ref = refOf(stored);
    const first = await engine.reconcile(ref);
    expect(first.events.map((e) => `${e.reason}: ${e.message}`)).toContain('Synced: t1 is Done');
    expect(first.result?.requeueAfterMs).toBe(30_000);
    expect(first.cr?.metadata.annotations?.['orkestra.konductor.io/cleanup-pending-since']).toBe(
      '2026-01-01T00:00:00Z',
    );
    now += 30_000;
    const due = await engine.reconcile(ref);
    expect(due.writes.map((w) => `${w.verb} ${w.ref.kind}/${w.ref.name}`)).toEqual(['delete Task/t1']);
    expect(due.events.map((e) => e.reason)).toEqual(['CleanedUp']);
    expect(due.cr?.metadata['deletionTimestamp']).toBeDefined(); // its finalizer runs next
  });
});
