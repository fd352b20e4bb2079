import { describe, expect, it } from 'vitest';
import { createTemplateEngine } from './template-engine.js';
import type { TemplateContext } from './template-engine.js';

/** The engine's clock: every time note reads it, never the system clock. */
let now = Date.parse('2026-12-07T17:59:30Z'); // a Monday
const engine = createTemplateEngine({ clock: { now: () => now } });
const render = (source: string, context: TemplateContext = {}): unknown =>
  engine.compileTemplate(source).render(context);
const text = (source: string, context: TemplateContext = {}): string =>
  engine.renderTemplate(source, context) as string;

describe('upstream time notes on the injected clock (docs/reference/katalog.md §17.6.2)', () => {
  it('weekday and weekend follow the clock’s UTC day', () => {
    now = Date.parse('2026-12-07T10:00:00Z'); // Monday
    expect([render('{{ weekday }}'), render('{{ weekend }}')]).toEqual([true, false]);
    now = Date.parse('2026-12-05T23:59:59Z'); // Saturday (UTC), Sunday in Tokyo
    expect([render('{{ weekday }}'), render('{{ weekend }}')]).toEqual([false, true]);
    now = Date.parse('2026-12-06T23:30:00-05:00'); // Sunday in New York, Monday 04:30 UTC
    expect(render('{{ weekday }}')).toBe(true);
  });

  it('timeInWindow is [after, before) in UTC; timeNotInWindow its complement; malformed is false for both', () => {
    now = Date.parse('2026-12-07T09:00:00Z');
    expect(render('{{ timeInWindow "09:00" "18:00" }}')).toBe(true);
    now = Date.parse('2026-12-07T17:59:59Z');
    expect(render('{{ timeInWindow "09:00" "18:00" }}')).toBe(true);
    now = Date.parse('2026-12-07T18:00:00Z');
    expect(render('{{ timeInWindow "09:00" "18:00" }}')).toBe(false);
    expect(render('{{ timeNotInWindow "09:00" "18:00" }}')).toBe(true);
    now = Date.parse('2026-12-07T08:59:59Z');
    expect(render('{{ timeInWindow "09:00" "18:00" }}')).toBe(false);
    expect(render('{{ timeInWindow "9am" "18:00" }}')).toBe(false);
    expect(render('{{ timeNotInWindow "9am" "18:00" }}')).toBe(false);
    expect(String(text('{{ and (timeInWindow "08:00" "18:00") weekday }}'))).toBe('true');
  });

  it('timeSince, timeAgo, isExpired and timeUntil measure from the clock; unparseable input gives the zero value', () => {
    now = Date.parse('2026-12-07T12:00:00Z');
    expect(render('{{ timeSince "2026-12-07T11:58:30Z" }}')).toBe(90);
    expect(render('{{ timeSince "yesterday" }}')).toBe(0);
    expect(render('{{ timeAgo "2026-12-07T11:59:55Z" }}')).toBe('5s ago');
    expect(render('{{ timeAgo "2026-12-07T11:48:00Z" }}')).toBe('12m ago');
    expect(render('{{ timeAgo "2026-12-07T09:00:00+00:00" }}')).toBe('3h ago');
    expect(render('{{ timeAgo "2026-12-05" }}')).toBe('2d ago');
    expect(render('{{ timeAgo "soon" }}')).toBe('');
    expect(render('{{ isExpired "2026-11-07T11:59:59Z" "30d" }}')).toBe(true);
    expect(render('{{ isExpired "2026-11-07T12:00:00Z" "30d" }}')).toBe(false); // due now: not yet past
    expect(render('{{ isExpired "2026-11-07T12:00:00Z" "thirty days" }}')).toBe(false);
    expect(render('{{ timeUntil "2026-12-10T12:00:00Z" }}')).toBe('72h0m0s');
  });

  it('nextCron is the next fire time after the clock, in UTC, or "" for a bad expression', () => {
    now = Date.parse('2026-12-07T12:00:00Z'); // Monday
    expect(render('{{ nextCron "0 2 * * 0" }}')).toBe('2026-12-13T02:00:00Z');
    expect(render('{{ nextCron "0 12 * * 1" }}')).toBe('2026-12-14T12:00:00Z'); // strictly after now
    expect(render('{{ nextCron "*/15 * * * *" }}')).toBe('2026-12-07T12:15:00Z');
    expect(render('{{ nextCron "0 0 29 2 *" }}')).toBe('2028-02-29T00:00:00Z');
    expect(render('{{ nextCron "every day" }}')).toBe('');
  });

  it('timeFormat takes a Go layout; the duration notes take Go units plus d, w, mo and y', () => {
    expect(render('{{ timeFormat "2026-04-13T15:04:05Z" "Jan 2, 2006" }}')).toBe('Apr 13, 2026');
    expect(render('{{ timeFormat "2026-04-03T15:04:05Z" "2006-01-02 15:04 Monday" }}')).toBe(
      '2026-04-03 15:04 Friday',
    );
    expect(render('{{ timeFormat "2026-04-03T15:04:05Z" "3:04PM" }}')).toBe('3:04PM');
    expect(render('{{ timeFormat "not a time" "2006" }}')).toBe('');
    expect(render('{{ durationSeconds "1h30m" }}')).toBe(5400);
    expect(render('{{ durationSeconds "7d" }}')).toBe(604800);
    expect(render('{{ durationSeconds "soon" }}')).toBe(0);
    expect(render('{{ durationAdd "5m" "30s" }}')).toBe('5m30s');
    expect(render('{{ durationAdd "5m" "x" }}')).toBe('0s');
    expect([render('{{ durationValid "30d" }}'), render('{{ durationValid "5 days" }}')]).toEqual([
      true,
      false,
    ]);
  });
});
