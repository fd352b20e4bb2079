import { describe, expect, it } from 'vitest';
import { countWrites, requestDelta } from './request-delta.js';

describe('requestDelta and countWrites', () => {
  it('subtracts readings and sums the writes, optionally of one kind', () => {
    const delta = requestDelta(
      { 'apply ConfigMap': 2, 'patch Shop': 1, 'list /api/v1/configmaps': 1 },
      {
        'apply ConfigMap': 5,
        'patch Shop': 1,
        'create Event': 2,
        'list /api/v1/configmaps': 3,
        'get Secret': 4,
      },
    );
    expect(delta).toEqual({
      'apply ConfigMap': 3,
      'create Event': 2,
      'list /api/v1/configmaps': 2,
      'get Secret': 4,
    });
    expect(countWrites(delta)).toBe(5);
    expect(countWrites(delta, 'ConfigMap')).toBe(3);
  });
});
