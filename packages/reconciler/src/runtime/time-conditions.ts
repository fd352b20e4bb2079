/**
 * Timed re-queues for time conditions (docs/reference/katalog.md §8.5, docs/reference/runtime.md §16): the next instant at which
 * a `time`, `dayOfWeek` or `cron` condition can change its value, so windows open and close on
 * time instead of at the next resync.
 */
import {
  cronMinute,
  evaluateCondition,
  lastCronFire,
  parseCron,
  parseDuration,
  zonedParts,
} from '@orkestra/types';
import type { Condition, CronSpec, TimeCondition } from '@orkestra/types';

const MINUTE = 60_000;
const DAY = 24 * 60 * MINUTE;
/** How far ahead a change is looked for; later changes are left to resync. */
const HORIZON_MS = 366 * DAY;
/** Upcoming cron fire times examined per condition. */
const MAX_CRON_FIRES = 64;
const GATE_KEYS = new Set(['when', 'anyOf', 'or']);

/**
 * collectTimeConditions returns every time condition in the `when`, `anyOf` and `or` lists found
 * anywhere in a CRD entry (entries, groups, status fields, provider declarations, rules), except
 * under `autoscale`, whose rules gate the autoscaler, not the CR. Time conditions do not depend on
 * the CR, so the list is computed once per entry.
 *
 * @example
 * const conditions = collectTimeConditions(crd.entry);
 */
export function collectTimeConditions(entry: unknown): TimeCondition[] {
  const out: TimeCondition[] = [];
  const seen = new Set<object>();
  const visit = (node: unknown, key: string | undefined): void => {
    if (node == null || typeof node !== 'object' || seen.has(node)) return;
    seen.add(node);
    if (Array.isArray(node)) {
      for (const item of node) {
        if (key != null && GATE_KEYS.has(key) && isTimeCondition(item)) out.push(item);
        else visit(item, undefined);
      }
      return;
    }
    for (const [childKey, value] of Object.entries(node)) {
      if (childKey === 'autoscale') continue;
      visit(value, childKey);
    }
  };
  visit(entry, undefined);
  return out;
}

/** isTimeCondition tells whether a normalized condition is a `time`, `dayOfWeek` or `cron` condition. */
function isTimeCondition(value: unknown): value is TimeCondition {
  if (value == null || typeof value !== 'object') return false;
  return 'time' in value || 'dayOfWeek' in value || 'cron' in value;
}

/**
 * nextTimeConditionChange returns the earliest instant (epoch ms) after `now` at which any of the
 * conditions changes its value, or undefined when none changes within a year.
 *
 * @example
 * nextTimeConditionChange([{ time: { after: '08:00', before: '18:00', timeZone: 'UTC' }, negate: false }], Date.parse('2025-01-06T07:30:00Z'));
 * // → Date.parse('2025-01-06T08:00:00Z')
 */
export function nextTimeConditionChange(
  conditions: readonly TimeCondition[],
  now: number,
): number | undefined {
  let best: number | undefined;
  for (const condition of conditions) {
    const next = nextConditionChange(condition, now);
    if (next != null && (best == null || next < best)) best = next;
  }
  return best;
}

/** nextConditionChange returns the first instant after `now` at which one time condition changes its value. */
export function nextConditionChange(condition: TimeCondition, now: number): number | undefined {
  // `negate` inverts the value, not the instants where it changes.
  const next = 'cron' in condition ? cronNextChange(condition, now) : windowOrDayNextChange(condition, now);
  return next != null && next > now && next <= now + HORIZON_MS ? next : undefined;
}

function windowOrDayNextChange(condition: TimeCondition, now: number): number | undefined {
  const candidates = candidatesOf(condition, now)
    .filter((t) => t > now)
    .sort((a, b) => a - b);
  if (candidates.length === 0) return undefined;
  const valueAt = (t: number): boolean =>
    evaluateCondition(condition as Condition, {}, { now: () => new Date(t) }).passed;
  const current = valueAt(now);
  // Every instant where the value can change is a candidate, so the value is constant between
  // consecutive candidates and the first candidate with a different value is the next change.
  return candidates.find((t) => valueAt(t) !== current);
}

function candidatesOf(condition: TimeCondition, now: number): number[] {
  if ('time' in condition) {
    const { after, before, timeZone } = condition.time;
    const targets: number[] = [];
    if (after != null) targets.push(minutesOf(after));
    if (before != null) targets.push((minutesOf(before) + 1) % 1440);
    const out: number[] = [];
    for (const target of targets) {
      const first = nextLocalMinute(now, target, timeZone);
      out.push(first, nextLocalMinute(first, target, timeZone));
    }
    return out;
  }
  if ('dayOfWeek' in condition) {
    const out: number[] = [];
    let t = now;
    for (let i = 0; i < 8; i++) {
      t = nextLocalMinute(t, 0, condition.dayOfWeek.timeZone);
      out.push(t);
    }
    return out;
  }
  return [];
}

/**
 * cronNextChange: the condition holds on the union of the intervals [fire, fire + duration); the
 * value changes where that union starts or ends. Without a duration a window lasts until the next
 * fire, so only the first fire after a year without one changes it.
 */
function cronNextChange(
  condition: Extract<TimeCondition, { readonly cron: string }>,
  now: number,
): number | undefined {
  let spec: CronSpec;
  try {
    spec = parseCron(condition.cron);
  } catch {
    return undefined;
  }
  const { timeZone } = condition;
  const until = now + HORIZON_MS;
  if (condition.duration == null) {
    if (lastCronFire(spec, timeZone, now, HORIZON_MS) != null) return undefined;
    return nextFire(spec, timeZone, now, until);
  }
  const durationMs = parseDurationSafe(condition.duration);
  if (durationMs == null || durationMs <= 0) return undefined;
  const last = lastCronFire(spec, timeZone, now, durationMs);
  if (last == null) return nextFire(spec, timeZone, now, until); // outside: the next window opens it
  let end = last + durationMs;
  let t = now;
  for (let i = 0; i < MAX_CRON_FIRES; i++) {
    const fire = nextFire(spec, timeZone, t, Math.min(end, until));
    if (fire == null) return end; // no fire before the window ends: it closes then
    end = Math.max(end, fire + durationMs);
    t = fire;
  }
  return undefined; // overlapping windows as far as we look: left to resync
}

/** nextFire is the first minute after `after` (and not after `until`) that the schedule fires in `timeZone`. */
function nextFire(spec: CronSpec, timeZone: string, after: number, until: number): number | undefined {
  let t = Math.floor(after / MINUTE) * MINUTE + MINUTE;
  while (t <= until) {
    const at = cronMinute(spec, timeZone, t);
    if (at.fires) return t;
    if (at.otherDay) t = nextLocalMinute(t, 0, timeZone);
    else if (at.otherHour) t += (60 - at.minute) * MINUTE;
    else t += MINUTE;
  }
  return undefined;
}

/**
 * nextLocalMinute is the first minute boundary strictly after `after` whose local time of day in
 * `timeZone` is `target` minutes past midnight. Across a daylight-saving change the estimate is
 * corrected by the offset difference; a local time that does not exist that day yields the
 * instant the clocks skip to.
 */
export function nextLocalMinute(after: number, target: number, timeZone: string): number {
  const start = Math.floor(after / MINUTE) * MINUTE + MINUTE;
  const local = localMinutes(start, timeZone);
  let candidate = start + ((target - local + 1440) % 1440) * MINUTE;
  const drift = signedMinutes(target - localMinutes(candidate, timeZone));
  if (drift !== 0) {
    const corrected = candidate + drift * MINUTE;
    if (corrected > after && localMinutes(corrected, timeZone) === target) candidate = corrected;
    else if (corrected <= after) candidate = corrected + DAY;
  }
  return candidate;
}

function signedMinutes(diff: number): number {
  const d = ((diff % 1440) + 1440) % 1440;
  return d >= 720 ? d - 1440 : d;
}

function localMinutes(t: number, timeZone: string): number {
  const parts = zonedParts(new Date(t), timeZone);
  return parts.hour * 60 + parts.minute;
}

function minutesOf(hhmm: string): number {
  const [h = '0', m = '0'] = hhmm.split(':');
  return Number(h) * 60 + Number(m);
}

function parseDurationSafe(text: string): number | undefined {
  try {
    return parseDuration(text);
  } catch {
    return undefined;
  }
}
