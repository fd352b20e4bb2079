import type { KubeObject } from '@orkestra/registry';
import { createTemplateEngine, renderTemplate } from '@orkestra/template';
import { ConditionReason, OrkestraError, loadKatalogOrThrow } from '@orkestra/types';
import { describe, expect, it } from 'vitest';
import { EventRecorder } from '../../events/event-recorder.js';
import { createNamespaceGuard } from '../../namespace-guard.js';
import { MemoryCluster } from '../../offline/memory-cluster.js';
import { compileKatalog } from '../compile-katalog.js';
import { DriftLimiter } from '../drift-limiter.js';
import { noopObserver } from '../runtime-observer.js';
import { deleteRefOf, deletionTimedOut, lastWave, runDeletion, waveOf } from './deletion.js';
import type { DeletionMemory } from './deletion.js';
import { newRunState } from './run-state.js';
import type { StageServices } from './run-state.js';

const clock = {
  now: () => Date.parse('2026-01-01T00:10:00Z'),
  setTimeout: () => ({}),
  clearTimeout: () => undefined,
};
const owner = {
  apiVersion: 'a.example.com/v1',
  kind: 'Site',
  name: 's',
  uid: 'u1',
  crd: 'site',
  namespace: 'web',
};

describe('deletionTimedOut', () => {
  it('compares the time since the deletion timestamp with onDelete.timeout', () => {
    const now = Date.parse('2026-01-01T00:10:00Z');
    expect(deletionTimedOut('2026-01-01T00:00:00Z', now, '5m')).toBe(true);
    expect(deletionTimedOut('2026-01-01T00:08:00Z', now, '5m')).toBe(false);
    expect(deletionTimedOut('2026-01-01T00:00:00Z', now, undefined)).toBe(false);
    expect(deletionTimedOut('not a time', now, '1s')).toBe(false);
    // An unreadable timeout counts as five minutes.
    expect(deletionTimedOut('2026-01-01T00:04:00Z', now, 'soon')).toBe(true);
    expect(deletionTimedOut('2026-01-01T00:06:00Z', now, 'soon')).toBe(false);
  });
});

describe('lastWave', () => {
  it('picks the children of the highest wave and says whether lower waves remain', () => {
    const ref = (apiVersion: string, kind: string) => ({
      apiVersion,
      kind,
      name: kind.toLowerCase(),
      namespace: 'web',
    });
    const found = [ref('v1', 'ConfigMap'), ref('apps/v1', 'Deployment'), ref('example.com/v1', 'Widget')].map(
      (r) => ({ ref: r, deleting: false, wave: waveOf(r) }),
    );
    expect(waveOf(ref('example.com/v1', 'Widget'))).toBe(6);
    // A custom kind that shares a built-in kind's name is still a custom kind.
    expect(waveOf(ref('example.com/v1', 'Deployment'))).toBe(6);
    expect(waveOf(ref('apps/v1', 'Deployment'))).toBeGreaterThan(waveOf(ref('v1', 'ConfigMap')));
    // A PersistentVolume is deleted after the claims that bind it.
    expect(waveOf(ref('v1', 'PersistentVolume'))).toBeLessThan(waveOf(ref('v1', 'PersistentVolumeClaim')));
    const next = lastWave(found);
    expect(next.items.map((i) => i.ref.kind)).toEqual(['Widget']);
    expect(next.moreWaves).toBe(true);
    expect(lastWave([found[0] ?? (undefined as never)]).moreWaves).toBe(false);
    expect(lastWave([]).items).toEqual([]);
  });
});

describe('deleteRefOf', () => {
  it('renders built-in references in the owner namespace and custom ones from their apiVersion and kind', () => {
    expect(deleteRefOf('configMaps', { name: 'cfg' }, owner)).toEqual({
      apiVersion: 'v1',
      kind: 'ConfigMap',
      name: 'cfg',
      namespace: 'web',
    });
    expect(deleteRefOf('configMaps', { name: 'cfg', namespace: 'other' }, owner)?.namespace).toBe('other');
    expect(
      deleteRefOf(
        'custom',
        { apiVersion: 'x.example.com/v1', kind: 'Thing', metadata: { name: 't' } },
        owner,
      ),
    ).toEqual({ apiVersion: 'x.example.com/v1', kind: 'Thing', name: 't' });
    expect(deleteRefOf('custom', { kind: 'Thing', metadata: { name: 't' } }, owner)).toBeUndefined();
    expect(deleteRefOf('nope', { name: 'x' }, owner)).toBeUndefined();
  });
});

describe('runDeletion', () => {
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
  const engine = createTemplateEngine({ clock });
  const crd = compileKatalog(katalog, { engine }).crds.get('site');
  if (crd == null) throw new Error('no crd');

  function setup(): { cluster: MemoryCluster; services: StageServices; memory: DeletionMemory } {
    const cluster = new MemoryCluster({ clock });
    const primary = cluster.primaryStore('a.example.com/v1', 'Site');
    const services: StageServices = {
      crd: crd as NonNullable<typeof crd>,
      primary,
      children: cluster.childStore,
      client: cluster.client,
      clock,
      random: undefined,
      events: new EventRecorder({ clock, writer: { create: async () => undefined } }),
      guard: createNamespaceGuard(),
      conditions: { renderTemplate, now: () => new Date(clock.now()) },
      observer: noopObserver,
      customScope: () => undefined,
      maxWrites: 4,
      drift: new DriftLimiter({ clock }),
    };
    return {
      cluster,
      services,
      memory: { providersDeleted: new Set(), hooksDeleted: new Set(), finalized: new Set() },
    };
  }
  const status = { writeDeleting: async () => false };
  const ctx = {
    reconcileId: 'r',
    logger: {
      debug: () => undefined,
      info: () => undefined,
      warn: () => undefined,
      error: () => undefined,
    } as never,
    signal: new AbortController().signal,
  };

  it('deletes the owned children first, then releases the finalizer once they are gone, and only once', async () => {
    const { cluster, services, memory } = setup();
    const cr = cluster.put({
      apiVersion: 'a.example.com/v1',
      kind: 'Site',
      metadata: { name: 's', namespace: 'web', finalizers: ['orkestra.konductor.io/finalizer'] },
    });
    cluster.put({
      apiVersion: 'v1',
      kind: 'ConfigMap',
      metadata: {
        name: 'cfg',
        namespace: 'web',
        labels: { 'orkestra.konductor.io/owner-uid': cr.metadata.uid ?? '' },
      },
    });
    cluster.requestDelete({ apiVersion: 'a.example.com/v1', kind: 'Site', name: 's', namespace: 'web' });
    const deleting = (): KubeObject =>
      structuredClone(
        cluster.get({ apiVersion: 'a.example.com/v1', kind: 'Site', name: 's', namespace: 'web' }),
      ) as KubeObject;
    const first = await runDeletion(
      services,
      { status, deleteProviders: undefined, memory },
      deleting(),
      ctx,
      newRunState(),
    );
    expect(first.requeueAfterMs).toBe(3000);
    expect(
      cluster.get({ apiVersion: 'v1', kind: 'ConfigMap', name: 'cfg', namespace: 'web' }),
    ).toBeUndefined();
    const again = deleting();
    const second = await runDeletion(
      services,
      { status, deleteProviders: undefined, memory },
      again,
      ctx,
      newRunState(),
    );
    expect(second).toEqual({ wroteCr: false, writes: 1 });
    expect(memory.finalized.has(cr.metadata.uid ?? '')).toBe(true);
    // A pass queued before the DELETED event sees the old CR: nothing is written again.
    expect(
      await runDeletion(services, { status, deleteProviders: undefined, memory }, again, ctx, newRunState()),
    ).toEqual({
      wroteCr: false,
      writes: 0,
    });
  });

  it('runs the module hooks’ onDelete steps before the finalizer is released, keeps it while they fail, and runs them once (ADR 0099)', async () => {
    const { cluster, services, memory } = setup();
    cluster.put({
      apiVersion: 'a.example.com/v1',
      kind: 'Site',
      metadata: { name: 's', namespace: 'web', finalizers: ['orkestra.konductor.io/finalizer'] },
    });
    cluster.requestDelete({ apiVersion: 'a.example.com/v1', kind: 'Site', name: 's', namespace: 'web' });
    const ref = { apiVersion: 'a.example.com/v1', kind: 'Site', name: 's', namespace: 'web' };
    const deleting = (): KubeObject => structuredClone(cluster.get(ref)) as KubeObject;
    const finalizersOf = (): unknown => cluster.get(ref)?.metadata['finalizers'];
    let calls = 0;
    let fail = true;
    const deleteModuleHooks = async (): Promise<void> => {
      calls += 1;
      // The finalizer is still there while the step runs.
      expect(finalizersOf()).toEqual(['orkestra.konductor.io/finalizer']);
      if (fail)
        throw new OrkestraError('hook dns onDelete failed: record locked', {
          code: ConditionReason.HookFailed,
        });
    };
    const deps = { status, deleteProviders: undefined, deleteModuleHooks, memory };
    const failed = await runDeletion(services, deps, deleting(), ctx, newRunState()).catch((e: unknown) => e);
    expect(failed).toMatchObject({ code: ConditionReason.HookFailed });
    expect(finalizersOf()).toEqual(['orkestra.konductor.io/finalizer']);
    fail = false;
    const done = await runDeletion(services, deps, deleting(), ctx, newRunState());
    expect(done).toEqual({ wroteCr: false, writes: 1 });
    expect(calls).toBe(2);
    expect(memory.hooksDeleted.size).toBe(1);
  });

  it('deletes an unwatched inventory ref only when it carries the owner label, never by name alone', async () => {
    const { cluster, services: base, memory } = setup();
    // Widgets have no informer here: the step must read them before deleting.
    const services: StageServices = {
      ...base,
      children: new Proxy(cluster.childStore, {
        get: (target, key, receiver) =>
          key === 'watches'
            ? (ref: { kind: string }) => ref.kind !== 'Widget'
            : (Reflect.get(target, key, receiver) as unknown),
      }),
    };
    const cr = cluster.put({
      apiVersion: 'a.example.com/v1',
      kind: 'Site',
      metadata: { name: 's', namespace: 'web', finalizers: ['orkestra.konductor.io/finalizer'] },
    });
    const widget = (name: string, labels: Record<string, string>) =>
      cluster.put({
        apiVersion: 'x.example.com/v1',
        kind: 'Widget',
        metadata: { name, namespace: 'web', labels },
      });
    widget('mine', { 'orkestra.konductor.io/owner-uid': cr.metadata.uid ?? '' });
    widget('victim', {});
    widget('other', { 'orkestra.konductor.io/owner-uid': 'someone-else' });
    // Whoever may patch the status subresource can list any object here.
    const record = (name: string) => ({
      apiVersion: 'x.example.com/v1',
      kind: 'Widget',
      namespace: 'web',
      name,
      mode: 'apply',
      source: 'onReconcile.custom[0]',
    });
    cluster.requestDelete({ apiVersion: 'a.example.com/v1', kind: 'Site', name: 's', namespace: 'web' });
    const live = structuredClone(
      cluster.get({ apiVersion: 'a.example.com/v1', kind: 'Site', name: 's', namespace: 'web' }),
    ) as KubeObject;
    const deleting = { ...live, status: { inventory: ['mine', 'victim', 'other'].map(record) } };
    await runDeletion(services, { status, deleteProviders: undefined, memory }, deleting, ctx, newRunState());
    const get = (name: string) =>
      cluster.get({ apiVersion: 'x.example.com/v1', kind: 'Widget', name, namespace: 'web' });
    expect(get('mine')).toBeUndefined();
    expect(get('victim')).toBeDefined();
    expect(get('other')).toBeDefined();
  });
});
