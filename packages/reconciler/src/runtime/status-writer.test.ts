import { KubeApiError, KubeErrorCode } from '@orkestra/registry';
import type { KubeClient } from '@orkestra/registry';
import { createTemplateEngine, renderTemplate } from '@orkestra/template';
import { loadKatalogOrThrow } from '@orkestra/types';
import { describe, expect, it } from 'vitest';
import type { EventRecorder } from '../events/event-recorder.js';
import { MemoryCluster } from '../offline/memory-cluster.js';
import { compileKatalog } from './compile-katalog.js';
import type { DesiredChild, DesiredSet } from './desired-set.js';
import type { ChildEvent } from './stages/run-state.js';
import { StatusWriter } from './status-writer.js';

const clock = { now: () => 0, setTimeout: () => ({}), clearTimeout: () => undefined };
const engine = createTemplateEngine({ clock });
const katalog = loadKatalogOrThrow({
  text: `
apiVersion: orkestra.konductor.io/v1alpha1
kind: Katalog
metadata: {name: t}
spec:
  crds:
    note:
      apiTypes: {group: a.example.com, version: v1, kind: Note, plural: notes}
`,
});
const crd = compileKatalog(katalog, { engine }).crds.get('note');
if (crd == null) throw new Error('no crd');
const note = crd;

const childRef = { apiVersion: 'v1', kind: 'ConfigMap', namespace: 'web', name: 'n-config' };
const desired: DesiredSet = {
  groups: {
    onCreate: [],
    onReconcile: [
      {
        ref: childRef,
        id: 'v1/ConfigMap/web/n-config',
        entry: { listKey: 'configMaps', source: 'onReconcile.configMaps[0]' },
      } as unknown as DesiredChild,
    ],
  },
  blocked: [],
  ids: new Set(['v1/ConfigMap/web/n-config']),
};
const created = (): ChildEvent[] => [
  { reason: 'Created', message: 'ConfigMap web/n-config (onReconcile.configMaps[0]) was created' },
];

/** setup is a writer over a memory cluster holding one new Note, and the Events it records. */
function setup(options: { childInCache: boolean; client?: Pick<KubeClient, 'patchStatus'> }) {
  const cluster = new MemoryCluster({ clock });
  const cr = cluster.put({
    apiVersion: 'a.example.com/v1',
    kind: 'Note',
    metadata: { name: 'n', namespace: 'web', generation: 1 },
  });
  if (options.childInCache) cluster.put({ ...childRef, metadata: { name: 'n-config', namespace: 'web' } });
  const events: string[] = [];
  const record = (type: string) => (_: unknown, reason: string, message: string) => {
    events.push(`${type} ${reason}: ${message}`);
    return true;
  };
  const writer = new StatusWriter({
    crd: note,
    client: options.client ?? cluster.client,
    primary: cluster.primaryStore(note.apiVersion, 'Note'),
    children: cluster.childStore,
    engine,
    conditions: { renderTemplate, now: () => new Date(0) },
    clock,
    events: { normal: record('Normal'), warning: record('Warning') } as unknown as EventRecorder,
  });
  const logger = { warn: () => undefined } as unknown as Parameters<StatusWriter['write']>[1]['logger'];
  const input = (childEvents: ChildEvent[]) => ({
    outcome: { ready: true, reason: 'ReconcileSucceeded', message: '' },
    warnings: undefined,
    inventory: undefined,
    context: undefined,
    desired,
    logger,
    childEvents,
  });
  return { cluster, cr, events, writer, input };
}

describe('StatusWriter Events', () => {
  it('records one Event for a new CR whose children are ready on creation: Ready, naming them', async () => {
    const { cr, events, writer, input } = setup({ childInCache: true });
    const childEvents = created();
    expect(await writer.write(cr, input(childEvents))).toBe(true);
    expect(events).toEqual([
      'Normal ReconcileSucceeded: Ready; ConfigMap web/n-config (onReconcile.configMaps[0]) was created',
    ]);
    expect(childEvents).toEqual([]); // taken: the pipeline records nothing more
  });

  it('records the Created Event alone for a new CR waiting for its children (ADR 0020)', async () => {
    const { cr, events, writer, input } = setup({ childInCache: false });
    expect(await writer.write(cr, input(created()))).toBe(true);
    expect(events).toEqual([
      'Normal Created: ConfigMap web/n-config (onReconcile.configMaps[0]) was created',
    ]);
  });

  it('records no Ready Event for a CR that stays Ready; a child update is its own Event', async () => {
    const { cluster, cr, events, writer, input } = setup({ childInCache: true });
    await writer.write(cr, input([]));
    const ready = cluster.primaryStore(note.apiVersion, 'Note').get('web/n');
    if (ready == null) throw new Error('no cached Note');
    events.length = 0;
    const updated: ChildEvent = { reason: 'Updated', message: 'ConfigMap web/n-config (…) was updated' };
    expect(await writer.write(ready, input([updated]))).toBe(false); // the same status: no request
    expect(events).toEqual(['Normal Updated: ConfigMap web/n-config (…) was updated']);
  });

  it('records no Ready Event when the API server refuses the status (no transition was written)', async () => {
    const conflict = new KubeApiError({
      verb: 'patch',
      status: 409,
      reason: KubeErrorCode.Conflict,
      message: 'stale',
    });
    const { cr, events, writer, input } = setup({
      childInCache: true,
      client: {
        patchStatus: () => Promise.reject(conflict),
      },
    });
    const childEvents = created();
    await expect(writer.write(cr, input(childEvents))).rejects.toThrow(/status write conflict/);
    expect(events).toEqual([]);
    expect(childEvents).toHaveLength(1); // left for the pipeline to record on their own
  });
});
