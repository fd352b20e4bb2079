import { describe, expect, it } from 'vitest';
import { subjectOf } from './certificates.js';

describe('subjectOf', () => {
  it('puts one O per group before the CN', () => {
    expect(subjectOf('alice', ['system:masters', 'team'])).toBe('/O=system:masters/O=team/CN=alice');
    expect(subjectOf('bob')).toBe('/CN=bob');
  });

  it('escapes characters openssl treats as separators', () => {
    expect(subjectOf('a/b+c=d')).toBe('/CN=a\\/b\\+c\\=d');
  });
});
