import { z } from 'zod';
import { isReservedAnnotationKey, isReservedLabelKey } from '../metadata.js';
import { checkTemplateSource } from './template-check.js';
import { validateCron } from '../cron.js';

/** isTemplate tells whether a string is a template (contains `{{`). */
export function isTemplate(value: unknown): value is string {
  return typeof value === 'string' && value.includes('{{');
}

function addTemplateIssue(value: string, ctx: z.RefinementCtx, path: (string | number)[] = []): void {
  const message = checkTemplateSource(value);
  if (message != null)
    ctx.addIssue({ code: 'custom', message: `template error: ${message}`, path, input: value });
}

/**
 * Tpl is a template-bearing string field (docs/reference/katalog.md §1, "tpl"). Numbers and booleans are accepted and
 * converted to their string form (docs/reference/katalog.md §17.4, string coercion).
 */
export const Tpl = z
  .union([z.string(), z.number(), z.boolean()], {
    error: (issue) => `expected a string, got ${describe(issue.input)}`,
  })
  .transform((value) => String(value))
  .superRefine((value, ctx) => addTemplateIssue(value, ctx));

/** Literal is a string field that is never rendered. */
export const Literal = z.string({ error: (issue) => `expected a string, got ${describe(issue.input)}` });

/**
 * LiteralNamespace is a namespace name written out (no template): where the operator reads another
 * namespace's Secret, the Katalog's author names it, never a CR.
 */
export const LiteralNamespace = z
  .string({ error: (issue) => `expected a namespace name, got ${describe(issue.input)}` })
  .refine((value) => !value.includes('{{'), {
    error:
      'must be a literal namespace, not a template: a CR must not choose which namespace the operator reads Secrets from',
  })
  .refine(isNamespaceName, { error: 'must be a namespace name (DNS-1123 label)' });

/** isNamespaceName tells whether a string is a namespace name (a DNS-1123 label of at most 63 characters). */
export function isNamespaceName(value: string): boolean {
  return value.length <= 63 && /^[a-z0-9]([-a-z0-9]*[a-z0-9])?$/.test(value);
}

/** Identifier is a literal identifier: letters, digits and `_`, not starting with a digit. */
export const Identifier = z.string().regex(/^[A-Za-z_][A-Za-z0-9_]*$/, {
  error: 'expected an identifier: letters, digits and _, not starting with a digit',
});

/** DnsLabel is a DNS-1123 label (lowercase alphanumerics and `-`, at most 63 characters). */
export const DnsLabel = z
  .string()
  .max(63, { error: 'must be at most 63 characters (DNS-1123 label)' })
  .regex(/^[a-z0-9]([-a-z0-9]*[a-z0-9])?$/, {
    error:
      'must be a DNS-1123 label: lowercase letters, digits and "-", starting and ending with a letter or digit',
  });

/**
 * EntryName names a CRD entry (docs/reference/katalog.md §3): letters, digits, `-` and `_`,
 * starting with a letter and ending with a letter or digit, at most 63 characters. It is a valid
 * label value (the `orkestra.konductor.io/crd` label carries it) and a template path segment
 * (`.cross.<name>`); upstream's camelCase names (`declarativeApp`) are names as they are (ADR 0024).
 */
export const EntryName = z
  .string()
  .max(63, { error: 'must be at most 63 characters (it is a label value)' })
  .regex(/^[A-Za-z]([-_A-Za-z0-9]*[A-Za-z0-9])?$/, {
    error:
      'must be letters, digits, "-" and "_", starting with a letter and ending with a letter or digit (an entry name is a label value)',
  });

/** TplList is a list of templates. */
export const TplList = z.array(Tpl);

/** TplMap is a map of literal keys to templates. */
export const TplMap = z.record(z.string(), Tpl);

/** LabelMap is a map of templates whose keys must not be reserved label keys (docs/reference/katalog.md §6). */
export const LabelMap = TplMap.superRefine((map, ctx) => {
  for (const key of Object.keys(map)) {
    if (isReservedLabelKey(key))
      ctx.addIssue({
        code: 'custom',
        message: `label key ${key} is reserved for Orkestra`,
        path: [key],
        input: key,
      });
  }
});

/** AnnotationMap is a map of templates whose keys must not use the reserved Orkestra prefix. */
export const AnnotationMap = TplMap.superRefine((map, ctx) => {
  for (const key of Object.keys(map)) {
    if (isReservedAnnotationKey(key))
      ctx.addIssue({
        code: 'custom',
        message: `annotation key ${key} is reserved for Orkestra`,
        path: [key],
        input: key,
      });
  }
});

function literalOrTemplate(name: string, accepts: (literal: string) => boolean, literals: z.ZodType[]) {
  return z
    .union([...literals, z.string()] as unknown as readonly [z.ZodType, z.ZodType], {
      error: (issue) => `expected ${name} or a template, got ${describe(issue.input)}`,
    })
    .superRefine((value, ctx) => {
      if (typeof value !== 'string') return;
      if (isTemplate(value)) addTemplateIssue(value, ctx);
      else if (!accepts(value))
        ctx.addIssue({
          code: 'custom',
          message: `expected ${name} or a template, got ${JSON.stringify(value)}`,
          input: value,
        });
    });
}

/** IntLike is an **int** field: an integer, an integer string, or a template. */
export const IntLike = literalOrTemplate('an integer', (s) => /^-?\d+$/.test(s), [
  z.int(),
]) as unknown as z.ZodType<number | string, number | string>;

/** BoolLike is a **bool** field: a boolean, `"true"`/`"false"` in any case, or a template. */
export const BoolLike = literalOrTemplate('a boolean', (s) => /^(true|false)$/i.test(s), [
  z.boolean(),
]) as unknown as z.ZodType<boolean | string, boolean | string>;

const QUANTITY = /^[+-]?(\d+(\.\d*)?|\.\d+)([eE][+-]?\d+|[KMGTPE]i|[numkMGTPE])?$/;

/** Quantity is a Kubernetes resource quantity (`500m`, `1Gi`, `0.5`), a number, or a template. */
export const Quantity = literalOrTemplate('a quantity such as 500m or 1Gi', (s) => QUANTITY.test(s), [
  z.number(),
]) as unknown as z.ZodType<number | string, number | string>;

/** IntOrPercent is an **intOrPercent** field: `3`, `"25%"`, or a template. */
export const IntOrPercent = literalOrTemplate(
  'an integer or a percentage such as "25%"',
  (s) => /^\d+%?$/.test(s),
  [z.int()],
) as unknown as z.ZodType<number | string, number | string>;

/** IntOrName is an int-or-string field such as `targetPort`: a number, a port name, or a template. */
export const IntOrName = literalOrTemplate('a port number or name', () => true, [
  z.int(),
]) as unknown as z.ZodType<number | string, number | string>;

/**
 * TemplateValue is a field of any shape whose string leaves are templates (custom entries, provider
 * specs, status values, mutation values). Template strings are checked with the loader's hook.
 */
export const TemplateValue = z.unknown().superRefine((value, ctx) => {
  const walk = (node: unknown, path: (string | number)[], depth: number): void => {
    if (depth > 64) return;
    if (typeof node === 'string') addTemplateIssue(node, ctx, path);
    else if (Array.isArray(node)) node.forEach((item, index) => walk(item, [...path, index], depth + 1));
    else if (node !== null && typeof node === 'object') {
      for (const [key, item] of Object.entries(node)) walk(item, [...path, key], depth + 1);
    }
  };
  walk(value, [], 0);
});

/** JsonMap is a map of anything (configs, schemas). */
export const JsonMap = z.record(z.string(), z.unknown());

/**
 * isSafeDotPath tells whether a dot path has no `__proto__` segment: writing through one would reach
 * the JavaScript object prototype instead of a field.
 */
export function isSafeDotPath(path: string): boolean {
  return !path.split('.').includes('__proto__');
}

/** DotPath is a literal dot path such as `spec.replicas`; a `__proto__` segment is refused. */
export const DotPath = z
  .string()
  .regex(/^\.?[^.\s{}]+(\.[^.\s{}]+)*$/, { error: 'expected a dot path such as spec.replicas' })
  .refine(isSafeDotPath, { error: 'a path must not contain a `__proto__` segment' });

/** CronSchedule is a five-field cron expression or a macro such as `@hourly`, or a template. */
export const CronSchedule = Tpl.superRefine((value, ctx) => {
  if (isTemplate(value)) return;
  const problem = validateCron(value);
  if (problem != null) ctx.addIssue({ code: 'custom', message: problem, input: value });
});

/** describe names a value's type for messages: `a map`, `a list`, `"text"`, `3`, `null`. */
export function describe(value: unknown): string {
  if (value === undefined) return 'nothing';
  if (value === null) return 'null';
  if (Array.isArray(value)) return 'a list';
  if (typeof value === 'object') return 'a map';
  if (typeof value === 'string') return JSON.stringify(value.length > 40 ? `${value.slice(0, 40)}…` : value);
  return String(value);
}
