import { describe, expect, it } from 'vitest';
import type { KubeObject } from '@orkestra/registry';
import { Rollout } from '@orkestra/types';
import { assign, control, inRollout, startRollout, tick } from './plan.js';
import type { RolloutState } from './plan.js';
import { katalogRevision } from './revision.js';

const policy = (input: unknown = {}): Rollout => Rollout.parse(input);

function cr(
  i: number,
  status?: { revision: string; ready: boolean },
  labels: Record<string, string> = {},
): KubeObject {
  return {
    apiVersion: 'x.io/v1',
    kind: 'App',
    metadata: { name: `app-${i}`, namespace: 'ns', uid: `uid-${i}`, generation: 1, labels },
    ...(status == null
      ? {}
      : {
          status: {
            katalogRevision: status.revision,
            conditions: [
              {
                type: 'Ready',
                status: status.ready ? 'True' : 'False',
                reason: 'R',
                message: 'm',
                observedGeneration: 1,
              },
            ],
          },
        }),
  };
}

const crs = (n: number): KubeObject[] => Array.from({ length: n }, (_, i) => cr(i));

/** settle marks every CR the state assigns to the target as reconciled with it, ready or not. */
function settle(state: RolloutState, list: KubeObject[], ready: boolean): KubeObject[] {
  return list.map((o, i) =>
    assign(state, o) === 'target'
      ? cr(i, { revision: state.target, ready })
      : cr(i, { revision: state.stable, ready: true }),
  );
}

describe('rollout plan', () => {
  it('without spec.rollout a new revision applies to every CR at once', () => {
    const state = startRollout('a', 'b', undefined, 0);
    expect(state.phase).toBe('Complete');
    expect(crs(5).every((o) => assign(state, o) === 'target')).toBe(true);
  });

  it('starts with no CR on the target until the first tick picks the canary, then exactly `count`', () => {
    const list = crs(40);
    const state = startRollout('a', 'b', policy({ canary: { count: 3 } }), 0);
    expect(list.filter((o) => assign(state, o) === 'target')).toHaveLength(0);
    const first = tick(state, policy({ canary: { count: 3 } }), list, 1).state;
    expect(list.filter((o) => assign(first, o) === 'target')).toHaveLength(3);
  });

  it('advances wave by wave when the step is Ready on the target, and completes after the last', () => {
    const p = policy({ canary: { count: 2 }, waves: [25, 50, 100] });
    let list = crs(40);
    let state = tick(startRollout('a', 'b', p, 0), p, list, 0).state;
    const seen: number[] = [];
    for (let round = 0; round < 10 && state.phase === 'Progressing'; round++) {
      seen.push(list.filter((o) => assign(state, o) === 'target').length);
      list = settle(state, list, true);
      state = tick(state, p, list, round + 1).state;
    }
    expect(seen).toEqual([2, 10, 20, 40]);
    expect(state.phase).toBe('Complete');
  });

  it('does not advance while a CR of the step is not Ready, and fails the gate after readyTimeout', () => {
    const p = policy({ canary: { count: 2 }, readyTimeout: '1m' });
    let list = crs(10);
    let state = tick(startRollout('a', 'b', p, 0), p, list, 0).state;
    list = settle(state, list, false);
    const held = tick(state, p, list, 59_000);
    expect(held.state).toBe(state);
    const failed = tick(state, p, list, 60_000);
    expect(failed.state.phase).toBe('Failed');
    expect(failed.events[0]?.reason).toBe('RolloutGateFailed');
    // pause keeps the canary on the target
    expect(list.filter((o) => assign(failed.state, o) === 'target')).toHaveLength(2);
    state = failed.state;
    expect(tick(state, p, list, 120_000).state).toBe(state);
  });

  it('onFailure: rollback sends the CRs that were not ready back to stable', () => {
    const p = policy({ canary: { count: 2 }, readyTimeout: '1m', onFailure: 'rollback' });
    let list = crs(10);
    const state = tick(startRollout('a', 'b', p, 0), p, list, 0).state;
    list = settle(state, list, false);
    const failed = tick(state, p, list, 60_000);
    expect(failed.state.rolledBack).toHaveLength(2);
    expect(list.filter((o) => assign(failed.state, o) === 'target')).toHaveLength(0);
    expect(failed.events.filter((e) => e.reason === 'RolledBack')).toHaveLength(2);
  });

  it('a CR whose status still names the stable revision is not ready for the gate', () => {
    const p = policy({ canary: { count: 10 } });
    const list = crs(10).map((_, i) => cr(i, { revision: 'a', ready: true }));
    const state = tick(startRollout('a', 'b', p, 0), p, list, 0).state;
    expect(tick(state, p, list, 1).state).toBe(state);
  });

  it('pause holds, resume retries a failed step, undo returns every CR to stable', () => {
    const p = policy({ canary: { count: 2 } });
    let list = crs(10);
    let state = tick(startRollout('a', 'b', p, 0), p, list, 0).state;
    state = control(state, 'pause', 1);
    list = settle(state, list, true);
    expect(tick(state, p, list, 2).state).toBe(state);
    expect(tick(state, policy({ canary: { count: 2 }, paused: true }), list, 2).state).toBe(state);
    state = control(state, 'undo', 3);
    expect(list.filter((o) => assign(state, o) === 'target')).toHaveLength(0);
    state = control(state, 'resume', 4);
    expect(list.filter((o) => assign(state, o) === 'target')).toHaveLength(2);
    expect(() => control({ ...state, phase: 'Complete' }, 'undo', 5)).toThrow(/complete/);
  });

  it('a pin annotation overrides the rollout, a selector canary picks by labels', () => {
    const p = policy({ canary: { selector: { tier: 'canary' } } });
    const list = [cr(1, undefined, { tier: 'canary' }), cr(2), cr(3)];
    const pinned: KubeObject = {
      ...cr(4),
      metadata: { ...cr(4).metadata, annotations: { 'orkestra.konductor.io/revision': 'b' } },
    };
    const state = tick(startRollout('a', 'b', p, 0), p, [...list, pinned], 0).state;
    expect(list.map((o) => assign(state, o))).toEqual(['target', 'stable', 'stable']);
    expect(assign(state, pinned)).toBe('target');
    expect(inRollout(state, pinned)).toBe(false);
  });

  it('the revision ignores spec.rollout and changes with anything else', () => {
    const k = {
      apiVersion: 'v',
      kind: 'Katalog',
      metadata: { name: 'k' },
      spec: { crds: {}, providers: [], finalizers: [] },
    };
    const base = katalogRevision(k as never);
    expect(katalogRevision({ ...k, spec: { ...k.spec, rollout: { paused: true } } } as never)).toBe(base);
    expect(katalogRevision({ ...k, spec: { ...k.spec, finalizers: ['x'] } } as never)).not.toBe(base);
    expect(base).toMatch(/^[0-9a-f]{10}$/);
  });

  it('the revision counts an empty list or map as absent, so a new defaulted-empty field keeps it', () => {
    const k = {
      apiVersion: 'v',
      kind: 'Katalog',
      metadata: { name: 'k' },
      spec: { crds: {}, providers: [] },
    };
    const base = katalogRevision(k as never);
    expect(katalogRevision({ ...k, spec: { ...k.spec, pods: [], extra: {} } } as never)).toBe(base);
    expect(katalogRevision({ ...k, spec: { ...k.spec, pods: [{}] } } as never)).not.toBe(base);
  });
});

describe('spec.rollout schema', () => {
  it('defaults to a canary of one, one wave of 100, pause on failure', () => {
    expect(policy()).toEqual({
      canary: { count: 1 },
      waves: [100],
      readyTimeout: '10m',
      onFailure: 'pause',
      paused: false,
    });
  });
  it('rejects two canary kinds, decreasing waves and a last wave below 100', () => {
    expect(Rollout.safeParse({ canary: { count: 1, percent: 5 } }).success).toBe(false);
    expect(Rollout.safeParse({ waves: [50, 25, 100] }).success).toBe(false);
    expect(Rollout.safeParse({ waves: [25, 50] }).success).toBe(false);
  });
});
