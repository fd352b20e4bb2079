import { describe, expect, it } from 'vitest';
import { isCi } from './is-ci.js';

describe('isCi', () => {
  it('is true for CI=true and CI=1 only', () => {
    expect(isCi({ CI: 'true' })).toBe(true);
    expect(isCi({ CI: 'TRUE' })).toBe(true);
    expect(isCi({ CI: '1' })).toBe(true);
    expect(isCi({ CI: 'false' })).toBe(false);
    expect(isCi({})).toBe(false);
  });
});
