import { describe, expect, it } from 'vitest';
import type { KubeObject } from '@orkestra/registry';
import { OrkestraAnnotation, Rollback } from '@orkestra/types';
import { ManualClock } from '../clock.js';
import { Rollbacks, decodeSpec, encodeSpec } from './rollback.js';

const silent = { debug: () => {}, info: () => {}, warn: () => {}, error: () => {}, child: () => silent };

function setup(rollback: unknown) {
  const clock = new ManualClock(1_000_000);
  const patches: unknown[] = [];
  const events: string[] = [];
  const rollbacks = new Rollbacks({
    rollback: Rollback.parse(rollback),
    clock,
    client: {
      mergePatch: (ref, patch) => {
        patches.push(patch);
        const annotations = (patch as { metadata: { annotations: Record<string, string> } }).metadata
          .annotations;
        return Promise.resolve(
          cr({ ...annotations, [OrkestraAnnotation.PreviousSpec]: encodeSpec({ image: 'v1' }) }),
        );
      },
    },
    primary: { upsertFromWrite: () => true },
    events: { warning: (_s, reason, message) => (events.push(`${reason}: ${message}`), true) },
  });
  return { clock, rollbacks, patches, events };
}

function cr(annotations: Record<string, string> = {}): KubeObject {
  return {
    apiVersion: 'demo.example.io/v1',
    kind: 'Gadget',
    metadata: { name: 'g', namespace: 'default', generation: 4, resourceVersion: '9', annotations },
    spec: { image: 'v2-broken' },
  };
}

describe('Rollbacks', () => {
  it('triggers after consecutiveFailures in a row; a success starts the count again', () => {
    const { rollbacks } = setup({ trigger: { consecutiveFailures: 3 } });
    rollbacks.failed('k');
    rollbacks.failed('k');
    rollbacks.succeeded('k');
    rollbacks.failed('k');
    rollbacks.failed('k');
    expect(rollbacks.triggered('k')).toBe(false);
    rollbacks.failed('k');
    expect(rollbacks.triggered('k')).toBe(true);
  });

  it('with withinDuration, only when the last N failures all fall inside the window (injected clock)', () => {
    const { clock, rollbacks } = setup({ trigger: { consecutiveFailures: 2, withinDuration: '1m' } });
    rollbacks.failed('k');
    clock.advance(90_000);
    rollbacks.failed('k');
    expect(rollbacks.triggered('k')).toBe(false); // the first is 90 s old
    clock.advance(10_000);
    rollbacks.failed('k');
    expect(rollbacks.triggered('k')).toBe(true); // the last two are 10 s apart
    clock.advance(60_000);
    expect(rollbacks.triggered('k')).toBe(false); // and the window has passed
  });

  it('marks the CR at its generation, warns once, and re-applies the previous spec until the generation changes', async () => {
    const { rollbacks, patches, events } = setup({
      trigger: { consecutiveFailures: 1 },
      reapplyPreviousSpec: true,
    });
    expect(await rollbacks.before('k', cr(), silent)).toBeUndefined();
    rollbacks.failed('k');
    const run = await rollbacks.before('k', cr(), silent);
    expect(patches).toEqual([
      { metadata: { annotations: { [OrkestraAnnotation.RollbackAtGeneration]: '4' } } },
    ]);
    expect(events).toEqual(['RolledBack: rolled back after 1 consecutive failures at generation 4']);
    expect(run).toEqual({
      message: expect.stringMatching(/generation 4.*previous spec is applied/),
      spec: { image: 'v1' },
    });
    // Still generation 4: rolled back without another patch.
    const marked = cr({
      [OrkestraAnnotation.RollbackAtGeneration]: '4',
      [OrkestraAnnotation.PreviousSpec]: encodeSpec({ image: 'v1' }),
    });
    expect(await rollbacks.before('k', marked, silent)).toMatchObject({ spec: { image: 'v1' } });
    expect(patches).toHaveLength(1);
    // A new generation ends it.
    const changed = { ...marked, metadata: { ...marked.metadata, generation: 5 } };
    expect(await rollbacks.before('k', changed, silent)).toBeUndefined();
  });

  it('without reapplyPreviousSpec the CR is only held', async () => {
    const { rollbacks } = setup({ trigger: { consecutiveFailures: 1 } });
    rollbacks.failed('k');
    const run = await rollbacks.before('k', cr(), silent);
    expect(run).toEqual({ message: expect.stringMatching(/change the spec/) });
  });

  it('onRollback: after N failures within the window, the children over .previous are applied (they win over reapplyPreviousSpec)', async () => {
    const { clock, rollbacks } = setup({
      trigger: { consecutiveFailures: 2, withinDuration: '1m' },
      reapplyPreviousSpec: true,
      onRollback: { configMaps: [{ name: '{{ .previous.metadata.name }}-config' }] },
    });
    rollbacks.failed('k');
    clock.advance(61_000);
    rollbacks.failed('k');
    expect(await rollbacks.before('k', cr(), silent)).toBeUndefined(); // 61 s apart: outside the window
    clock.advance(30_000);
    rollbacks.failed('k');
    const run = await rollbacks.before('k', cr(), silent);
    expect(run).toEqual({
      message: expect.stringMatching(/generation 4.*onRollback children are applied/),
      previous: { image: 'v1' },
    });
    expect(run).not.toHaveProperty('spec');
  });

  it('onRollback before any success (no previous spec) only holds the CR', async () => {
    const { rollbacks } = setup({
      trigger: { consecutiveFailures: 1 },
      onRollback: { configMaps: [{ name: 'x' }] },
    });
    rollbacks.failed('k');
    const held = cr({ [OrkestraAnnotation.RollbackAtGeneration]: '4' });
    expect(await rollbacks.before('k', held, silent)).toEqual({
      message: expect.stringMatching(/change the spec/),
    });
  });

  it('keeps the previous spec as gzip + base64 JSON', () => {
    expect(decodeSpec(encodeSpec({ a: [1, 'x'] }))).toEqual({ a: [1, 'x'] });
    expect(decodeSpec('not base64 gzip')).toBeUndefined();
  });
});
