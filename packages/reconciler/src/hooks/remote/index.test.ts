import { describe, expect, it } from 'vitest';
import type { KubeObject } from '@orkestra/registry';
import { loadKatalogOrThrow } from '@orkestra/types';
import { reconcileOnce } from '../../offline/offline-engine.js';
import { remoteHook } from './index.js';

const NOW = Date.parse('2026-01-01T00:00:00Z');
const clock = { now: () => NOW, setTimeout: () => ({}), clearTimeout: () => undefined };

const katalog = loadKatalogOrThrow({
  text: `apiVersion: orkestra.konductor.io/v1alpha1
kind: Katalog
metadata: {name: remote}
spec:
  crds:
    app:
      apiTypes: {group: demo.example.com, version: v1, kind: App, plural: apps}
      operatorBox:
        remote:
          endpoint: "https://reconciler.internal/reconcile"
          managedResources: [{group: "", plural: configmaps}]
        status:
          fields:
            - {path: echoed, value: "{{ remote.status.phase }}"}
`,
});
const app: KubeObject = {
  apiVersion: 'demo.example.com/v1',
  kind: 'App',
  metadata: { name: 'shop', namespace: 'default' },
  spec: {},
};

describe('the remote unit offline (ork render, simulate)', () => {
  it('applies the resources of the given answer and writes its status', async () => {
    const { run } = await reconcileOnce(
      katalog,
      app,
      [],
      {
        remote: {
          result: 'ok',
          status: { phase: 'Ready' },
          resources: [{ type: 'configmap', fields: { name: 'shop-config', data: { a: '1' } } }],
        },
      },
      { clock },
    );
    expect(run.error).toBeUndefined();
    const configMap = run.writes.find((w) => w.body?.kind === 'ConfigMap');
    expect(configMap?.body).toMatchObject({ metadata: { name: 'shop-config' }, data: { a: '1' } });
    expect(configMap?.body?.metadata.annotations?.['orkestra.konductor.io/source']).toMatch(
      /remote\.configMaps/,
    );
    expect(run.cr?.['status']).toMatchObject({ phase: 'Ready', echoed: 'Ready' });
  });

  it('reads a missing answer as ok with no resources, and says so', async () => {
    const { run } = await reconcileOnce(katalog, app, [], {}, { clock });
    expect(run.error).toBeUndefined();
    expect(run.writes.some((w) => w.body?.kind === 'ConfigMap')).toBe(false);
    expect(run.notes.join('\n')).toContain('remote: no answer in the context');
  });

  it('refuses a given answer with a kind outside managedResources, as the runtime does', async () => {
    const { run } = await reconcileOnce(
      katalog,
      app,
      [],
      { remote: { resources: [{ type: 'deployment', fields: { name: 'x', image: 'nginx' } }] } },
      { clock },
    );
    expect(String(run.error)).toMatch(/Deployment is not in managedResources/);
  });
});

describe('remoteHook.settle', () => {
  it('turns requeue into a timed re-queue after requeueAfter (default 10s), and ok into none', () => {
    const base = { called: true, error: '', status: {}, resources: [] };
    expect(remoteHook.settle({ ...base, result: 'requeue', requeueAfter: '60s' }).requeueAfterMs).toBe(
      60_000,
    );
    expect(remoteHook.settle({ ...base, result: 'requeue', requeueAfter: '' }).requeueAfterMs).toBe(10_000);
    expect(remoteHook.settle({ ...base, result: 'ok', requeueAfter: '60s' }).requeueAfterMs).toBeUndefined();
  });
});
