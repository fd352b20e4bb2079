import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
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
