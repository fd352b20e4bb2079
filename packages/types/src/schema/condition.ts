import { z } from 'zod';
import { compileLinearRegex } from '../linear-regex.js';
import { templatedRegexAllowed } from './regex-policy.js';
import { Duration } from '../duration.js';
import { validateCron } from '../cron.js';
import { checkTemplateSource } from './template-check.js';
import { isTemplate } from './primitives.js';
import { NotifyInput } from './notification.js';
import type { Notify } from './notification.js';

/** Operator lists every comparison operator of docs/reference/katalog.md §8.3. */
export const Operator = z.enum([
  'equals',
  'notEquals',
  'contains',
  'notContains',
  'prefix',
  'notPrefix',
  'suffix',
  'notSuffix',
  'regex',
  'exists',
  'notExists',
  'gt',
  'lt',
  'gte',
  'lte',
  'between',
  'notBetween',
  'in',
  'notIn',
  'typeOf',
  'typeMap',
  'typeList',
  'typeString',
  'typeNumber',
  'typeBool',
  'typeNull',
  'unique',
]);
/** Operator is one comparison operator. */
export type Operator = z.infer<typeof Operator>;

/** SHORTHAND_OPERATORS maps each shorthand key to its operator (`exists: false` means `notExists`). */
export const SHORTHAND_OPERATORS = {
  equals: 'equals',
  notEquals: 'notEquals',
  contains: 'contains',
  notContains: 'notContains',
  prefix: 'prefix',
  hasPrefix: 'prefix',
  notPrefix: 'notPrefix',
  suffix: 'suffix',
  hasSuffix: 'suffix',
  notSuffix: 'notSuffix',
  regex: 'regex',
  exists: 'exists',
  notExists: 'notExists',
  greaterThan: 'gt',
  gt: 'gt',
  lessThan: 'lt',
  lt: 'lt',
  greaterThanOrEqual: 'gte',
  gte: 'gte',
  min: 'gte',
  lessThanOrEqual: 'lte',
  lte: 'lte',
  max: 'lte',
  between: 'between',
  notBetween: 'notBetween',
  in: 'in',
  notIn: 'notIn',
} as const satisfies Record<string, Operator>;

const NO_VALUE_OPERATORS: ReadonlySet<Operator> = new Set([
  'exists',
  'notExists',
  'typeMap',
  'typeList',
  'typeString',
  'typeNumber',
  'typeBool',
  'typeNull',
  'unique',
]);

const Scalar = z.union([z.string(), z.number(), z.boolean()], {
  error: (issue) =>
    issue.input === null
      ? 'expected a value; write "" to compare with the empty string'
      : 'expected a string, number or boolean',
});

/** Expected is an expected value: a scalar, or a list of scalars (for `in`, `notIn`, `between`, `notBetween`). */
export const Expected = z.union([z.string(), z.number(), z.boolean(), z.array(Scalar)], {
  error: (issue) =>
    issue.input === null
      ? 'expected a value; write "" to compare with the empty string'
      : 'expected a string, number, boolean or a list of them',
});
/** Expected is an expected value. */
export type Expected = z.infer<typeof Expected>;

const HHMM = /^([01]\d|2[0-3]):[0-5]\d$/;
const TimeOfDay = z.string().regex(HHMM, { error: 'expected a time of day "HH:MM" (24-hour)' });

/** TimeZone is an IANA time zone name, checked against the runtime's Intl data. */
export const TimeZone = z.string().superRefine((value, ctx) => {
  try {
    new Intl.DateTimeFormat('en-US', { timeZone: value });
  } catch {
    ctx.addIssue({
      code: 'custom',
      message: `unknown time zone ${JSON.stringify(value)} (expected an IANA name such as Europe/Berlin)`,
      input: value,
    });
  }
});

/** TimeWindow is the `time` condition: a time-of-day window, inclusive, wrapping past midnight when `after` > `before`. */
export const TimeWindow = z.strictObject({
  after: TimeOfDay.optional(),
  before: TimeOfDay.optional(),
  timeZone: TimeZone.default('UTC'),
});
/** TimeWindow is a time-of-day window. */
export type TimeWindow = z.infer<typeof TimeWindow>;

const DAY_NAMES = ['sun', 'mon', 'tue', 'wed', 'thu', 'fri', 'sat'];
const FULL_DAY_NAMES = ['sunday', 'monday', 'tuesday', 'wednesday', 'thursday', 'friday', 'saturday'];
const DayName = z.string().superRefine((value, ctx) => {
  const lower = value.toLowerCase();
  if (!DAY_NAMES.includes(lower) && !FULL_DAY_NAMES.includes(lower)) {
    ctx.addIssue({
      code: 'custom',
      message: `unknown day ${JSON.stringify(value)} (expected e.g. mon or Monday)`,
      input: value,
    });
  }
});

/** dayIndex returns 0 (Sunday) … 6 (Saturday) for an English day name, full or three-letter. */
export function dayIndex(name: string): number {
  const lower = name.toLowerCase();
  const short = DAY_NAMES.indexOf(lower);
  return short >= 0 ? short : FULL_DAY_NAMES.indexOf(lower);
}

/** DayOfWeek is the `dayOfWeek` condition: exactly one of `weekday`, `weekend`, `in`, `notIn`. */
export const DayOfWeek = z
  .strictObject({
    weekday: z.boolean().optional(),
    weekend: z.boolean().optional(),
    in: z.array(DayName).optional(),
    notIn: z.array(DayName).optional(),
    timeZone: TimeZone.default('UTC'),
  })
  .superRefine((value, ctx) => {
    const set = (['weekday', 'weekend', 'in', 'notIn'] as const).filter((key) => value[key] !== undefined);
    if (set.length !== 1) {
      ctx.addIssue({
        code: 'custom',
        message: `dayOfWeek needs exactly one of weekday, weekend, in, notIn (found ${set.length === 0 ? 'none' : set.join(', ')})`,
        input: value,
      });
    }
  });
/** DayOfWeek is a day-of-week condition. */
export type DayOfWeek = z.infer<typeof DayOfWeek>;

const CronExpression = z.string().superRefine((value, ctx) => {
  const problem = validateCron(value);
  if (problem != null) ctx.addIssue({ code: 'custom', message: problem, input: value });
});

const shorthandShape = Object.fromEntries(
  Object.keys(SHORTHAND_OPERATORS).map((key) => [
    key,
    key === 'exists' || key === 'notExists' ? z.boolean().optional() : Expected.optional(),
  ]),
) as {
  [K in keyof typeof SHORTHAND_OPERATORS]: K extends 'exists' | 'notExists'
    ? z.ZodOptional<z.ZodBoolean>
    : z.ZodOptional<typeof Expected>;
};

/** conditionShape is the input shape of one condition (field comparison or time condition). */
export const conditionShape = {
  field: z.string().optional(),
  operator: Operator.optional(),
  value: Expected.optional(),
  negate: z.boolean().optional(),
  ...shorthandShape,
  time: TimeWindow.optional(),
  dayOfWeek: DayOfWeek.optional(),
  cron: CronExpression.optional(),
  duration: Duration.optional(),
  timeZone: TimeZone.optional(),
  /** The teams told when this condition passes (docs/reference/katalog.md §15.4). */
  notify: NotifyInput.optional(),
};

type ConditionInput = z.output<z.ZodObject<typeof conditionShape>>;

/** FieldCondition is a field comparison after normalization: shorthand keys become `operator` + `value`. */
export interface FieldCondition {
  readonly field: string;
  readonly operator: Operator;
  /** Absent for operators that take no value (`exists`, the type operators, `unique`). */
  readonly value?: Expected;
  readonly negate: boolean;
  /** The teams told when the condition passes (docs/reference/katalog.md §15.4). */
  readonly notify?: Notify;
}

/** TimeCondition is a `time`, `dayOfWeek` or `cron` condition after normalization. */
export type TimeCondition =
  | { readonly time: TimeWindow; readonly negate: boolean }
  | { readonly dayOfWeek: DayOfWeek; readonly negate: boolean }
  | {
      readonly cron: string;
      readonly duration?: string;
      readonly timeZone: string;
      readonly negate: boolean;
    };

/** Condition is one normalized condition (docs/reference/katalog.md §8.2). */
export type Condition = FieldCondition | (TimeCondition & { readonly notify?: Notify });

/** conditionOperator returns the operator a condition input names, or undefined when it names none. */
function comparisons(
  input: ConditionInput,
): { key: string; operator: Operator; value: Expected | undefined }[] {
  const found: { key: string; operator: Operator; value: Expected | undefined }[] = [];
  for (const [key, operator] of Object.entries(SHORTHAND_OPERATORS)) {
    const value = input[key as keyof typeof SHORTHAND_OPERATORS];
    if (value === undefined) continue;
    if (key === 'exists' || key === 'notExists') {
      const positive = value === true;
      found.push({
        key,
        operator: positive === (key === 'exists') ? 'exists' : 'notExists',
        value: undefined,
      });
    } else found.push({ key, operator, value });
  }
  if (input.operator !== undefined)
    found.push({ key: 'operator', operator: input.operator, value: input.value });
  return found;
}

/**
 * refineCondition checks one condition input (exactly one comparison, time keys alone, literal
 * regex patterns compile on the linear-time engine, templated ones only when the Katalog allows
 * them, `unique` only where allowed) and reports issues at the offending key.
 */
export function refineCondition(
  input: ConditionInput,
  ctx: z.RefinementCtx,
  options: { allowUnique: boolean; requireField: boolean },
): void {
  const timeKeys = (['time', 'dayOfWeek', 'cron'] as const).filter((key) => input[key] !== undefined);
  const found = comparisons(input);
  if (timeKeys.length > 0) {
    if (timeKeys.length > 1)
      ctx.addIssue({
        code: 'custom',
        message: `a condition has exactly one of time, dayOfWeek, cron (found ${timeKeys.join(', ')}); write two conditions`,
        path: [timeKeys[1] ?? 'time'],
        input,
      });
    if (input.field !== undefined || found.length > 0 || input.value !== undefined) {
      ctx.addIssue({
        code: 'custom',
        message: `a time condition (${timeKeys[0]}) cannot also compare a field; write two conditions`,
        path: [input.field !== undefined ? 'field' : (found[0]?.key ?? 'value')],
        input,
      });
    }
  } else {
    if (input.field === undefined) {
      ctx.addIssue({
        code: 'custom',
        message: 'a condition needs `field` (or one of time, dayOfWeek, cron)',
        input,
      });
      return;
    }
    if (found.length > 1) {
      ctx.addIssue({
        code: 'custom',
        message: `a condition has exactly one comparison, found ${found.map((f) => f.key).join(' and ')}; write two conditions`,
        path: [found[1]?.key ?? 'operator'],
        input,
      });
    }
    if (input.value !== undefined && found.length > 0 && found[0]?.key !== 'operator') {
      ctx.addIssue({
        code: 'custom',
        message: `\`value\` goes with \`operator\`, not with the shorthand \`${found[0]?.key}\``,
        path: ['value'],
        input,
      });
    }
    const only = found[0];
    if (only?.key === 'operator' && !NO_VALUE_OPERATORS.has(only.operator) && input.value === undefined) {
      ctx.addIssue({
        code: 'custom',
        message: `operator ${only.operator} needs a \`value\``,
        path: ['operator'],
        input,
      });
    }
    if (only?.operator === 'unique' && !options.allowUnique) {
      ctx.addIssue({
        code: 'custom',
        message: 'operator unique is only allowed in validation rules',
        path: ['operator'],
        input,
      });
    }
    if (only?.operator === 'regex' && typeof only.value === 'string') {
      const path = [only.key === 'operator' ? 'value' : only.key];
      if (!isTemplate(only.value)) {
        try {
          compileLinearRegex(only.value);
        } catch (error) {
          ctx.addIssue({
            code: 'custom',
            message: `invalid regular expression: ${error instanceof Error ? error.message : String(error)}`,
            path,
            input,
          });
        }
      } else if (!templatedRegexAllowed()) {
        ctx.addIssue({
          code: 'custom',
          message:
            'a templated regex pattern is built from CR data at run time; write it literally, or set spec.allowTemplatedRegex: true on the Katalog to allow it (it then runs on the same linear-time engine)',
          path,
          input,
        });
      }
    }
    if (isTemplate(input.field)) reportTemplate(input.field, ctx, ['field']);
    const expected = only?.value;
    for (const [index, item] of (Array.isArray(expected) ? expected : [expected]).entries()) {
      if (isTemplate(item))
        reportTemplate(
          item,
          ctx,
          Array.isArray(expected)
            ? [only?.key === 'operator' ? 'value' : (only?.key ?? 'value'), index]
            : [only?.key === 'operator' ? 'value' : (only?.key ?? 'value')],
        );
    }
  }
  if (input.cron === undefined) {
    if (input.duration !== undefined)
      ctx.addIssue({ code: 'custom', message: '`duration` goes with `cron`', path: ['duration'], input });
    if (input.timeZone !== undefined)
      ctx.addIssue({
        code: 'custom',
        message:
          '`timeZone` at condition level goes with `cron` (time and dayOfWeek take their own timeZone)',
        path: ['timeZone'],
        input,
      });
  }
  if (options.requireField && input.field === undefined) {
    ctx.addIssue({ code: 'custom', message: 'a validation rule needs `field`', input });
  }
}

function reportTemplate(source: string, ctx: z.RefinementCtx, path: (string | number)[]): void {
  const message = checkTemplateSource(source);
  if (message != null)
    ctx.addIssue({ code: 'custom', message: `template error: ${message}`, path, input: source });
}

/** normalizeCondition turns a checked condition input into its normalized form. */
export function normalizeCondition(input: ConditionInput): Condition {
  const condition = normalizeComparison(input);
  return input.notify === undefined ? condition : { ...condition, notify: input.notify };
}

function normalizeComparison(input: ConditionInput): Condition {
  const negate = input.negate ?? false;
  if (input.time !== undefined) return { time: input.time, negate };
  if (input.dayOfWeek !== undefined) return { dayOfWeek: input.dayOfWeek, negate };
  if (input.cron !== undefined) {
    return {
      cron: input.cron,
      ...(input.duration === undefined ? {} : { duration: input.duration }),
      timeZone: input.timeZone ?? 'UTC',
      negate,
    };
  }
  const found = comparisons(input)[0];
  if (found === undefined) {
    if (input.value !== undefined)
      return { field: input.field ?? '', operator: 'equals', value: input.value, negate };
    return { field: input.field ?? '', operator: 'exists', negate };
  }
  return {
    field: input.field ?? '',
    operator: found.operator,
    ...(found.value === undefined ? {} : { value: found.value }),
    negate,
  };
}

/** Condition is the zod schema of one condition: accepts every written form and outputs the normalized one. */
export const Condition = z
  .strictObject(conditionShape)
  .superRefine((input, ctx) => refineCondition(input, ctx, { allowUnique: false, requireField: false }))
  .transform((input): Condition => normalizeCondition(input))
  .meta({ id: 'Condition' });

/** ConditionList is a list of conditions (`when`, `anyOf`). */
export const ConditionList = z.array(Condition).meta({ id: 'ConditionList' });

/** Gate is a normalized `when` + `anyOf` pair (docs/reference/katalog.md §8.1); `or` has been folded into `anyOf`. */
export interface Gate {
  readonly when: readonly Condition[];
  readonly anyOf: readonly Condition[];
}

/** gateShape is the input keys of a gate: `when`, `anyOf` and its alias `or`. */
export const gateShape = {
  when: ConditionList.optional(),
  anyOf: ConditionList.optional(),
  or: ConditionList.optional(),
};

/** GateInput is the input form of a gate. */
export interface GateInput {
  when?: Condition[] | undefined;
  anyOf?: Condition[] | undefined;
  or?: Condition[] | undefined;
}

/** checkGate reports a block that uses both `anyOf` and its alias `or`. */
export function checkGate(value: GateInput, ctx: z.RefinementCtx): void {
  if (value.anyOf !== undefined && value.or !== undefined) {
    ctx.addIssue({
      code: 'custom',
      message: '`or` is an alias of `anyOf`; use one of them, not both',
      path: ['or'],
      input: value,
    });
  }
}

/** normalizeGate folds `or` into `anyOf` and defaults both lists to []. */
export function normalizeGate<T extends GateInput>(
  value: T,
): Omit<T, 'or' | 'when' | 'anyOf'> & { when: Condition[]; anyOf: Condition[] } {
  const { or, when, anyOf, ...rest } = value;
  return { ...rest, when: when ?? [], anyOf: anyOf ?? or ?? [] };
}

/** gated builds a strict object schema with the gate keys added and normalized. */
export function gated<S extends z.core.$ZodLooseShape>(shape: S) {
  return z
    .strictObject({ ...shape, ...gateShape })
    .superRefine((value, ctx) => checkGate(value as GateInput, ctx))
    .transform((value) => normalizeGate(value as typeof value & GateInput));
}

/** Gate is the zod schema of a standalone gate (`{when, anyOf}` or `{when, or}`), e.g. autoscale's single-rule `conditions`. */
export const Gate = gated({});
