import { describe, expect, it } from 'vitest';
import { rolloutView } from './katalog-view.js';

describe('rolloutView', () => {
  it('is null without revisions', () => {
    expect(rolloutView(undefined)).toBeNull();
  });

  it('keeps where the rollout stands and drops what a viewer has no use for (CR UIDs, selector)', () => {
    const state = {
      stable: 'aaaaaaaaaa',
      target: 'bbbbbbbbbb',
      phase: 'Failed',
      step: 0,
      paused: false,
      message: 'canary: Website shop/a not Ready after 10m',
      rolledBack: ['uid-1'],
      selector: { tier: 'canary' },
      stepStartedAt: 1,
    };
    expect(rolloutView(state)).toEqual({
      stable: 'aaaaaaaaaa',
      target: 'bbbbbbbbbb',
      phase: 'Failed',
      step: 0,
      paused: false,
      message: 'canary: Website shop/a not Ready after 10m',
    });
  });
});
