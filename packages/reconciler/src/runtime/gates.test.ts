import { describe, expect, it } from 'vitest';
import type { KubeObject } from '@orkestra/registry';
import { createTemplateEngine } from '@orkestra/template';
import { PreReconcile } from '@orkestra/types';
import type { EvaluateConditionsOptions } from '@orkestra/types';
import { CacheChangeType } from '../cache.js';
import { ManualClock } from '../clock.js';
import { NO_CHANGE, PreReconcileGates, computeSentinels, evaluateGate } from './gates.js';
import { noopObserver } from './runtime-observer.js';

const clock = new ManualClock(Date.parse('2026-12-07T10:00:00Z')); // a Monday, 10:00 UTC
const engine = createTemplateEngine({ clock });
const conditions: EvaluateConditionsOptions = {
  renderTemplate: (source, context) => engine.renderTemplate(source, context),
  now: () => new Date(clock.now()),
};
const silent = { debug: () => {}, info: () => {}, warn: () => {}, error: () => {}, child: () => silent };

function cr(
  patch: {
    generation?: number;
    labels?: Record<string, string>;
    spec?: unknown;
    deleting?: boolean;
    status?: unknown;
  } = {},
): KubeObject {
  return {
    apiVersion: 'demo.example.io/v1',
    kind: 'Gadget',
    metadata: {
      name: 'g',
      namespace: 'default',
      uid: 'u1',
      resourceVersion: '1',
      generation: patch.generation ?? 1,
      ...(patch.labels == null ? {} : { labels: patch.labels }),
      ...(patch.deleting === true ? { deletionTimestamp: '2026-12-07T10:00:00Z' } : {}),
    },
    spec: patch.spec ?? {},
    ...(patch.status == null ? {} : { status: patch.status }),
  };
}

const pre = (value: unknown) => PreReconcile.parse(value);

describe('computeSentinels', () => {
  it('compares a CR with its previous version, one sentinel per change', () => {
    expect(computeSentinels(cr(), cr({ generation: 2 }))).toEqual({ ...NO_CHANGE, generationChanged: true });
    expect(computeSentinels(cr(), cr({ labels: { a: 'b' } }))).toEqual({ ...NO_CHANGE, labelsChanged: true });
    expect(computeSentinels(cr(), cr({ deleting: true }))).toEqual({ ...NO_CHANGE, deletionStarted: true });
    expect(computeSentinels(cr({ deleting: true }), cr({ deleting: true }))).toEqual(NO_CHANGE);
    // A status-only change (the runtime's own writes) changes no sentinel.
    expect(computeSentinels(cr(), cr({ status: { phase: 'Ready' } }))).toEqual(NO_CHANGE);
  });

  it('an object seen for the first time has every change sentinel true', () => {
    expect(computeSentinels(undefined, cr())).toEqual({
      generationChanged: true,
      labelsChanged: true,
      annotationsChanged: true,
      finalizersChanged: true,
      deletionStarted: false,
    });
  });
});

describe('evaluateGate', () => {
  it('passes on a listed sentinel, else on its conditions; sentinels alone hold when none is true', () => {
    const gate = pre({ enqueueGate: { sentinels: ['generationChanged'] } }).enqueueGate!;
    expect(evaluateGate(gate, cr(), { ...NO_CHANGE, generationChanged: true }, conditions).passed).toBe(true);
    expect(evaluateGate(gate, cr(), { ...NO_CHANGE, labelsChanged: true }, conditions)).toMatchObject({
      passed: false,
      reason: 'not_met',
    });
    const either = pre({
      enqueueGate: { sentinels: ['generationChanged'], when: [{ field: 'spec.force', equals: 'yes' }] },
    }).enqueueGate!;
    expect(evaluateGate(either, cr({ spec: { force: 'yes' } }), NO_CHANGE, conditions).passed).toBe(true);
    expect(evaluateGate(either, cr(), NO_CHANGE, conditions).passed).toBe(false);
  });

  it('reads sentinels in templates and ANDs them with `when`', () => {
    const both = pre({
      reconcileGate: {
        when: [
          { field: '{{ .sentinels.generationChanged }}', equals: 'true' },
          { field: '{{ .sentinels.labelsChanged }}', equals: 'true' },
        ],
      },
    }).reconcileGate!;
    expect(evaluateGate(both, cr(), { ...NO_CHANGE, generationChanged: true }, conditions).passed).toBe(
      false,
    );
    expect(
      evaluateGate(both, cr(), { ...NO_CHANGE, generationChanged: true, labelsChanged: true }, conditions)
        .passed,
    ).toBe(true);
  });

  it('time conditions read the injected clock', () => {
    const gate = pre({ reconcileGate: { when: [{ dayOfWeek: { weekend: true } }] } }).reconcileGate!;
    expect(evaluateGate(gate, cr(), NO_CHANGE, conditions).passed).toBe(false); // Monday
    clock.advance(5 * 24 * 3600_000); // Saturday
    expect(evaluateGate(gate, cr(), NO_CHANGE, conditions).passed).toBe(true);
    clock.advance(-5 * 24 * 3600_000);
  });

  it('failPolicy: a condition that cannot be evaluated passes an open gate and holds a closed one', () => {
    const broken = [{ field: '{{ fail "no flag service" }}', equals: 'true' }];
    const open = pre({ reconcileGate: { when: broken } }).reconcileGate!;
    const closed = pre({ reconcileGate: { when: broken, failPolicy: 'closed' } }).reconcileGate!;
    expect(evaluateGate(open, cr(), NO_CHANGE, conditions)).toMatchObject({
      passed: true,
      failedOpen: expect.any(String),
    });
    expect(evaluateGate(closed, cr(), NO_CHANGE, conditions)).toMatchObject({
      passed: false,
      reason: 'fail_closed',
    });
    // A condition that is merely false is not an evaluation failure: an open gate holds it.
    const falseGate = pre({ reconcileGate: { when: [{ field: 'spec.on', equals: 'yes' }] } }).reconcileGate!;
    expect(evaluateGate(falseGate, cr(), NO_CHANGE, conditions)).toMatchObject({
      passed: false,
      reason: 'not_met',
    });
  });
});

function gates(value: unknown) {
  const gated: string[] = [];
  const writes: unknown[] = [];
  const g = new PreReconcileGates({
    controller: 'gadget',
    preReconcile: pre(value),
    conditions,
    observer: { ...noopObserver, reconcileGated: (c, gate, reason) => gated.push(`${c} ${gate} ${reason}`) },
    client: {
      patchStatus: (_ref, status) => {
        writes.push(status);
        return Promise.resolve(cr({ status }));
      },
    },
    primary: { upsertFromWrite: () => true },
    apiVersion: 'demo.example.io/v1',
    clock,
    logger: silent,
  });
  return { g, gated, writes };
}

describe('PreReconcileGates', () => {
  it('enqueueGate holds an event before its key is queued and counts it; deletions always pass', () => {
    const { g, gated, writes } = gates({ enqueueGate: { when: [{ field: 'spec.active', equals: 'true' }] } });
    expect(g.admit({ type: CacheChangeType.Update, key: 'default/g', object: cr(), old: cr() })).toBe(false);
    expect(gated).toEqual(['gadget enqueue not_met']);
    const on = cr({ spec: { active: 'true' } });
    expect(g.admit({ type: CacheChangeType.Update, key: 'default/g', object: on, old: cr() })).toBe(true);
    expect(
      g.admit({ type: CacheChangeType.Update, key: 'default/g', object: cr({ deleting: true }), old: cr() }),
    ).toBe(true);
    expect(g.admit({ type: CacheChangeType.Delete, key: 'default/g', object: cr() })).toBe(true);
    expect(writes).toEqual([]); // the enqueue gate never writes
  });

  it('reconcileGate writes Gated once while the CR stays gated, and never gates a deletion', async () => {
    const { g, gated, writes } = gates({
      reconcileGate: { when: [{ field: 'spec.active', equals: 'true' }] },
    });
    expect(await g.check('default/g', cr(), silent)).toBe(false);
    expect(gated).toEqual(['gadget reconcile not_met']);
    expect(writes).toEqual([
      {
        conditions: [
          expect.objectContaining({
            type: 'Gated',
            status: 'True',
            reason: 'ReconcileGated',
            message: expect.stringMatching(/^reconcileGate: when\[0\]/),
          }),
        ],
      },
    ]);
    const shown = cr({ status: writes[0] });
    expect(await g.check('default/g', shown, silent)).toBe(false);
    expect(writes).toHaveLength(1); // stays gated: nothing written
    expect(await g.check('default/g', cr({ deleting: true }), silent)).toBe(true);
    expect(await g.check('default/g', cr({ spec: { active: 'true' } }), silent)).toBe(true);
  });

  it('merges the sentinels of the events since the last reconcile; eventAware judges each event alone', async () => {
    const both = {
      reconcileGate: {
        when: [
          { field: '{{ .sentinels.generationChanged }}', equals: 'true' },
          { field: '{{ .sentinels.labelsChanged }}', equals: 'true' },
        ],
      },
    };
    const events = (g: PreReconcileGates) => {
      g.admit({ type: CacheChangeType.Update, key: 'default/g', object: cr({ generation: 2 }), old: cr() });
      g.admit({
        type: CacheChangeType.Update,
        key: 'default/g',
        object: cr({ generation: 2, labels: { a: 'b' } }),
        old: cr({ generation: 2 }),
      });
    };
    const merged = gates(both);
    events(merged.g);
    expect(await merged.g.check('default/g', cr({ generation: 2 }), silent)).toBe(true);
    // Consumed: the next reconcile (a resync) has no event behind it.
    expect(await merged.g.check('default/g', cr({ generation: 2 }), silent)).toBe(false);
    const aware = gates({ reconcileGate: { ...both.reconcileGate, eventAware: true } });
    events(aware.g);
    expect(await aware.g.check('default/g', cr({ generation: 2 }), silent)).toBe(false);
  });
});
