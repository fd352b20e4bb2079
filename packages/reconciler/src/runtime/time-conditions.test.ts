import type { TimeCondition } from '@orkestra/types';
import { loadKatalogOrThrow } from '@orkestra/types';
import { describe, expect, it } from 'vitest';
import {
  collectTimeConditions,
  nextConditionChange,
  nextLocalMinute,
  nextTimeConditionChange,
} from './time-conditions.js';

const at = (iso: string): number => Date.parse(iso);
const window = (after?: string, before?: string, timeZone = 'UTC', negate = false): TimeCondition => ({
  time: {
    ...(after == null ? {} : { after }),
    ...(before == null ? {} : { before }),
    timeZone,
  },
  negate,
});

describe('nextConditionChange: time windows', () => {
  it('opens at `after` and closes one minute after `before` (inclusive bound)', () => {
    const c = window('08:00', '18:00');
    expect(nextConditionChange(c, at('2025-01-06T07:30:00Z'))).toBe(at('2025-01-06T08:00:00Z'));
    expect(nextConditionChange(c, at('2025-01-06T12:00:00Z'))).toBe(at('2025-01-06T18:01:00Z'));
    expect(nextConditionChange(c, at('2025-01-06T18:30:00Z'))).toBe(at('2025-01-07T08:00:00Z'));
  });

  it('handles windows that wrap past midnight and negate', () => {
    const c = window('22:00', '02:00');
    expect(nextConditionChange(c, at('2025-01-06T23:00:00Z'))).toBe(at('2025-01-07T02:01:00Z'));
    expect(nextConditionChange(window('22:00', '02:00', 'UTC', true), at('2025-01-06T12:00:00Z'))).toBe(
      at('2025-01-06T22:00:00Z'),
    );
  });

  it('uses the time zone, also across a daylight-saving change', () => {
    // Europe/Berlin is UTC+1 in January.
    expect(nextConditionChange(window('08:00'), at('2025-01-06T06:00:00Z'))).toBe(at('2025-01-06T08:00:00Z'));
    expect(nextConditionChange(window('08:00', undefined, 'Europe/Berlin'), at('2025-01-06T06:00:00Z'))).toBe(
      at('2025-01-06T07:00:00Z'),
    );
    // Clocks go forward on 2025-03-30 at 02:00 local: 08:00 local is 06:00 UTC that day.
    expect(nextConditionChange(window('08:00', '09:00', 'Europe/Berlin'), at('2025-03-29T12:00:00Z'))).toBe(
      at('2025-03-30T06:00:00Z'),
    );
  });

  it('never changes for a window that covers the whole day', () => {
    expect(nextConditionChange(window('00:00', '23:59'), at('2025-01-06T12:00:00Z'))).toBeUndefined();
    expect(nextConditionChange(window(), at('2025-01-06T12:00:00Z'))).toBeUndefined();
  });
});

describe('nextConditionChange: dayOfWeek', () => {
  it('changes at the midnight where the result flips, skipping midnights that keep it', () => {
    const weekday: TimeCondition = { dayOfWeek: { weekday: true, timeZone: 'UTC' }, negate: false };
    // 2025-01-06 is a Monday: weekdays last until Saturday 00:00.
    expect(nextConditionChange(weekday, at('2025-01-06T10:00:00Z'))).toBe(at('2025-01-11T00:00:00Z'));
    expect(nextConditionChange(weekday, at('2025-01-11T10:00:00Z'))).toBe(at('2025-01-13T00:00:00Z'));
  });

  it('uses the time zone for midnight', () => {
    const friday: TimeCondition = {
      dayOfWeek: { in: ['fri'], timeZone: 'America/New_York' },
      negate: false,
    };
    // Thursday 2025-01-09 12:00 UTC; Friday starts at 05:00 UTC in New York (UTC-5).
    expect(nextConditionChange(friday, at('2025-01-09T12:00:00Z'))).toBe(at('2025-01-10T05:00:00Z'));
  });
});

describe('nextConditionChange: cron', () => {
  it('opens at the next fire time and closes after the duration', () => {
    const c: TimeCondition = { cron: '0 2 * * *', duration: '1h', timeZone: 'UTC', negate: false };
    expect(nextConditionChange(c, at('2025-01-06T01:00:00Z'))).toBe(at('2025-01-06T02:00:00Z'));
    expect(nextConditionChange(c, at('2025-01-06T02:30:00Z'))).toBe(at('2025-01-06T03:00:00Z'));
    expect(nextConditionChange(c, at('2025-01-06T03:00:00Z'))).toBe(at('2025-01-07T02:00:00Z'));
  });

  it('treats overlapping windows as one', () => {
    // Fires every 10 minutes, lasts 15: always true once started.
    const c: TimeCondition = { cron: '*/10 * * * *', duration: '15m', timeZone: 'UTC', negate: false };
    expect(nextConditionChange(c, at('2025-01-06T01:05:00Z'))).toBeUndefined();
  });

  it('without a duration only the first fire changes it', () => {
    const c: TimeCondition = { cron: '0 0 1 1 *', timeZone: 'UTC', negate: false };
    expect(nextConditionChange(c, at('2025-06-01T00:00:00Z'))).toBeUndefined(); // fired in January
  });

  it('skips whole days for a day-of-week schedule', () => {
    const c: TimeCondition = { cron: '30 9 * * mon', duration: '30m', timeZone: 'UTC', negate: false };
    expect(nextConditionChange(c, at('2025-01-07T00:00:00Z'))).toBe(at('2025-01-13T09:30:00Z'));
  });
});

describe('nextTimeConditionChange', () => {
  it('returns the earliest change of all conditions, undefined without any', () => {
    const conditions = [
      window('08:00', '18:00'),
      { cron: '0 * * * *', duration: '5m', timeZone: 'UTC', negate: false } as TimeCondition,
    ];
    expect(nextTimeConditionChange(conditions, at('2025-01-06T07:20:00Z'))).toBe(at('2025-01-06T08:00:00Z'));
    expect(nextTimeConditionChange(conditions, at('2025-01-06T08:01:00Z'))).toBe(at('2025-01-06T08:05:00Z'));
    expect(nextTimeConditionChange([], at('2025-01-06T08:01:00Z'))).toBeUndefined();
  });
});

describe('nextLocalMinute', () => {
  it('is strictly after the given instant', () => {
    expect(nextLocalMinute(at('2025-01-06T08:00:00Z'), 8 * 60, 'UTC')).toBe(at('2025-01-07T08:00:00Z'));
    expect(nextLocalMinute(at('2025-01-06T07:59:30Z'), 8 * 60, 'UTC')).toBe(at('2025-01-06T08:00:00Z'));
  });
});

describe('collectTimeConditions', () => {
  it('finds time conditions on entries, groups and status fields, not autoscale rules or field conditions', () => {
    const katalog = loadKatalogOrThrow({
      text: `
apiVersion: orkestra.konductor.io/v1alpha1
kind: Katalog
metadata: {name: t}
spec:
  crds:
    site:
      apiTypes: {group: example.com, version: v1, kind: Site, plural: sites}
      autoscale:
        workers: {min: 1, max: 4}
        rules:
          - name: night
            when: [{time: {after: "01:00"}}]
            do: {workers: 4}
      operatorBox:
        onReconcile:
          anyOf: [{dayOfWeek: {weekend: true}}]
          configMaps:
            - name: a
              when: [{field: spec.x, equals: "1"}, {cron: "0 2 * * *", duration: 1h}]
        status:
          fields:
            - {path: open, value: "yes", when: [{time: {after: "08:00", before: "18:00"}}]}
`,
    });
    const entry = katalog.spec.crds['site'];
    const found = collectTimeConditions(entry);
    expect(
      found
        .map((c) => Object.keys(c).find((k) => k !== 'negate' && k !== 'duration' && k !== 'timeZone'))
        .sort(),
    ).toEqual(['cron', 'dayOfWeek', 'time']);
  });
});
