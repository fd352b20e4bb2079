import { describe, expect, it } from 'vitest';
import { canonicalQuantity, parseQuantity } from './quantity.js';

describe('parseQuantity', () => {
  it.each([
    ['500m', 500_000_000n],
    [0.5, 500_000_000n],
    ['1', 1_000_000_000n],
    ['1k', 1_000_000_000_000n],
    ['1Ki', 1024n * 1_000_000_000n],
    ['1e3', 1_000_000_000_000n],
    ['1n', 1n],
    ['-2', -2_000_000_000n],
  ])('%s', (text, nanos) => {
    expect(parseQuantity(text)).toBe(nanos);
  });

  it('rejects text that is not a quantity', () => {
    expect(parseQuantity('lots')).toBeUndefined();
    expect(parseQuantity('1 Gi')).toBeUndefined();
  });

  it('gives equal values equal canonical keys', () => {
    expect(canonicalQuantity('1Gi')).toBe(canonicalQuantity('1024Mi'));
    expect(canonicalQuantity('0.5')).toBe(canonicalQuantity('500m'));
    expect(canonicalQuantity('1G')).not.toBe(canonicalQuantity('1Gi'));
  });
});
