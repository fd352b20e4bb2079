import { isDefinedHook, isDefinedReconciler } from '@orkestra/types';
import { describe, expect, it } from 'vitest';
import { defineReconciler } from './define-reconciler.js';

describe('defineReconciler', () => {
  it('marks the function as a module reconciler, not a hook, and freezes the value', async () => {
    const reconciler = defineReconciler<{ title: string }, { phase: string }>(({ cr }) => ({
      resources: [{ type: 'configmap', fields: { name: cr.metadata.name } }],
      status: { phase: cr.spec.title },
    }));
    expect(isDefinedReconciler(reconciler)).toBe(true);
    expect(isDefinedHook(reconciler)).toBe(false);
    expect(Object.isFrozen(reconciler)).toBe(true);
    const result = await reconciler.run({
      cr: { spec: { title: 'Ready' }, metadata: { name: 'a' } },
    } as never);
    expect(result).toEqual({
      resources: [{ type: 'configmap', fields: { name: 'a' } }],
      status: { phase: 'Ready' },
    });
  });

  it('refuses something that is not a function', () => {
    expect(() => defineReconciler(42 as never)).toThrow(TypeError);
  });
});
