import { describe, expect, it } from 'vitest';
import { lifecycleNotices, parseDay, versionInRange } from './lifecycle.js';

describe('versionInRange', () => {
  it.each([
    ['1.30.2', '>=1.28', true],
    ['1.27.9', '>=1.28', false],
    ['v1.29.4-eks-1', '>=1.28 <1.33', true],
    ['1.33.0', '>=1.28, <1.33', false],
    ['1.28.0', '^1.28', true],
    ['2.0.0', '^1.28', false],
    ['0.7.5', '^0.7', true],
    ['0.8.0', '^0.7', false],
    ['1.28.9', '~1.28', true],
    ['1.29.0', '~1.28', false],
    ['1.29.3', '1.29', true],
    ['1.30.0', '1.29', false],
    ['1.30.0', '1.28 - 1.30', true],
    ['1.31.0', '1.28 - 1.30', false],
    ['1.25.0', '<1.26 || >=1.30', true],
    ['1.27.0', '<1.26 || >=1.30', false],
    ['1.27.0', '>= 1.26', true],
    ['0.8.0', '*', true],
  ])('%s in %s is %s', (version, range, expected) => {
    expect(versionInRange(version, range)).toBe(expected);
  });

  it('is false for a range or version that does not parse', () => {
    expect(versionInRange('1.30.0', '!!!invalid')).toBe(false);
    expect(versionInRange('latest', '>=1.0')).toBe(false);
  });
});

describe('parseDay', () => {
  it('reads YYYY-MM-DD and refuses impossible dates', () => {
    expect(parseDay('2027-01-01')?.toISOString()).toBe('2027-01-01T00:00:00.000Z');
    expect(parseDay('2026-02-30')).toBeUndefined();
    expect(parseDay('01/01/2027')).toBeUndefined();
  });
});

describe('lifecycleNotices', () => {
  const deprecated = {
    lifecycle: {
      deprecation: {
        message: 'Replaced by runner.',
        migratedTo: 'runner:v2',
        timeline: { from: '2026-11-01', to: '2027-01-01' },
      },
    },
  };

  it('counts down to the end of life with the injected clock', () => {
    const [notice] = lifecycleNotices(deprecated, new Date('2026-12-06T10:00:00Z'));
    expect(notice?.message).toBe(
      'this Katalog is deprecated: Replaced by runner; migrate to runner:v2; end of life in 26 days (2027-01-01)',
    );
  });

  it('says a Katalog is past its end of life', () => {
    const [notice] = lifecycleNotices(deprecated, new Date('2027-03-01T00:00:00Z'));
    expect(notice?.message).toContain('PAST END OF LIFE since 2027-01-01');
  });

  it('warns for alpha and beta, not for stable', () => {
    const now = new Date('2026-12-06T00:00:00Z');
    expect(lifecycleNotices({ lifecycle: { maturity: 'alpha' } }, now)[0]?.message).toMatch(/alpha/);
    expect(lifecycleNotices({ lifecycle: { maturity: 'beta' } }, now)[0]?.message).toMatch(/beta/);
    expect(lifecycleNotices({ lifecycle: { maturity: 'stable' } }, now)).toEqual([]);
  });

  it('never records publish.signing silently', () => {
    const notices = lifecycleNotices(
      { publish: { signing: { verify: true } } },
      new Date('2026-12-06T00:00:00Z'),
    );
    expect(notices).toEqual([
      {
        path: ['publish', 'signing'],
        message: 'publish.signing is recorded; Orkestra does not verify signatures of published Katalogs yet',
      },
    ]);
  });
});
