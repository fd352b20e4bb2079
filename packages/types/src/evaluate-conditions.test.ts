import { describe, expect, it } from 'vitest';
import { parseCron } from './cron.js';
import { cronMinute, evaluateConditions, lastCronFire } from './evaluate-conditions.js';
import { REGEX_SUBJECT_LIMIT } from './linear-regex.js';
import { Condition } from './schema/condition.js';
import { withTemplatedRegex } from './schema/regex-policy.js';

const context = {
  spec: {
    tier: 'gold',
    replicas: 3,
    replicasText: '3',
    ratio: '2.5',
    empty: '',
    nothing: null,
    tags: ['a', 'b'],
    labels: { env: 'prod' },
    flag: true,
    name: 'shop-web',
  },
  metadata: { name: 'shop' },
};

/** check parses a written condition and evaluates it alone. */
function check(
  written: Record<string, unknown>,
  ctx: Record<string, unknown> = context,
  options = {},
): boolean {
  // Templated patterns need the Katalog's opt-in at load; these tests parse outside a Katalog.
  const condition = withTemplatedRegex(true, () => Condition.parse(written));
  return evaluateConditions({ when: [condition] }, ctx, options).passed;
}

describe('field operators', () => {
  const cases: [Record<string, unknown>, boolean][] = [
    [{ field: 'spec.tier', equals: 'gold' }, true],
    [{ field: 'spec.replicas', equals: 3 }, true],
    [{ field: 'spec.replicas', equals: '3' }, true],
    [{ field: 'spec.flag', equals: 'true' }, true],
    [{ field: 'spec.tier', notEquals: 'gold' }, false],
    [{ field: 'spec.name', contains: 'web' }, true],
    [{ field: 'spec.tags', contains: 'a' }, true],
    [{ field: 'spec.tags', contains: '"a"' }, false],
    [{ field: 'spec.tags', notContains: 'c' }, true],
    [{ field: 'spec.name', prefix: 'shop' }, true],
    [{ field: 'spec.name', hasPrefix: 'web' }, false],
    [{ field: 'spec.name', notPrefix: 'web' }, true],
    [{ field: 'spec.name', suffix: 'web' }, true],
    [{ field: 'spec.name', hasSuffix: 'shop' }, false],
    [{ field: 'spec.name', notSuffix: 'shop' }, true],
    [{ field: 'spec.name', regex: '^shop-\\w+$' }, true],
    [{ field: 'spec.name', regex: 'x' }, false],
    [{ field: 'spec.tier', exists: true }, true],
    [{ field: 'spec.tier' }, true],
    [{ field: 'spec.empty', exists: true }, false],
    [{ field: 'spec.tier', exists: false }, false],
    [{ field: 'spec.nothing', notExists: true }, true],
    [{ field: 'spec.replicas', greaterThan: 2 }, true],
    [{ field: 'spec.replicasText', gt: 2 }, true],
    [{ field: 'spec.ratio', lessThan: 3 }, true],
    [{ field: 'spec.replicas', lt: '3' }, false],
    [{ field: 'spec.replicas', gte: 3 }, true],
    [{ field: 'spec.replicas', min: 4 }, false],
    [{ field: 'spec.replicas', greaterThanOrEqual: 3 }, true],
    [{ field: 'spec.replicas', lte: 3 }, true],
    [{ field: 'spec.replicas', max: 2 }, false],
    [{ field: 'spec.replicas', lessThanOrEqual: 2 }, false],
    [{ field: 'spec.replicas', between: '1,3' }, true],
    [{ field: 'spec.replicas', between: [4, 5] }, false],
    [{ field: 'spec.replicas', notBetween: [4, 5] }, true],
    [{ field: 'spec.tier', in: 'silver, gold' }, true],
    [{ field: 'spec.tier', in: ['silver'] }, false],
    [{ field: 'spec.tier', notIn: ['silver'] }, true],
    [{ field: 'spec.labels', operator: 'typeOf', value: 'map' }, true],
    [{ field: 'spec.tags', operator: 'typeOf', value: 'slice' }, true],
    [{ field: 'spec.labels', operator: 'typeMap' }, true],
    [{ field: 'spec.tags', operator: 'typeList' }, true],
    [{ field: 'spec.tier', operator: 'typeString' }, true],
    [{ field: 'spec.replicas', operator: 'typeNumber' }, true],
    [{ field: 'spec.flag', operator: 'typeBool' }, true],
    [{ field: 'spec.nothing', operator: 'typeNull' }, true],
    [{ field: 'spec.replicas', operator: 'lte', value: 10 }, true],
    [{ field: 'spec.tier', value: 'gold' }, true],
    [{ field: 'spec.tier', equals: 'gold', negate: true }, false],
    [{ field: '.spec.tags.1', equals: 'b' }, true],
    [{ field: 'spec.labels.env', equals: 'prod' }, true],
  ];
  for (const [written, expected] of cases) {
    it(`${JSON.stringify(written)} → ${expected}`, () => {
      expect(check(written)).toBe(expected);
    });
  }
});

describe('missing fields (docs/reference/katalog.md §8.4)', () => {
  const cases: [Record<string, unknown>, boolean][] = [
    [{ field: 'spec.missing', equals: '' }, true],
    [{ field: 'spec.missing', equals: 'x' }, false],
    [{ field: 'spec.missing', notEquals: 'x' }, true],
    [{ field: 'spec.missing', in: ',Pending' }, true],
    [{ field: 'spec.missing', notIn: ['a'] }, true],
    [{ field: 'spec.missing', prefix: 'x' }, false],
    [{ field: 'spec.missing', prefix: '' }, true],
    [{ field: 'spec.missing', notPrefix: 'x' }, true],
    [{ field: 'spec.missing', suffix: 'x' }, false],
    [{ field: 'spec.missing', contains: 'x' }, false],
    [{ field: 'spec.missing', notContains: 'x' }, true],
    [{ field: 'spec.missing', regex: '^$' }, true],
    [{ field: 'spec.missing', exists: true }, false],
    [{ field: 'spec.missing', notExists: true }, true],
    [{ field: 'spec.missing', gt: -1 }, true],
    [{ field: 'spec.missing', lt: 1 }, true],
    [{ field: 'spec.missing', gte: 0 }, true],
    [{ field: 'spec.missing', lte: 0 }, true],
    [{ field: 'spec.empty', equals: 0 }, false],
    [{ field: 'spec.empty', gte: 0 }, true],
    [{ field: 'spec.nothing', lte: 0 }, true],
    [{ field: 'spec.missing', between: '0,1' }, true],
    [{ field: 'spec.missing', notBetween: '1,2' }, true],
    [{ field: 'spec.missing', operator: 'typeNull' }, true],
    [{ field: 'spec.missing', operator: 'typeOf', value: 'null' }, true],
    [{ field: 'spec.tags.5', exists: true }, false],
    [{ field: 'spec.tier.deeper', exists: true }, false],
  ];
  for (const [written, expected] of cases) {
    it(`${JSON.stringify(written)} → ${expected}`, () => {
      expect(check(written)).toBe(expected);
    });
  }

  it('makes numeric operators false for values that are not numbers, even negated', () => {
    expect(check({ field: 'spec.tier', gt: 1 })).toBe(false);
    expect(check({ field: 'spec.tier', gt: 1, negate: true })).toBe(false);
    expect(check({ field: 'spec.tier', notBetween: '1,2' })).toBe(false);
    expect(check({ field: 'spec.replicas', gt: 'many' })).toBe(false);
    expect(check({ field: 'spec.flag', lt: 5 })).toBe(false);
  });
});

describe('gates', () => {
  const when = [
    Condition.parse({ field: 'spec.tier', equals: 'gold' }),
    Condition.parse({ field: 'spec.replicas', gt: 5 }),
  ];
  it('reports the first failing when condition', () => {
    const result = evaluateConditions({ when }, context);
    expect(result.passed).toBe(false);
    expect(result.failed).toMatchObject({ list: 'when', index: 1 });
    expect(result.failed?.reason).toContain('spec.replicas = 3 is not > 5');
  });
  it('passes empty gates and needs one anyOf condition', () => {
    expect(evaluateConditions({}, context)).toEqual({ passed: true });
    expect(evaluateConditions({ when: [], anyOf: [] }, context).passed).toBe(true);
    expect(evaluateConditions({ anyOf: [when[1]!, when[0]!] }, context).passed).toBe(true);
    const failed = evaluateConditions({ anyOf: [when[1]!] }, context);
    expect(failed.failed).toMatchObject({ list: 'anyOf', index: null });
  });
});

describe('templates', () => {
  const renderTemplate = (template: string, ctx: Readonly<Record<string, unknown>>): unknown => {
    if (template === '{{ len spec.tags }}') return (ctx['spec'] as { tags: unknown[] }).tags.length;
    if (template === '{{ boom }}') throw new Error('helper boom failed');
    return template.replace('{{ metadata.name }}', 'shop');
  };
  it('renders templated fields and expected values through the injected renderer', () => {
    expect(check({ field: '{{ len spec.tags }}', greaterThan: 1 }, context, { renderTemplate })).toBe(true);
    expect(check({ field: '{{ len spec.tags }}', operator: 'typeNumber' }, context, { renderTemplate })).toBe(
      true,
    );
    expect(
      check({ field: 'spec.name', equals: '{{ metadata.name }}-web' }, context, { renderTemplate }),
    ).toBe(true);
  });
  it('is false with a reason without a renderer or on a render error', () => {
    const result = evaluateConditions(
      { when: [Condition.parse({ field: '{{ len spec.tags }}', gt: 0 })] },
      context,
    );
    expect(result.passed).toBe(false);
    expect(result.failed?.reason).toContain('no renderTemplate');
    const failing = evaluateConditions(
      { when: [Condition.parse({ field: '{{ boom }}', exists: false })] },
      context,
      { renderTemplate },
    );
    expect(failing.failed?.reason).toContain('helper boom failed');
  });
  it('makes a templated regex that does not compile false', () => {
    const render = (): unknown => '(';
    expect(
      check({ field: 'spec.name', regex: '{{ spec.pattern }}' }, context, { renderTemplate: render }),
    ).toBe(false);
    expect(
      check({ field: 'spec.name', regex: '{{ spec.pattern }}', negate: true }, context, {
        renderTemplate: render,
      }),
    ).toBe(false);
  });
});

describe('regex runs in linear time (docs/reference/katalog.md §8.3)', () => {
  // The review's inputs: 30 × "a" + "!" took 39 s with `^(a+)+$` and 58 s with `^(a|a)*$` on V8.
  const evil = `${'a'.repeat(30)}!`;

  it.each([
    ['a nested quantifier', '^(a+)+$', undefined],
    ['an ambiguous alternation', '^(a|a)*$', undefined],
    ['a templated ambiguous alternation', '{{ spec.pattern }}', () => '^(a|a)*$'],
  ])('finishes the review ReDoS input with %s at once', (_what, regex, renderTemplate) => {
    const started = performance.now();
    const options = renderTemplate == null ? {} : { renderTemplate };
    expect(check({ field: 'spec.name', regex }, { spec: { name: evil } }, options)).toBe(false);
    // A generous bound: the backtracking engine needs tens of seconds here.
    expect(performance.now() - started).toBeLessThan(2000);
  });

  it('refuses a value longer than the subject limit, whatever negate says', () => {
    const ctx = { spec: { name: 'a'.repeat(REGEX_SUBJECT_LIMIT + 1) } };
    const result = evaluateConditions({ when: [Condition.parse({ field: 'spec.name', regex: 'a' })] }, ctx);
    expect(result.passed).toBe(false);
    expect(result.failed?.reason).toBe(
      `spec.name is ${REGEX_SUBJECT_LIMIT + 1} characters long; a regex is run on at most ${REGEX_SUBJECT_LIMIT}`,
    );
    expect(check({ field: 'spec.name', regex: 'a', negate: true }, ctx)).toBe(false);
    expect(
      check({ field: 'spec.name', regex: 'a' }, { spec: { name: 'a'.repeat(REGEX_SUBJECT_LIMIT) } }),
    ).toBe(true);
  });

  it('refuses lookaround and backreferences at parse, and a templated one at run time', () => {
    for (const pattern of ['^(?=a)a', '(?<=a)b', '(a)\\1'])
      expect(() => Condition.parse({ field: 'spec.name', regex: pattern })).toThrow(/RE2 syntax/);
    const render = (): unknown => '(?!x)';
    expect(
      check({ field: 'spec.name', regex: '{{ spec.pattern }}' }, context, { renderTemplate: render }),
    ).toBe(false);
  });

  it('refuses a templated pattern unless the Katalog allows it', () => {
    expect(() => Condition.parse({ field: 'spec.name', regex: '{{ spec.pattern }}' })).toThrow(
      /spec\.allowTemplatedRegex/,
    );
  });
});

describe('time conditions', () => {
  // 2026-11-30 is a Monday.
  const at = (iso: string) => ({ now: () => new Date(iso) });
  it('time windows are inclusive and wrap past midnight', () => {
    const window = { time: { after: '08:00', before: '18:00' } };
    expect(check(window, context, at('2026-11-30T08:00:00Z'))).toBe(true);
    expect(check(window, context, at('2026-11-30T18:00:59Z'))).toBe(true);
    expect(check(window, context, at('2026-11-30T18:01:00Z'))).toBe(false);
    const night = { time: { after: '22:00', before: '06:00' } };
    expect(check(night, context, at('2026-11-30T23:30:00Z'))).toBe(true);
    expect(check(night, context, at('2026-11-30T05:59:00Z'))).toBe(true);
    expect(check(night, context, at('2026-11-30T12:00:00Z'))).toBe(false);
  });
  it('time windows use the time zone', () => {
    const berlin = { time: { after: '08:00', before: '09:00', timeZone: 'Europe/Berlin' } };
    expect(check(berlin, context, at('2026-11-30T07:30:00Z'))).toBe(true);
    expect(check(berlin, context, at('2026-11-30T08:30:00Z'))).toBe(false);
  });
  it('dayOfWeek matches weekday, weekend and day names', () => {
    const monday = at('2026-11-30T12:00:00Z');
    expect(check({ dayOfWeek: { weekday: true } }, context, monday)).toBe(true);
    expect(check({ dayOfWeek: { weekend: true } }, context, monday)).toBe(false);
    expect(check({ dayOfWeek: { weekday: false } }, context, at('2026-11-29T12:00:00Z'))).toBe(true);
    expect(check({ dayOfWeek: { in: ['Mon', 'friday'] } }, context, monday)).toBe(true);
    expect(check({ dayOfWeek: { notIn: ['mon'] } }, context, monday)).toBe(false);
    expect(
      check(
        { dayOfWeek: { in: ['sun'], timeZone: 'Pacific/Auckland' } },
        context,
        at('2026-11-29T12:00:00Z'),
      ),
    ).toBe(false);
  });
  it('cron passes within duration after a fire time', () => {
    const nightly = { cron: '0 1 * * *', duration: '2h' };
    expect(check(nightly, context, at('2026-11-30T01:00:00Z'))).toBe(true);
    expect(check(nightly, context, at('2026-11-30T02:59:00Z'))).toBe(true);
    expect(check(nightly, context, at('2026-11-30T03:00:00Z'))).toBe(false);
    expect(check({ ...nightly, negate: true }, context, at('2026-11-30T03:00:00Z'))).toBe(true);
    expect(
      check(
        { cron: '0 9 * * mon-fri', duration: '1h', timeZone: 'Europe/Berlin' },
        context,
        at('2026-11-30T08:30:00Z'),
      ),
    ).toBe(true);
    expect(check({ cron: '@hourly' }, context, at('2026-11-30T08:30:00Z'))).toBe(true);
  });
});

describe('lastCronFire', () => {
  const at = (iso: string): number => Date.parse(iso);
  const DAY = 24 * 60 * 60_000;

  it('skips hours and days that cannot fire without skipping their last minute', () => {
    expect(lastCronFire(parseCron('59 * * * *'), 'UTC', at('2025-01-06T10:30:00Z'), DAY)).toBe(
      at('2025-01-06T09:59:00Z'),
    );
    expect(lastCronFire(parseCron('59 23 * * *'), 'UTC', at('2025-01-06T10:30:00Z'), DAY)).toBe(
      at('2025-01-05T23:59:00Z'),
    );
    expect(lastCronFire(parseCron('0 12 * * *'), 'UTC', at('2025-01-06T10:30:00Z'), DAY / 2)).toBeUndefined();
  });

  it('tells a firing minute from one whose day or hour cannot fire, in the time zone', () => {
    const spec = parseCron('30 9 * * 1');
    expect(cronMinute(spec, 'Europe/Berlin', at('2025-01-06T08:30:00Z'))).toMatchObject({ fires: true });
    expect(cronMinute(spec, 'Europe/Berlin', at('2025-01-07T08:30:00Z'))).toMatchObject({
      fires: false,
      otherDay: true,
    });
    expect(cronMinute(spec, 'Europe/Berlin', at('2025-01-06T10:30:00Z'))).toMatchObject({
      otherDay: false,
      otherHour: true,
      hour: 11,
    });
  });
});
