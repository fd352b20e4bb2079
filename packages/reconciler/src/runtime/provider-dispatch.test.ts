import { describe, expect, it } from 'vitest';
import { MAX_PROVIDER_OUTPUT_BYTES, hashSpec, outputsProblem } from './provider-dispatch.js';

describe('hashSpec', () => {
  it('ignores key order and changes with any value', () => {
    expect(hashSpec({ a: 1, b: { c: [1, 2] } })).toBe(hashSpec({ b: { c: [1, 2] }, a: 1 }));
    expect(hashSpec({ a: 1 })).not.toBe(hashSpec({ a: 2 }));
    expect(hashSpec({ a: 1 })).toMatch(/^sha256:[0-9a-f]{64}$/);
  });

  it('keeps the value stored records hold (pinned: sorted keys, lists in order, escapes)', () => {
    const spec = {
      z: [1, 'two', null, true, { b: 2, a: [] }],
      é: 'ü',
      A: { y: 1.5, x: -0, '"q"': 'line\nbreak' },
      a: {},
    };
    expect(hashSpec(spec)).toBe('sha256:2c91b7d89e0d7e6f4a2507bb0dd05fba64db10c2bbee475adc4e399fe40d4c83');
  });
});

describe('outputsProblem', () => {
  it('accepts a small JSON object', () => {
    expect(outputsProblem({ bucket: 'b', tags: ['x'], n: 1, ok: true, none: null })).toBeUndefined();
  });

  it('rejects reserved keys, non-objects, non-JSON values and outputs over 16 KiB', () => {
    expect(outputsProblem({ ready: true })).toMatch(/"ready" is reserved/);
    expect(outputsProblem({ message: 'x' })).toMatch(/"message" is reserved/);
    expect(outputsProblem(['x'])).toMatch(/JSON object/);
    expect(outputsProblem({ when: new Date(0) })).toMatch(/must be JSON/);
    expect(outputsProblem({ n: Number.NaN })).toMatch(/must be JSON/);
    expect(outputsProblem({ big: 'x'.repeat(MAX_PROVIDER_OUTPUT_BYTES) })).toMatch(/at most 16384/);
  });
});
