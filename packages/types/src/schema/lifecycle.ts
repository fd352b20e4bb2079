/**
 * A Katalog's lifecycle and publish blocks (docs/reference/katalog.md §2.5, ADR 0063): maturity,
 * deprecation with its timeline, the Kubernetes and Orkestra versions the Katalog was verified
 * against, and the signing policy of a published Katalog. Also the small version-range check the
 * operator applies to `compatibility` at start.
 */
import { z } from 'zod';
import { Literal } from './primitives.js';

/** MATURITIES are the values of `lifecycle.maturity`. */
const MATURITIES = ['alpha', 'beta', 'stable', 'deprecated'] as const;

const DATE = /^(\d{4})-(\d{2})-(\d{2})$/;

/** parseDay reads `YYYY-MM-DD` as midnight UTC; undefined for anything else (including 2026-02-30). */
export function parseDay(text: string): Date | undefined {
  const match = DATE.exec(text);
  if (match == null) return undefined;
  const [year, month, day] = [Number(match[1]), Number(match[2]), Number(match[3])];
  const date = new Date(Date.UTC(year, month - 1, day));
  return date.getUTCFullYear() === year && date.getUTCMonth() === month - 1 && date.getUTCDate() === day
    ? date
    : undefined;
}

const Day = z.string().refine((value) => parseDay(value) !== undefined, {
  error: (issue) => `${JSON.stringify(issue.input)} is not a valid date (expected YYYY-MM-DD)`,
});

// ---- version ranges ------------------------------------------------------------------------------

type Version = readonly [number, number, number];
/** A version as written in a range: missing parts are wildcards (`1.28` = `1.28.x`). */
interface Partial {
  readonly parts: readonly number[];
}

const VERSION = /^v?(\d+)(?:\.(\d+|[xX*]))?(?:\.(\d+|[xX*]))?(?:-[0-9A-Za-z.-]+)?(?:\+[0-9A-Za-z.-]+)?$/;

function partialOf(text: string): Partial | undefined {
  const match = VERSION.exec(text);
  if (match == null) return undefined;
  const parts: number[] = [];
  for (const part of [match[1], match[2], match[3]]) {
    if (part == null || /^[xX*]$/.test(part)) break;
    parts.push(Number(part));
  }
  return { parts };
}

function compare(a: Version, b: readonly number[]): number {
  for (let i = 0; i < 3; i++) {
    const diff = a[i]! - (b[i] ?? 0);
    if (diff !== 0) return diff;
  }
  return 0;
}

/** The first version past a partial (`1.28` → `1.29.0`, `1` → `2.0.0`, `1.2.3` → `1.2.4`). */
function next(parts: readonly number[]): number[] {
  if (parts.length === 0) return [Infinity, 0, 0];
  const bumped = [...parts];
  bumped[bumped.length - 1] = bumped.at(-1)! + 1;
  return bumped;
}

type Test = (v: Version) => boolean;

function comparator(text: string): Test | undefined {
  const match = /^(>=|<=|>|<|=|\^|~)?\s*(.+)$/.exec(text);
  if (match == null) return undefined;
  const op = match[1] ?? '';
  const partial = partialOf(match[2]!);
  if (partial == null) return undefined;
  const p = partial.parts;
  const wild = p.length < 3;
  switch (op) {
    case '>=':
      return (v) => compare(v, p) >= 0;
    case '>':
      return wild ? (v) => compare(v, next(p)) >= 0 : (v) => compare(v, p) > 0;
    case '<':
      return (v) => compare(v, p) < 0;
    case '<=':
      return wild ? (v) => compare(v, next(p)) < 0 : (v) => compare(v, p) <= 0;
    case '^': {
      // The first non-zero part may not change (^0.7 = >=0.7.0 <0.8.0, ^1.28 = >=1.28.0 <2.0.0).
      const lead = p.findIndex((n) => n !== 0);
      const upper = lead === -1 ? next(p) : next(p.slice(0, lead + 1));
      return (v) => compare(v, p) >= 0 && compare(v, upper) < 0;
    }
    case '~': {
      const upper = next(p.length >= 2 ? p.slice(0, 2) : p);
      return (v) => compare(v, p) >= 0 && compare(v, upper) < 0;
    }
    default:
      return (v) => compare(v, p) >= 0 && compare(v, wild ? next(p) : p) <= (wild ? -1 : 0);
  }
}

/**
 * parseVersionRange reads a version range as Helm's charts write them: comparators (`>=1.28`,
 * `<1.33`, `=1.2.3`, `1.2`, `1.x`, `^0.7`, `~1.28`, `*`) joined by spaces or commas (all must hold),
 * alternatives joined by `||`, and hyphen ranges (`1.28 - 1.30`). Undefined when it does not parse.
 */
function parseVersionRange(range: string): ((version: string) => boolean) | undefined {
  const alternatives: Test[][] = [];
  for (const alternative of range.split('||')) {
    const text = alternative.trim();
    const tests: Test[] = [];
    const hyphen = /^(\S+)\s+-\s+(\S+)$/.exec(text);
    const parts = hyphen != null ? [`>=${hyphen[1]}`, `<=${hyphen[2]}`] : text.split(/[\s,]+/);
    for (const raw of parts) {
      // `>= 1.28` is one comparator written with a space.
      if (raw === '') continue;
      if (/^(>=|<=|>|<|=|\^|~)$/.test(raw)) return undefined;
      if (raw === '*' || /^[xX]$/.test(raw)) continue;
      const test = comparator(raw);
      if (test == null) return undefined;
      tests.push(test);
    }
    if (text === '' && range.trim() !== '') return undefined;
    alternatives.push(tests);
  }
  return (version) => {
    const partial = partialOf(version.trim());
    if (partial == null) return false;
    const v: Version = [partial.parts[0] ?? 0, partial.parts[1] ?? 0, partial.parts[2] ?? 0];
    return alternatives.some((tests) => tests.every((test) => test(v)));
  };
}

/** versionInRange is true when `version` (e.g. `1.30.2`, `v1.30.2-eks-1`) satisfies `range`; false when either does not parse. */
export function versionInRange(version: string, range: string): boolean {
  return parseVersionRange(range.replace(/(>=|<=|>|<|=|\^|~)\s+/g, '$1'))?.(version) ?? false;
}

const VersionRange = z
  .string()
  .refine(
    (value) =>
      value.trim() !== '' && parseVersionRange(value.replace(/(>=|<=|>|<|=|\^|~)\s+/g, '$1')) != null,
    {
      error: (issue) =>
        `${JSON.stringify(issue.input)} is not a valid version range (e.g. ">=1.28", ">=1.28 <1.33", "^0.7")`,
    },
  );

// ---- schemas ---------------------------------------------------------------------------------------

const DeprecationSchema = z
  .strictObject({
    /** Why the Katalog is deprecated and what to do; required. */
    message: Literal.optional(),
    /** What replaces it (e.g. `task-runner:v1.0.0`). */
    migratedTo: Literal.optional(),
    /** The deprecation window: `from` (deprecated since) and `to` (end of life), `YYYY-MM-DD`. */
    timeline: z.strictObject({ from: Day.optional(), to: Day.optional() }).optional(),
  })
  .superRefine((value, ctx) => {
    if (value.message == null || value.message.trim() === '')
      ctx.addIssue({
        code: 'custom',
        message: 'lifecycle.deprecation needs `message`: say why it is deprecated and what to use instead',
        path: value.message == null ? [] : ['message'],
        input: value,
      });
    const from = value.timeline?.from == null ? undefined : parseDay(value.timeline.from);
    const to = value.timeline?.to == null ? undefined : parseDay(value.timeline.to);
    if (from != null && to != null && from.getTime() >= to.getTime())
      ctx.addIssue({
        code: 'custom',
        message: `timeline.from (${value.timeline?.from}) must be before timeline.to (${value.timeline?.to})`,
        path: ['timeline', 'from'],
        input: value.timeline,
      });
  });

const LifecycleSchema = z.strictObject({
  /** How settled the Katalog is: alpha and beta warn; deprecated without `deprecation` warns. */
  maturity: z.enum(MATURITIES, { error: `maturity must be one of ${MATURITIES.join(', ')}` }).optional(),
  /** The Katalog is deprecated (a block without `maturity` means deprecated too). */
  deprecation: DeprecationSchema.optional(),
  /** Versions the Katalog was verified against; checked when the operator starts. */
  compatibility: z
    .strictObject({ kubernetes: VersionRange.optional(), orkestra: VersionRange.optional() })
    .optional(),
});
/** Lifecycle is a loaded `lifecycle` block. */
// eslint-disable-next-line @typescript-eslint/no-empty-object-type -- a named type keeps declaration files small
export interface Lifecycle extends z.output<typeof LifecycleSchema> {}
/** Lifecycle: maturity, deprecation and compatibility of a Katalog (docs/reference/katalog.md §2.5). */
export const Lifecycle: z.ZodType<Lifecycle> = LifecycleSchema.meta({ id: 'Lifecycle' });

const PublishSchema = z.strictObject({
  /** The signing policy of the published Katalog: recorded, not verified (ADR 0063). */
  signing: z
    .strictObject({
      verify: z.boolean().optional(),
      expectedIdentities: z
        .array(z.string().min(1, { error: 'an expected identity must not be empty' }))
        .optional(),
    })
    .optional(),
});
/** Publish is a loaded `publish` block. */
// eslint-disable-next-line @typescript-eslint/no-empty-object-type -- a named type keeps declaration files small
export interface Publish extends z.output<typeof PublishSchema> {}
/** Publish: how the Katalog is published (docs/reference/katalog.md §2.6); recorded only. */
export const Publish: z.ZodType<Publish> = PublishSchema.meta({ id: 'Publish' });

// ---- notices -------------------------------------------------------------------------------------

/** LifecycleNotice is one warning about a Katalog's lifecycle, with the field it is about. */
export interface LifecycleNotice {
  readonly path: readonly (string | number)[];
  readonly message: string;
}

const DAY_MS = 86_400_000;

/**
 * lifecycleNotices are the warnings `ork validate` prints and the operator logs at load for a
 * Katalog's lifecycle (docs/reference/katalog.md §2.5): alpha/beta maturity, a deprecation with its
 * message, replacement and countdown to the end of life, a Katalog past its end of life, and a
 * `publish.signing` Orkestra records but does not verify. `now` is the clock (injected).
 */
export function lifecycleNotices(
  katalog: { readonly lifecycle?: Lifecycle | undefined; readonly publish?: Publish | undefined },
  now: Date,
): LifecycleNotice[] {
  const notices: LifecycleNotice[] = [];
  const lifecycle = katalog.lifecycle;
  if (lifecycle?.maturity === 'alpha')
    notices.push({
      path: ['lifecycle', 'maturity'],
      message: 'lifecycle.maturity is alpha: experimental, not recommended for production',
    });
  if (lifecycle?.maturity === 'beta')
    notices.push({
      path: ['lifecycle', 'maturity'],
      message: 'lifecycle.maturity is beta: stabilising; the Katalog may still change',
    });
  if (lifecycle?.maturity === 'deprecated' && lifecycle.deprecation == null)
    notices.push({
      path: ['lifecycle', 'maturity'],
      message:
        'lifecycle.maturity is deprecated but lifecycle.deprecation is not set: add the block (message, migratedTo, timeline) or change the maturity',
    });
  const deprecation = lifecycle?.deprecation;
  if (deprecation != null) {
    const parts = [`this Katalog is deprecated: ${(deprecation.message ?? '').replace(/[.\s]+$/, '')}`];
    if (deprecation.migratedTo != null) parts.push(`migrate to ${deprecation.migratedTo}`);
    const end = deprecation.timeline?.to == null ? undefined : parseDay(deprecation.timeline.to);
    const start = deprecation.timeline?.from == null ? undefined : parseDay(deprecation.timeline.from);
    if (start != null && now.getTime() < start.getTime())
      parts.push(`deprecated from ${deprecation.timeline?.from}`);
    if (end != null) {
      const days = Math.ceil((end.getTime() - now.getTime()) / DAY_MS);
      parts.push(
        days > 0
          ? `end of life in ${days} ${days === 1 ? 'day' : 'days'} (${deprecation.timeline?.to})`
          : `PAST END OF LIFE since ${deprecation.timeline?.to}: it may stop being maintained or supported at any time`,
      );
    }
    notices.push({ path: ['lifecycle', 'deprecation'], message: parts.join('; ') });
  }
  if (katalog.publish?.signing != null)
    notices.push({
      path: ['publish', 'signing'],
      message: 'publish.signing is recorded; Orkestra does not verify signatures of published Katalogs yet',
    });
  return notices;
}
