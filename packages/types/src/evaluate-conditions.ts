import { cronMatches, parseCron } from './cron.js';
import type { CronSpec } from './cron.js';
import { parseDuration } from './duration.js';
import { REGEX_SUBJECT_LIMIT, compileLinearRegex } from './linear-regex.js';
import type { LinearRegex } from './linear-regex.js';
import { getPath, stringForm } from './paths.js';
import { dayIndex } from './schema/condition.js';
import type { Condition, DayOfWeek, Expected, FieldCondition, TimeWindow } from './schema/condition.js';

/** EvaluateConditionsOptions injects the clock and the template renderer. */
export interface EvaluateConditionsOptions {
  /** Source of the current time for `time`, `dayOfWeek` and `cron` conditions. Default: `() => new Date()`. */
  readonly now?: () => Date;
  /**
   * Renders a template (a `field` or expected value containing `{{`) against the context; a
   * whole-expression template should return its native value. Throwing means a render error.
   * Without it, a templated condition is false and the result says why.
   */
  readonly renderTemplate?: (template: string, context: Readonly<Record<string, unknown>>) => unknown;
}

/**
 * ConditionsResult is the outcome of a gate. When it fails, `failed` names the list, the index of the
 * failing `when` condition (`null` for `anyOf`, where none passed), and a human-readable reason.
 */
export interface ConditionsResult {
  readonly passed: boolean;
  readonly failed?: {
    readonly list: 'when' | 'anyOf';
    readonly index: number | null;
    readonly reason: string;
    /** True when a condition could not be evaluated (render error, missing renderer, invalid regex or number). */
    readonly error?: boolean;
  };
}

/** ConditionOutcome is the outcome of one condition. */
export interface ConditionOutcome {
  readonly passed: boolean;
  readonly reason: string;
  /** True when the condition could not be evaluated (it is then false whatever its `negate`). */
  readonly error?: boolean;
}

/**
 * evaluateConditions evaluates a gate (docs/reference/katalog.md §8): every `when` condition must pass and, when
 * `anyOf` is non-empty, at least one of it. Conditions are evaluated in order and `when` stops at
 * the first failure. Pure: time comes from `options.now`, templates from `options.renderTemplate`.
 *
 * @example
 * evaluateConditions({ when: [{ field: 'spec.tier', operator: 'in', value: ['gold'], negate: false }], anyOf: [] }, { spec: { tier: 'gold' } });
 * // → { passed: true }
 */
export function evaluateConditions(
  gate: { readonly when?: readonly Condition[]; readonly anyOf?: readonly Condition[] },
  context: Readonly<Record<string, unknown>>,
  options: EvaluateConditionsOptions = {},
): ConditionsResult {
  const when = gate.when ?? [];
  for (const [index, condition] of when.entries()) {
    const outcome = evaluateCondition(condition, context, options);
    if (!outcome.passed)
      return {
        passed: false,
        failed: { list: 'when', index, reason: outcome.reason, ...(outcome.error ? { error: true } : {}) },
      };
  }
  const anyOf = gate.anyOf ?? [];
  if (anyOf.length === 0) return { passed: true };
  const reasons: string[] = [];
  let error = false;
  for (const condition of anyOf) {
    const outcome = evaluateCondition(condition, context, options);
    if (outcome.passed) return { passed: true };
    reasons.push(outcome.reason);
    error ||= outcome.error === true;
  }
  return {
    passed: false,
    failed: {
      list: 'anyOf',
      index: null,
      reason: `no anyOf condition passed: ${reasons.join('; ')}`,
      ...(error ? { error: true } : {}),
    },
  };
}

/**
 * evaluateCondition evaluates one normalized condition. A condition that cannot be evaluated (render
 * error, missing renderer, invalid regex, unreadable number) is false whatever its `negate`.
 */
export function evaluateCondition(
  condition: Condition,
  context: Readonly<Record<string, unknown>>,
  options: EvaluateConditionsOptions = {},
): ConditionOutcome {
  const outcome =
    'field' in condition
      ? evaluateField(condition, context, options)
      : evaluateTime(condition, options.now?.() ?? new Date());
  if (outcome.error) return { passed: false, reason: outcome.reason, error: true };
  const passed = condition.negate ? !outcome.result : outcome.result;
  return { passed, reason: condition.negate ? `negated: ${outcome.reason}` : outcome.reason };
}

interface RawOutcome {
  readonly result: boolean;
  readonly error: boolean;
  readonly reason: string;
}

const ok = (result: boolean, reason: string): RawOutcome => ({ result, error: false, reason });
const cannot = (reason: string): RawOutcome => ({ result: false, error: true, reason });

class RenderFailure {
  readonly reason: string;
  constructor(reason: string) {
    this.reason = reason;
  }
}

function render(
  template: string,
  context: Readonly<Record<string, unknown>>,
  options: EvaluateConditionsOptions,
): unknown {
  if (options.renderTemplate == null)
    return new RenderFailure(
      `template ${JSON.stringify(template)} cannot be rendered: no renderTemplate was given`,
    );
  try {
    return options.renderTemplate(template, context);
  } catch (error) {
    return new RenderFailure(
      `template ${JSON.stringify(template)} failed to render: ${error instanceof Error ? error.message : String(error)}`,
    );
  }
}

function resolveExpected(
  value: Expected | undefined,
  context: Readonly<Record<string, unknown>>,
  options: EvaluateConditionsOptions,
): unknown {
  if (typeof value === 'string' && value.includes('{{')) return render(value, context, options);
  if (Array.isArray(value)) {
    const items: unknown[] = [];
    for (const item of value) {
      const rendered =
        typeof item === 'string' && item.includes('{{') ? render(item, context, options) : item;
      if (rendered instanceof RenderFailure) return rendered;
      items.push(rendered);
    }
    return items;
  }
  return value;
}

const DECIMAL = /^[+-]?(\d+(\.\d*)?|\.\d+)([eE][+-]?\d+)?$/;

/** readNumber reads a field as a number (docs/reference/katalog.md §8.4 rule 4): absent, null and "" count as 0. */
function readNumber(value: unknown): number | undefined {
  if (value == null || value === '') return 0;
  if (typeof value === 'number') return Number.isFinite(value) ? value : undefined;
  if (typeof value === 'string' && DECIMAL.test(value)) return Number(value);
  return undefined;
}

function readExpectedNumber(value: unknown): number | undefined {
  if (typeof value === 'number') return Number.isFinite(value) ? value : undefined;
  if (typeof value === 'string' && DECIMAL.test(value.trim())) return Number(value.trim());
  return undefined;
}

/** typeName is the type name of a raw value as `typeOf` sees it: map, slice, string, number, bool or null. */
export function typeName(value: unknown): 'map' | 'slice' | 'string' | 'number' | 'bool' | 'null' {
  if (value == null) return 'null';
  if (Array.isArray(value)) return 'slice';
  switch (typeof value) {
    case 'string':
      return 'string';
    case 'number':
    case 'bigint':
      return 'number';
    case 'boolean':
      return 'bool';
    default:
      return 'map';
  }
}

const TYPE_OPERATORS = {
  typeMap: 'map',
  typeList: 'slice',
  typeString: 'string',
  typeNumber: 'number',
  typeBool: 'bool',
  typeNull: 'null',
} as const;

const regexCache = new Map<string, LinearRegex | Error>();

/** compileRegex compiles on the linear-time engine (RE2 semantics), so no pattern or value can stall the process. */
function compileRegex(pattern: string): LinearRegex | Error {
  let compiled = regexCache.get(pattern);
  if (compiled === undefined) {
    try {
      compiled = compileLinearRegex(pattern);
    } catch (error) {
      compiled = error instanceof Error ? error : new Error(String(error));
    }
    if (regexCache.size > 1000) regexCache.clear();
    regexCache.set(pattern, compiled);
  }
  return compiled;
}

function listItems(expected: unknown): string[] {
  if (Array.isArray(expected)) return expected.map(stringForm);
  return stringForm(expected)
    .split(',')
    .map((item) => item.trim());
}

function evaluateField(
  condition: FieldCondition,
  context: Readonly<Record<string, unknown>>,
  options: EvaluateConditionsOptions,
): RawOutcome {
  const { field, operator } = condition;
  let raw: unknown;
  if (field.includes('{{')) {
    raw = render(field, context, options);
    if (raw instanceof RenderFailure) return cannot(raw.reason);
  } else raw = getPath(context, field);
  const expected = resolveExpected(condition.value, context, options);
  if (expected instanceof RenderFailure) return cannot(expected.reason);
  const text = stringForm(raw);
  const want = stringForm(expected);
  const shown = `${field} = ${JSON.stringify(text)}`;

  switch (operator) {
    case 'equals':
    case 'notEquals': {
      const equal = text === want;
      return ok(
        operator === 'equals' ? equal : !equal,
        `${shown} ${equal ? 'equals' : 'does not equal'} ${JSON.stringify(want)}`,
      );
    }
    case 'contains':
    case 'notContains': {
      const contains = Array.isArray(raw)
        ? raw.some((item) => stringForm(item) === want)
        : text.includes(want);
      return ok(
        operator === 'contains' ? contains : !contains,
        `${shown} ${contains ? 'contains' : 'does not contain'} ${JSON.stringify(want)}`,
      );
    }
    case 'prefix':
    case 'notPrefix': {
      const has = text.startsWith(want);
      return ok(
        operator === 'prefix' ? has : !has,
        `${shown} ${has ? 'starts' : 'does not start'} with ${JSON.stringify(want)}`,
      );
    }
    case 'suffix':
    case 'notSuffix': {
      const has = text.endsWith(want);
      return ok(
        operator === 'suffix' ? has : !has,
        `${shown} ${has ? 'ends' : 'does not end'} with ${JSON.stringify(want)}`,
      );
    }
    case 'regex': {
      const regex = compileRegex(want);
      if (regex instanceof Error)
        return cannot(`invalid regular expression ${JSON.stringify(want)}: ${regex.message}`);
      if (text.length > REGEX_SUBJECT_LIMIT)
        return cannot(
          `${field} is ${text.length} characters long; a regex is run on at most ${REGEX_SUBJECT_LIMIT}`,
        );
      const matches = regex.test(text);
      return ok(matches, `${shown} ${matches ? 'matches' : 'does not match'} /${want}/`);
    }
    case 'exists':
    case 'notExists': {
      const exists = raw != null && text !== '';
      return ok(
        operator === 'exists' ? exists : !exists,
        `${field} ${exists ? 'exists' : 'is absent or empty'}`,
      );
    }
    case 'gt':
    case 'lt':
    case 'gte':
    case 'lte': {
      const n = readNumber(raw);
      if (n === undefined) return cannot(`${shown} is not a number`);
      const e = readExpectedNumber(expected);
      if (e === undefined) return cannot(`expected value ${JSON.stringify(want)} is not a number`);
      const result =
        operator === 'gt' ? n > e : operator === 'lt' ? n < e : operator === 'gte' ? n >= e : n <= e;
      const symbol = { gt: '>', lt: '<', gte: '≥', lte: '≤' }[operator];
      return ok(result, `${field} = ${n} is ${result ? '' : 'not '}${symbol} ${e}`);
    }
    case 'between':
    case 'notBetween': {
      const n = readNumber(raw);
      if (n === undefined) return cannot(`${shown} is not a number`);
      const bounds = Array.isArray(expected) ? expected : stringForm(expected).split(',');
      const lo = readExpectedNumber(bounds[0]);
      const hi = readExpectedNumber(bounds[1]);
      if (bounds.length !== 2 || lo === undefined || hi === undefined)
        return cannot(`expected bounds ${JSON.stringify(want)} are not "lo,hi" numbers`);
      const inside = lo <= n && n <= hi;
      return ok(
        operator === 'between' ? inside : !inside,
        `${field} = ${n} is ${inside ? '' : 'not '}between ${lo} and ${hi}`,
      );
    }
    case 'in':
    case 'notIn': {
      const items = listItems(expected);
      const found = items.includes(text);
      return ok(
        operator === 'in' ? found : !found,
        `${shown} is ${found ? '' : 'not '}one of ${JSON.stringify(items)}`,
      );
    }
    case 'typeOf': {
      const actual = typeName(raw);
      return ok(actual === want, `${field} has type ${actual}${actual === want ? '' : `, not ${want}`}`);
    }
    case 'typeMap':
    case 'typeList':
    case 'typeString':
    case 'typeNumber':
    case 'typeBool':
    case 'typeNull': {
      const actual = typeName(raw);
      const wanted = TYPE_OPERATORS[operator];
      return ok(
        actual === wanted,
        `${field} has type ${actual}${actual === wanted ? '' : `, not ${wanted}`}`,
      );
    }
    case 'unique':
      return cannot(
        'operator unique is evaluated by validation against the cache, not by evaluateConditions',
      );
  }
}

// ---- time conditions ----------------------------------------------------------------------------------

const formatters = new Map<string, Intl.DateTimeFormat>();

/** ZonedParts holds the calendar fields of an instant in one time zone (weekday 0 = Sunday). */
export interface ZonedParts {
  readonly year: number;
  readonly month: number;
  readonly day: number;
  readonly hour: number;
  readonly minute: number;
  readonly weekday: number;
}

const WEEKDAYS = ['Sun', 'Mon', 'Tue', 'Wed', 'Thu', 'Fri', 'Sat'];

/** zonedParts returns the calendar fields of an instant in an IANA time zone. */
export function zonedParts(date: Date, timeZone: string): ZonedParts {
  let formatter = formatters.get(timeZone);
  if (formatter === undefined) {
    formatter = new Intl.DateTimeFormat('en-US', {
      timeZone,
      hourCycle: 'h23',
      year: 'numeric',
      month: 'numeric',
      day: 'numeric',
      hour: 'numeric',
      minute: 'numeric',
      weekday: 'short',
    });
    formatters.set(timeZone, formatter);
  }
  const parts: Record<string, string> = {};
  for (const part of formatter.formatToParts(date)) parts[part.type] = part.value;
  return {
    year: Number(parts['year']),
    month: Number(parts['month']),
    day: Number(parts['day']),
    hour: Number(parts['hour']) % 24,
    minute: Number(parts['minute']),
    weekday: WEEKDAYS.indexOf(parts['weekday'] ?? ''),
  };
}

function minutes(hhmm: string): number {
  const [h = '0', m = '0'] = hhmm.split(':');
  return Number(h) * 60 + Number(m);
}

function evaluateTime(condition: Exclude<Condition, FieldCondition>, now: Date): RawOutcome {
  try {
    if ('time' in condition) return evaluateWindow(condition.time, now);
    if ('dayOfWeek' in condition) return evaluateDay(condition.dayOfWeek, now);
    return evaluateCron(condition.cron, condition.duration, condition.timeZone, now);
  } catch (error) {
    return cannot(`time condition failed: ${error instanceof Error ? error.message : String(error)}`);
  }
}

function evaluateWindow(window: TimeWindow, now: Date): RawOutcome {
  const parts = zonedParts(now, window.timeZone);
  const current = parts.hour * 60 + parts.minute;
  const after = window.after === undefined ? undefined : minutes(window.after);
  const before = window.before === undefined ? undefined : minutes(window.before);
  let inside: boolean;
  if (after !== undefined && before !== undefined && after > before)
    inside = current >= after || current <= before;
  else inside = (after === undefined || current >= after) && (before === undefined || current <= before);
  const clock = `${String(parts.hour).padStart(2, '0')}:${String(parts.minute).padStart(2, '0')}`;
  return ok(
    inside,
    `time ${clock} ${window.timeZone} is ${inside ? 'inside' : 'outside'} ${window.after ?? '00:00'}–${window.before ?? '23:59'}`,
  );
}

function evaluateDay(rule: DayOfWeek, now: Date): RawOutcome {
  const { weekday } = zonedParts(now, rule.timeZone);
  const name = WEEKDAYS[weekday] ?? '?';
  const isWeekend = weekday === 0 || weekday === 6;
  let result: boolean;
  if (rule.weekday !== undefined) result = rule.weekday ? !isWeekend : isWeekend;
  else if (rule.weekend !== undefined) result = rule.weekend ? isWeekend : !isWeekend;
  else if (rule.in !== undefined) result = rule.in.some((day) => dayIndex(day) === weekday);
  else result = !(rule.notIn ?? []).some((day) => dayIndex(day) === weekday);
  return ok(result, `today is ${name} (${rule.timeZone})`);
}

const cronCache = new Map<string, CronSpec>();
const MINUTE = 60_000;
const ALL_MINUTES: ReadonlySet<number> = new Set(Array.from({ length: 60 }, (_, i) => i));
const ALL_HOURS: ReadonlySet<number> = new Set(Array.from({ length: 24 }, (_, i) => i));

/**
 * CronMinute is how one minute stands to a schedule in a time zone, for scans over minutes that
 * skip what cannot match: it `fires`, or its day (`otherDay`) or its hour (`otherHour`) has no fire
 * time, or only the minute misses; `hour` and `minute` are the local time of day.
 */
export interface CronMinute {
  readonly fires: boolean;
  readonly otherDay: boolean;
  readonly otherHour: boolean;
  readonly hour: number;
  readonly minute: number;
}

/** cronMinute tells how the minute starting at `t` (ms) stands to the schedule in `timeZone`. */
export function cronMinute(spec: CronSpec, timeZone: string, t: number): CronMinute {
  const parts = zonedParts(new Date(t), timeZone);
  const fields = {
    minute: parts.minute,
    hour: parts.hour,
    day: parts.day,
    month: parts.month,
    weekday: parts.weekday,
  };
  const fires = cronMatches(spec, fields);
  const otherDay = !fires && !cronMatches({ ...spec, minutes: ALL_MINUTES, hours: ALL_HOURS }, fields);
  return {
    fires,
    otherDay,
    otherHour: !fires && !otherDay && !spec.hours.has(parts.hour),
    hour: parts.hour,
    minute: parts.minute,
  };
}

/** lastCronFire is the latest fire time `f` (ms) of the schedule with `now - windowMs < f ≤ now`, if any. */
export function lastCronFire(
  spec: CronSpec,
  timeZone: string,
  now: number,
  windowMs: number,
): number | undefined {
  for (let t = Math.floor(now / MINUTE) * MINUTE; t > now - windowMs;) {
    const at = cronMinute(spec, timeZone, t);
    if (at.fires) return t;
    // Skip whole days and hours that cannot match, back to the last minute of the previous one.
    if (at.otherDay) t -= (at.hour * 60 + at.minute + 1) * MINUTE;
    else if (at.otherHour) t -= (at.minute + 1) * MINUTE;
    else t -= MINUTE;
  }
  return undefined;
}

function evaluateCron(
  expression: string,
  duration: string | undefined,
  timeZone: string,
  now: Date,
): RawOutcome {
  let spec = cronCache.get(expression);
  if (spec === undefined) {
    spec = parseCron(expression);
    cronCache.set(expression, spec);
  }
  // Without a duration the window lasts until the next fire time: any past fire time passes.
  const windowMs = duration === undefined ? 366 * 24 * 60 * MINUTE : parseDuration(duration);
  const fired = lastCronFire(spec, timeZone, now.getTime(), windowMs);
  if (fired != null)
    return ok(
      true,
      `cron ${expression} fired at ${new Date(fired).toISOString()}${duration === undefined ? '' : `, within ${duration}`}`,
    );
  return ok(false, `cron ${expression} has not fired within ${duration ?? 'the last year'}`);
}
