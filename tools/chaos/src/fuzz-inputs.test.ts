import { join } from 'node:path';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { applyMutation, fuzzInputArb, pathsOf, readExamples } from './fuzz-inputs.js';

const examplesDir = join(import.meta.dirname, '../../../examples');

describe('fuzz inputs', () => {
  it('reads every example that has CRs', () => {
    const names = readExamples(examplesDir).map((e) => e.name);
    expect(names).toContain('website');
    expect(names.length).toBeGreaterThanOrEqual(5);
  });

  it('mutates a copy at the chosen path and leaves the original alone', () => {
    const original = { a: { b: [1, 2] }, c: 'x' };
    expect(pathsOf(original)).toEqual([[], ['a'], ['a', 'b'], ['a', 'b', 0], ['a', 'b', 1], ['c']]);
    expect(applyMutation(original, { op: 'replace', at: 3, value: 'y' })).toEqual({
      a: { b: ['y', 2] },
      c: 'x',
    });
    expect(applyMutation(original, { op: 'delete', at: 5 })).toEqual({ a: { b: [1, 2] } });
    expect(applyMutation(original, { op: 'duplicate', at: 4 })).toEqual({ a: { b: [1, 2, 2] }, c: 'x' });
    expect(applyMutation(original, { op: 'add', at: 1, key: 'k', value: null })).toEqual({
      a: { b: [1, 2], k: null },
      c: 'x',
    });
    expect(original).toEqual({ a: { b: [1, 2] }, c: 'x' });
  });

  it('is reproducible for a seed', () => {
    const arb = fuzzInputArb(readExamples(examplesDir));
    expect(fc.sample(arb, { seed: 7, numRuns: 20 })).toEqual(fc.sample(arb, { seed: 7, numRuns: 20 }));
  });
});
