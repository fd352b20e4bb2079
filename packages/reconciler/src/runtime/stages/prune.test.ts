import type { KubeObject } from '@orkestra/registry';
import { createTemplateEngine, renderTemplate } from '@orkestra/template';
import { loadKatalogOrThrow } from '@orkestra/types';
import { describe, expect, it } from 'vitest';
import { EventRecorder } from '../../events/event-recorder.js';
import { createNamespaceGuard } from '../../namespace-guard.js';
import { MemoryCluster } from '../../offline/memory-cluster.js';
import { compileKatalog } from '../compile-katalog.js';
import type { DesiredSet } from '../desired-set.js';
import { DriftLimiter } from '../drift-limiter.js';
import { noopObserver } from '../runtime-observer.js';
import { prune } from './prune.js';
import { newRunState } from './run-state.js';
import type { StageServices } from './run-state.js';

const clock = { now: () => 0, setTimeout: () => ({}), clearTimeout: () => undefined };
const katalog = loadKatalogOrThrow({
  text: `
apiVersion: orkestra.konductor.io/v1alpha1
kind: Katalog
metadata: {name: t}
spec:
  crds:
    site:
      apiTypes: {group: a.example.com, version: v1, kind: Site, plural: sites}
`,
});
const crd = compileKatalog(katalog, { engine: createTemplateEngine({ clock }) }).crds.get('site');
if (crd == null) throw new Error('no crd');
const site = crd;

function configMap(name: string, ownerUid: string): KubeObject {
  return {
    apiVersion: 'v1',
    kind: 'ConfigMap',
    metadata: {
      name,
      namespace: 'web',
      labels: { 'orkestra.konductor.io/owner-uid': ownerUid },
      annotations: { 'orkestra.konductor.io/source': 'onReconcile.configMaps[0]' },
    },
  };
}

describe('prune', () => {
  it('deletes the recorded children the desired set dropped, only when the owner-uid label names this CR', async () => {
    const cluster = new MemoryCluster({ clock });
    const services: StageServices = {
      crd: site,
      primary: cluster.primaryStore('a.example.com/v1', 'Site'),
      children: cluster.childStore,
      client: cluster.client,
      clock,
      random: undefined,
      events: new EventRecorder({ clock, writer: { create: async () => undefined } }),
      guard: createNamespaceGuard(),
      conditions: { renderTemplate, now: () => new Date(0) },
      observer: noopObserver,
      customScope: () => undefined,
      maxWrites: 2,
      drift: new DriftLimiter({ clock }),
    };
    const cr = cluster.put({
      apiVersion: 'a.example.com/v1',
      kind: 'Site',
      metadata: { name: 's', namespace: 'web' },
    });
    const uid = cr.metadata.uid ?? '';
    cluster.put(configMap('mine', uid));
    cluster.put(configMap('theirs', 'someone-else'));
    const record = (name: string) => ({
      apiVersion: 'v1',
      kind: 'ConfigMap',
      namespace: 'web',
      name,
      mode: 'apply' as const,
      source: 'onReconcile.configMaps[0]',
    });
    const state = newRunState();
    const desired: DesiredSet = { groups: { onCreate: [], onReconcile: [] }, blocked: [], ids: new Set() };
    const pruned = await prune(
      services,
      cr,
      desired,
      [record('mine'), record('theirs'), record('gone')],
      state,
    );
    const get = (name: string) =>
      cluster.get({ apiVersion: 'v1', kind: 'ConfigMap', name, namespace: 'web' });
    expect(get('mine')).toBeUndefined();
    expect(get('theirs')).toBeDefined();
    expect(state.writes).toBe(1);
    expect([...pruned].some((id) => id.includes('mine'))).toBe(true);
    expect([...pruned].some((id) => id.includes('theirs'))).toBe(false);
  });
});
