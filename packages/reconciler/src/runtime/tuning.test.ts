import { describe, expect, it } from 'vitest';
import { DRIFT_LIMIT_DEFAULTS } from './drift-limiter.js';
import { RUNTIME_TUNING_DEFAULTS, resolveTuning } from './tuning.js';

describe('resolveTuning', () => {
  it('gives every knob its documented default (docs/reference/runtime.md §22)', () => {
    expect(resolveTuning()).toEqual({
      maxConcurrentWrites: 8,
      reconcileTimeoutMs: 300_000,
      watchIdleTimeoutMs: 300_000,
      syncTimeoutMs: 120_000,
      resyncMs: undefined,
      resyncSkipRecent: true,
      namespace: undefined,
      operatorNamespace: 'orkestra-system',
      workDir: undefined,
      maxWorkDirBytes: 1024 ** 3,
      maxConcurrentBuilds: 1,
      gitPollTickMs: undefined,
      allowLinkLocal: false,
      allowPrivateAddresses: [],
      driftLimit: DRIFT_LIMIT_DEFAULTS,
    });
    expect(resolveTuning()).toEqual(RUNTIME_TUNING_DEFAULTS);
  });

  it('keeps what is given, treats undefined as left out, and merges the drift limit field by field', () => {
    const resolved = resolveTuning({
      maxConcurrentWrites: 16,
      reconcileTimeoutMs: undefined,
      resyncMs: 0,
      namespace: 'shop',
      driftLimit: { maxCorrections: 2 },
    });
    expect(resolved.maxConcurrentWrites).toBe(16);
    expect(resolved.reconcileTimeoutMs).toBe(300_000);
    expect(resolved.resyncMs).toBe(0);
    expect(resolved.namespace).toBe('shop');
    expect(resolved.driftLimit).toEqual({ ...DRIFT_LIMIT_DEFAULTS, maxCorrections: 2 });
  });

  it('is idempotent, so a resolved tuning can be passed on', () => {
    const once = resolveTuning({ watchIdleTimeoutMs: 5000, driftLimit: { windowMs: 10 } });
    expect(resolveTuning(once)).toEqual(once);
  });

  it('rejects a write or build limit that is not a positive integer, naming the knob', () => {
    expect(() => resolveTuning({ maxConcurrentWrites: 0 })).toThrow(
      'tuning.maxConcurrentWrites must be a positive integer, got 0',
    );
    expect(() => resolveTuning({ maxConcurrentBuilds: 1.5 })).toThrow(/tuning\.maxConcurrentBuilds/);
  });
});
