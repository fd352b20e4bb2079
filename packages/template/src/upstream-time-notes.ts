import { cronMatches, parseCron, parseDuration } from '@orkestra/types';
import type { CronSpec } from '@orkestra/types';
import type { Clock, HelperDefinition } from './helpers.js';
import { stringForm } from './string-form.js';

/**
 * Upstream's time notes (docs/reference/katalog.md §17.6.2, ADR 0072), read on the template
 * engine's injected clock — the operator's clock at run time, the scenario's (`--now`, a
 * simulate step's time) offline. Every one works in UTC, as upstream's do. Like upstream's, they
 * return a safe zero value (`""`, `0`, `false`, `"0s"`) for input they cannot parse instead of
 * failing the template.
 */

const DAY_MS = 86_400_000;

/** Timestamps upstream's time notes accept: RFC 3339 (with or without fractions) and `YYYY-MM-DD`. */
const TIMESTAMP = /^\d{4}-\d{2}-\d{2}(?:[Tt]\d{2}:\d{2}:\d{2}(?:\.\d+)?(?:[Zz]|[+-]\d{2}:\d{2}))?$/;

/** parseTimestamp is a timestamp in epoch milliseconds, or undefined when it is not one upstream accepts. */
function parseTimestamp(value: unknown): number | undefined {
  const text = stringForm(value).trim();
  if (!TIMESTAMP.test(text)) return undefined;
  const ms = Date.parse(text.length === 10 ? `${text}T00:00:00Z` : text);
  return Number.isFinite(ms) ? ms : undefined;
}

/** parseSpan is an extended duration (Go's units, `d`, `w`, `mo` = 30d, `y` = 365d) in ms, or undefined. */
function parseSpan(value: unknown): number | undefined {
  try {
    return parseDuration(stringForm(value).trim());
  } catch {
    return undefined;
  }
}

/**
 * goDuration writes a span of milliseconds as Go's time.Duration prints it (`72h0m0s`, `1m30.5s`,
 * `250ms`), or `0s` when it is not positive; every result is a duration of docs/reference/katalog.md §1.
 */
export function goDuration(ms: number): string {
  if (!Number.isFinite(ms) || ms <= 0) return '0s';
  const whole = Math.round(ms);
  if (whole < 1000) return `${whole}ms`;
  const hours = Math.floor(whole / 3_600_000);
  const minutes = Math.floor((whole % 3_600_000) / 60_000);
  const seconds = (whole % 60_000) / 1000;
  const s = `${seconds}s`;
  if (hours > 0) return `${hours}h${minutes}m${s}`;
  if (minutes > 0) return `${minutes}m${s}`;
  return s;
}

/** minuteOfDay reads `HH:MM` (00:00–23:59) as minutes since midnight, or undefined. */
function minuteOfDay(value: unknown): number | undefined {
  const match = /^(\d{2}):(\d{2})$/.exec(stringForm(value).trim());
  if (match == null) return undefined;
  const hours = Number(match[1]);
  const minutes = Number(match[2]);
  return hours > 23 || minutes > 59 ? undefined : hours * 60 + minutes;
}

/**
 * inWindow tells whether the UTC time of `ms` is in `[after, before)`, both `HH:MM`; undefined when
 * either is malformed. As upstream's window is a plain `[after, before)`, one whose `after` is not
 * before `before` (an overnight window) contains no time.
 */
function inWindow(ms: number, after: unknown, before: unknown): boolean | undefined {
  const from = minuteOfDay(after);
  const to = minuteOfDay(before);
  if (from == null || to == null) return undefined;
  const date = new Date(ms);
  const now = date.getUTCHours() * 60 + date.getUTCMinutes();
  return now >= from && now < to;
}

const MONTHS = [
  'January',
  'February',
  'March',
  'April',
  'May',
  'June',
  'July',
  'August',
  'September',
  'October',
  'November',
  'December',
];
const DAYS = ['Sunday', 'Monday', 'Tuesday', 'Wednesday', 'Thursday', 'Friday', 'Saturday'];

/** The tokens of a Go time layout, longest first so `January` is not read as `Jan` + `uary`. */
const GO_TOKENS =
  /January|Monday|Z07:00|-07:00|2006|\.000000000|\.000000|\.000|Jan|Mon|MST|_2|01|02|03|04|05|06|15|PM|pm|1|2|3|4|5/g;

/** formatGoLayout renders epoch milliseconds in UTC with a Go time layout (`2006-01-02`, `Jan 2, 2006`). */
function formatGoLayout(ms: number, layout: string): string {
  const d = new Date(ms);
  const two = (n: number) => String(n).padStart(2, '0');
  const hour12 = d.getUTCHours() % 12 === 0 ? 12 : d.getUTCHours() % 12;
  const fraction = String(d.getUTCMilliseconds()).padStart(3, '0');
  return layout.replace(GO_TOKENS, (token) => {
    switch (token) {
      case 'January':
        return MONTHS[d.getUTCMonth()] ?? '';
      case 'Jan':
        return (MONTHS[d.getUTCMonth()] ?? '').slice(0, 3);
      case 'Monday':
        return DAYS[d.getUTCDay()] ?? '';
      case 'Mon':
        return (DAYS[d.getUTCDay()] ?? '').slice(0, 3);
      case '2006':
        return String(d.getUTCFullYear()).padStart(4, '0');
      case '06':
        return two(d.getUTCFullYear() % 100);
      case '01':
        return two(d.getUTCMonth() + 1);
      case '1':
        return String(d.getUTCMonth() + 1);
      case '02':
        return two(d.getUTCDate());
      case '_2':
        return String(d.getUTCDate()).padStart(2, ' ');
      case '2':
        return String(d.getUTCDate());
      case '15':
        return two(d.getUTCHours());
      case '03':
        return two(hour12);
      case '3':
        return String(hour12);
      case '04':
        return two(d.getUTCMinutes());
      case '4':
        return String(d.getUTCMinutes());
      case '05':
        return two(d.getUTCSeconds());
      case '5':
        return String(d.getUTCSeconds());
      case 'PM':
        return d.getUTCHours() < 12 ? 'AM' : 'PM';
      case 'pm':
        return d.getUTCHours() < 12 ? 'am' : 'pm';
      case 'MST':
        return 'UTC';
      case 'Z07:00':
        return 'Z';
      case '-07:00':
        return '+00:00';
      default: // .000, .000000, .000000000
        return `.${fraction.padEnd(token.length - 1, '0')}`;
    }
  });
}

/** nextFire is the first minute strictly after `ms` at which the schedule fires (UTC), within five years. */
function nextFire(spec: CronSpec, ms: number): number | undefined {
  const limit = ms + 5 * 366 * DAY_MS;
  const firstHour = Math.min(...spec.hours);
  const firstMinute = Math.min(...spec.minutes);
  let t = Math.floor(ms / 60_000) * 60_000 + 60_000;
  while (t <= limit) {
    const d = new Date(t);
    const day = { day: d.getUTCDate(), month: d.getUTCMonth() + 1, weekday: d.getUTCDay() };
    if (!cronMatches(spec, { ...day, hour: firstHour, minute: firstMinute })) {
      t = Date.UTC(d.getUTCFullYear(), d.getUTCMonth(), d.getUTCDate() + 1);
      continue;
    }
    if (!spec.hours.has(d.getUTCHours())) {
      t = Date.UTC(d.getUTCFullYear(), d.getUTCMonth(), d.getUTCDate(), d.getUTCHours() + 1);
      continue;
    }
    if (spec.minutes.has(d.getUTCMinutes())) return t;
    t += 60_000;
  }
  return undefined;
}

/** rfc3339 writes epoch milliseconds as an RFC 3339 UTC time to the second. */
function rfc3339(ms: number): string {
  return `${new Date(ms).toISOString().slice(0, 19)}Z`;
}

/** upstreamTimeNotes are upstream's time notes on a clock (docs/reference/katalog.md §17.6.2). */
export function upstreamTimeNotes(clock: Clock): Record<string, HelperDefinition> {
  const utcDay = () => new Date(clock.now()).getUTCDay();
  return {
    weekday: { minArgs: 0, maxArgs: 0, volatile: true, fn: () => utcDay() >= 1 && utcDay() <= 5 },
    weekend: { minArgs: 0, maxArgs: 0, volatile: true, fn: () => utcDay() === 0 || utcDay() === 6 },
    timeInWindow: {
      minArgs: 2,
      maxArgs: 2,
      volatile: true,
      fn: ([after, before]) => inWindow(clock.now(), after, before) === true,
    },
    timeNotInWindow: {
      minArgs: 2,
      maxArgs: 2,
      volatile: true,
      fn: ([after, before]) => inWindow(clock.now(), after, before) === false,
    },
    timeSince: {
      minArgs: 1,
      maxArgs: 1,
      volatile: true,
      fn: ([t]) => {
        const ms = parseTimestamp(t);
        return ms == null ? 0 : Math.floor((clock.now() - ms) / 1000);
      },
    },
    timeAgo: {
      minArgs: 1,
      maxArgs: 1,
      volatile: true,
      fn: ([t]) => {
        const ms = parseTimestamp(t);
        if (ms == null) return '';
        const seconds = Math.max(0, Math.floor((clock.now() - ms) / 1000));
        if (seconds < 60) return `${seconds}s ago`;
        if (seconds < 3600) return `${Math.floor(seconds / 60)}m ago`;
        if (seconds < 86_400) return `${Math.floor(seconds / 3600)}h ago`;
        return `${Math.floor(seconds / 86_400)}d ago`;
      },
    },
    isExpired: {
      minArgs: 2,
      maxArgs: 2,
      volatile: true,
      fn: ([t, span]) => {
        const ms = parseTimestamp(t);
        const add = parseSpan(span);
        return ms != null && add != null && ms + add < clock.now();
      },
    },
    nextCron: {
      minArgs: 1,
      maxArgs: 1,
      volatile: true,
      fn: ([expression]) => {
        let spec: CronSpec;
        try {
          spec = parseCron(stringForm(expression));
        } catch {
          return '';
        }
        const next = nextFire(spec, clock.now());
        return next == null ? '' : rfc3339(next);
      },
    },
    timeFormat: {
      minArgs: 2,
      maxArgs: 2,
      fn: ([t, layout]) => {
        const ms = parseTimestamp(t);
        return ms == null ? '' : formatGoLayout(ms, stringForm(layout));
      },
    },
    durationSeconds: {
      minArgs: 1,
      maxArgs: 1,
      fn: ([span]) => Math.floor((parseSpan(span) ?? 0) / 1000),
    },
    durationAdd: {
      minArgs: 2,
      maxArgs: 2,
      fn: ([a, b]) => {
        const x = parseSpan(a);
        const y = parseSpan(b);
        return x == null || y == null ? '0s' : goDuration(x + y);
      },
    },
    durationValid: { minArgs: 1, maxArgs: 1, fn: ([span]) => parseSpan(span) != null },
  };
}
