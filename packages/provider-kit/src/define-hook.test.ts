import { isDefinedHook } from '@orkestra/types';
import { describe, expect, it } from 'vitest';
import { defineHook } from './define-hook.js';

describe('defineHook', () => {
  it('marks the function so the operator recognises it from any copy of the kit', async () => {
    const hook = defineHook<{ zone: string }, { ready: boolean }, { record: string }>(({ cr }) => ({
      outputs: { record: `${cr.metadata.name}.${cr.spec.zone}` },
    }));
    expect(isDefinedHook(hook)).toBe(true);
    expect(isDefinedHook({ ...hook, orkestra: 'hook/v0' })).toBe(false);
    expect(isDefinedHook(() => undefined)).toBe(false);
    const result = await hook.run({
      entry: 'site',
      cr: {
        apiVersion: 'x/v1',
        kind: 'Site',
        metadata: { name: 'a', uid: 'u', generation: 1, labels: {}, annotations: {} },
        spec: { zone: 'example.com' },
        status: {},
      },
      args: {},
      context: {},
      kube: { getSecret: async () => undefined, getConfigMap: async () => undefined },
      logger: {
        debug() {},
        info() {},
        warn() {},
        error() {},
        child() {
          return this;
        },
      },
      signal: new AbortController().signal,
    });
    expect(result).toEqual({ outputs: { record: 'a.example.com' } });
  });

  it('keeps an optional onDelete step (ADR 0099) and refuses one that is not a function', async () => {
    const removed: string[] = [];
    const hook = defineHook<{ zone: string }>(() => undefined, {
      onDelete: ({ cr, args }) => {
        removed.push(`${cr.metadata.name}.${cr.spec.zone}:${JSON.stringify(args)}`);
      },
    });
    expect(isDefinedHook(hook)).toBe(true);
    expect(Object.isFrozen(hook)).toBe(true);
    await hook.onDelete?.({
      entry: 'site',
      cr: {
        apiVersion: 'x/v1',
        kind: 'Site',
        metadata: { name: 'a', uid: 'u', generation: 1, labels: {}, annotations: {} },
        spec: { zone: 'example.com' },
        status: {},
      },
      args: { keep: false },
      kube: { getSecret: async () => undefined, getConfigMap: async () => undefined },
      logger: {
        debug() {},
        info() {},
        warn() {},
        error() {},
        child() {
          return this;
        },
      },
      signal: new AbortController().signal,
    });
    expect(removed).toEqual(['a.example.com:{"keep":false}']);
    expect('onDelete' in defineHook(() => undefined)).toBe(false);
    expect(() => defineHook(() => undefined, { onDelete: 'x' as never })).toThrow(
      'defineHook expects `onDelete` to be a function',
    );
  });

  it('refuses a value that is not a function', () => {
    expect(() => defineHook(42 as never)).toThrow(TypeError);
  });
});
