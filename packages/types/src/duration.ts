import { z } from 'zod';
import { DurationError } from './errors.js';

const UNIT_MS = {
  ms: 1,
  s: 1000,
  m: 60_000,
  h: 3_600_000,
  d: 86_400_000,
  w: 7 * 86_400_000,
  mo: 30 * 86_400_000,
  y: 365 * 86_400_000,
} as const;

/** DURATION_PATTERN is the duration grammar of docs/reference/katalog.md §1 as a regular expression (also used in the JSON Schema). */
export const DURATION_PATTERN = '^(?:0|(?:(?:\\d+(?:\\.\\d+)?|\\.\\d+)(?:ms|mo|s|m|h|d|w|y))+)$';

const WHOLE = new RegExp(DURATION_PATTERN);
const PAIR = /(\d+(?:\.\d+)?|\.\d+)(ms|mo|s|m|h|d|w|y)/g;

/** isDuration tells whether `text` follows the duration grammar. */
export function isDuration(text: unknown): text is string {
  return typeof text === 'string' && WHOLE.test(text);
}

/**
 * parseDuration turns a duration (`500ms`, `90s`, `1h30m`, `1.5d`, `90d`, `0`) into milliseconds:
 * `m` is minutes, `mo` 30 days, `y` 365 days. The number `0` is accepted too. Throws a
 * DurationError on anything else.
 */
export function parseDuration(text: string | number): number {
  if (text === 0 || text === '0') return 0;
  if (!isDuration(text)) throw new DurationError(text);
  let total = 0;
  for (const match of text.matchAll(PAIR)) {
    total += Number(match[1]) * UNIT_MS[match[2] as keyof typeof UNIT_MS];
  }
  return Math.round(total * 1000) / 1000;
}

/**
 * Duration is the zod schema of a duration field: a string following the grammar of
 * docs/reference/katalog.md §1, or the number 0. The parsed value stays the written text (`0` becomes `"0"`);
 * use parseDuration for milliseconds.
 */
export const Duration = z
  .union([z.string(), z.literal(0)], {
    error: 'expected a duration such as "30s", "10m", "1h30m" or "90d", or 0',
  })
  .refine((value) => value === 0 || WHOLE.test(value), {
    error: (issue) => new DurationError(issue.input).message,
  })
  .meta({
    pattern: DURATION_PATTERN,
    description:
      'A duration: <number><unit> pairs with units ms, s, m, h, d, w, mo, y (e.g. "30s", "1h30m", "90d"), or 0.',
  })
  .transform((value) => String(value));
/** Duration is a validated duration string. */
export type Duration = z.infer<typeof Duration>;
