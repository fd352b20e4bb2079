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

  it('keeps an optional onDelete step (ADR 0109) and refuses one that is not a function', async () => {
    const released: string[] = [];
    const reconciler = defineReconciler<{ title: string }>(() => undefined, {
      onDelete: ({ cr, key }) => {
        released.push(`${key} ${cr.spec.title}`);
      },
    });
    await reconciler.onDelete?.({ key: 'shop/a', cr: { spec: { title: 'Bye' } } } as never);
    expect(released).toEqual(['shop/a Bye']);
    expect('onDelete' in defineReconciler(() => undefined)).toBe(false);
    expect(() => defineReconciler(() => undefined, { onDelete: 'x' as never })).toThrow(
      'defineReconciler expects `onDelete` to be a function',
    );
  });
});
