/** CronSpec is a parsed five-field cron schedule. */
export interface CronSpec {
  readonly minutes: ReadonlySet<number>;
  readonly hours: ReadonlySet<number>;
  readonly daysOfMonth: ReadonlySet<number>;
  readonly months: ReadonlySet<number>;
  readonly daysOfWeek: ReadonlySet<number>;
  /** True when the day-of-month field is `*` (standard cron: then only day-of-week restricts, and vice versa). */
  readonly anyDayOfMonth: boolean;
  readonly anyDayOfWeek: boolean;
}

const MACROS: Readonly<Record<string, string>> = {
  '@yearly': '0 0 1 1 *',
  '@annually': '0 0 1 1 *',
  '@monthly': '0 0 1 * *',
  '@weekly': '0 0 * * 0',
  '@daily': '0 0 * * *',
  '@midnight': '0 0 * * *',
  '@hourly': '0 * * * *',
};

const MONTHS = ['jan', 'feb', 'mar', 'apr', 'may', 'jun', 'jul', 'aug', 'sep', 'oct', 'nov', 'dec'];
const DAYS = ['sun', 'mon', 'tue', 'wed', 'thu', 'fri', 'sat'];

const FIELDS = [
  { name: 'minute', min: 0, max: 59, names: null },
  { name: 'hour', min: 0, max: 23, names: null },
  { name: 'day of month', min: 1, max: 31, names: null },
  { name: 'month', min: 1, max: 12, names: MONTHS },
  { name: 'day of week', min: 0, max: 7, names: DAYS },
] as const;

/** parseCron parses a five-field cron expression or a macro (`@hourly`, `@daily`, …); it throws a TypeError with a readable message on bad input. */
export function parseCron(expression: string): CronSpec {
  const text = expression.trim();
  const expanded = MACROS[text.toLowerCase()] ?? text;
  if (expanded.startsWith('@')) throw new TypeError(`unknown cron macro ${text}`);
  const parts = expanded.split(/\s+/);
  if (parts.length !== 5)
    throw new TypeError(
      `cron schedule ${JSON.stringify(expression)} must have five fields (minute hour day-of-month month day-of-week), found ${parts.length}`,
    );
  const sets = parts.map((part, index) => parseField(part, FIELDS[index as 0 | 1 | 2 | 3 | 4]));
  const daysOfWeek = new Set([...(sets[4] ?? [])].map((day) => (day === 7 ? 0 : day)));
  return {
    minutes: sets[0] ?? new Set(),
    hours: sets[1] ?? new Set(),
    daysOfMonth: sets[2] ?? new Set(),
    months: sets[3] ?? new Set(),
    daysOfWeek,
    anyDayOfMonth: parts[2] === '*' || parts[2] === '?',
    anyDayOfWeek: parts[4] === '*' || parts[4] === '?',
  };
}

/** validateCron returns why a cron expression is invalid, or undefined when it is valid. */
export function validateCron(expression: string): string | undefined {
  try {
    parseCron(expression);
    return undefined;
  } catch (error) {
    return error instanceof Error ? error.message : String(error);
  }
}

/** CronTimeParts are the calendar fields a cron schedule is matched against. */
export interface CronTimeParts {
  readonly minute: number;
  readonly hour: number;
  readonly day: number;
  readonly month: number;
  readonly weekday: number;
}

/** cronMatches tells whether a minute (given as calendar fields) is a fire time of the schedule. */
export function cronMatches(spec: CronSpec, parts: CronTimeParts): boolean {
  if (!spec.minutes.has(parts.minute) || !spec.hours.has(parts.hour) || !spec.months.has(parts.month))
    return false;
  const dom = spec.daysOfMonth.has(parts.day);
  const dow = spec.daysOfWeek.has(parts.weekday);
  if (spec.anyDayOfMonth && spec.anyDayOfWeek) return true;
  if (spec.anyDayOfMonth) return dow;
  if (spec.anyDayOfWeek) return dom;
  return dom || dow;
}

function parseField(text: string, field: (typeof FIELDS)[number]): Set<number> {
  const values = new Set<number>();
  for (const item of text.split(',')) {
    const match = /^(\*|\?|[^/-]+(?:-[^/-]+)?)(?:\/(\d+))?$/.exec(item);
    if (match == null) throw new TypeError(`invalid ${field.name} field ${JSON.stringify(text)}`);
    const [, range = '', stepText] = match;
    const step = stepText == null ? 1 : Number(stepText);
    if (step < 1) throw new TypeError(`invalid step in ${field.name} field ${JSON.stringify(text)}`);
    let low: number = field.min;
    let high: number = field.max;
    if (range !== '*' && range !== '?') {
      const [from = '', to] = range.split('-');
      low = value(from, field, text);
      high = to == null ? (stepText == null ? low : field.max) : value(to, field, text);
      if (high < low) throw new TypeError(`${field.name} range ${range} runs backwards`);
    }
    for (let v = low; v <= high; v += step) values.add(v);
  }
  return values;
}

function value(text: string, field: (typeof FIELDS)[number], whole: string): number {
  const named = field.names?.indexOf(text.toLowerCase() as never) ?? -1;
  if (named >= 0) return named + (field.min === 1 ? 1 : 0);
  if (!/^\d+$/.test(text))
    throw new TypeError(`invalid ${field.name} value ${JSON.stringify(text)} in ${JSON.stringify(whole)}`);
  const n = Number(text);
  if (n < field.min || n > field.max)
    throw new TypeError(`${field.name} value ${n} is out of range ${field.min}-${field.max}`);
  return n;
}
