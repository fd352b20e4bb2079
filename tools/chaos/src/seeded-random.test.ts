import { describe, expect, it } from 'vitest';
import { seededRandom } from './seeded-random.js';

describe('seededRandom', () => {
  it('repeats for a seed, differs between seeds, and stays in [0, 1)', () => {
    const a = Array.from({ length: 100 }, seededRandom(1));
    expect(Array.from({ length: 100 }, seededRandom(1))).toEqual(a);
    expect(Array.from({ length: 100 }, seededRandom(2))).not.toEqual(a);
    expect(a.every((x) => x >= 0 && x < 1)).toBe(true);
  });
});
