import { describe, expect, it } from 'vitest';
import { mbPerThousand, median, percentile, perCrHour, ratio, round, spread } from './stats.js';

describe('percentile', () => {
  it('uses the nearest rank', () => {
    const samples = [50, 10, 40, 20, 30];
    expect(percentile(samples, 50)).toBe(30);
    expect(percentile(samples, 99)).toBe(50);
    expect(percentile(samples, 0)).toBe(10);
    expect(percentile(samples, 20)).toBe(10);
    expect(percentile(samples, 21)).toBe(20);
  });

  it('needs 100 samples before p99 is not the maximum', () => {
    const samples = Array.from({ length: 100 }, (_, i) => i + 1);
    expect(percentile(samples, 99)).toBe(99);
    expect(percentile(samples, 50)).toBe(50);
  });

  it('is undefined without samples and rejects a bad p', () => {
    expect(percentile([], 50)).toBeUndefined();
    expect(() => percentile([1], 101)).toThrow(RangeError);
  });

  it('does not reorder its input', () => {
    const samples = [3, 1, 2];
    percentile(samples, 50);
    expect(samples).toEqual([3, 1, 2]);
  });
});

describe('ratio and round', () => {
  it('divides, or gives null for a missing or non-positive denominator', () => {
    expect(ratio(6, 4)).toBe(1.5);
    expect(ratio(null, 4)).toBeNull();
    expect(ratio(6, undefined)).toBeNull();
    expect(ratio(6, 0)).toBeNull();
  });

  it('rounds to the requested decimals and keeps null', () => {
    expect(round(1.23456, 2)).toBe(1.23);
    expect(round(1.235, 1)).toBe(1.2);
    expect(round(null)).toBeNull();
    expect(round(Number.NaN)).toBeNull();
  });
});

describe('per-CR scaling', () => {
  it('scales requests in a window to requests per CR per hour', () => {
    expect(perCrHour(10, 100, 60_000)).toBeCloseTo(6);
    expect(perCrHour(0, 100, 60_000)).toBe(0);
    expect(perCrHour(10, 0, 60_000)).toBeNull();
  });

  it('scales bytes for N CRs to MiB per 1 000 CRs', () => {
    expect(mbPerThousand(10 * 1_048_576, 100)).toBeCloseTo(100);
    expect(mbPerThousand(1_048_576, 0)).toBeNull();
  });
});

describe('median and spread', () => {
  it('takes the middle sample, or the mean of the two middle ones, ignoring missing values', () => {
    expect(median([3, 1, 2])).toBe(2);
    expect(median([4, 1, 3, 2])).toBe(2.5);
    expect(median([null, 5, undefined, Number.NaN])).toBe(5);
    expect(median([])).toBeNull();
  });

  it('reports the range and how many rounds measured the figure', () => {
    expect(spread([1200, 900, null, 1500])).toEqual({ median: 1200, min: 900, max: 1500, n: 3 });
    expect(spread([null])).toEqual({ median: null, min: null, max: null, n: 0 });
  });
});
