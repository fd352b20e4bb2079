/**
 * Declared status fields (docs/reference/katalog.md §13.2): compiled once per Katalog, evaluated against the
 * status being built at the end of every reconcile.
 */
import { coerce, compileValue, renderTemplate } from '@orkestra/template';
import type { CompiledValue, TemplateEngine } from '@orkestra/template';
import { evaluateConditions } from '@orkestra/types';
import type { Condition } from '@orkestra/types';
import { isMap } from '../is-map.js';

/** RESERVED_STATUS_KEYS are the runtime-owned top-level status keys that declared fields may not write. */
const RESERVED_STATUS_KEYS: ReadonlySet<string> = new Set([
  'conditions',
  'observedGeneration',
  'inventory',
  'providers',
  'katalogRevision',
]);

/** StatusFieldType is a declared field's `type` after alias normalization; `auto` tries int, float, bool, then string. */
export type StatusFieldType = 'string' | 'int' | 'float' | 'bool' | 'auto';

/** StatusFieldDeclaration is one `operatorBox.status.fields` item as loaded (the `StatusField` type of @orkestra/types fits). */
export interface StatusFieldDeclaration {
  /** Dot path relative to `status`; dots create nested maps. */
  readonly path: string;
  /** A literal or a template value. */
  readonly value: unknown;
  readonly type?: StatusFieldType | undefined;
  readonly clearOnFalse?: boolean | undefined;
  readonly when?: readonly Condition[] | undefined;
  readonly anyOf?: readonly Condition[] | undefined;
}

/** CompiledStatusField is a declared field ready to evaluate. */
export interface CompiledStatusField {
  readonly path: string;
  /** `path` split at dots, without a leading dot. */
  readonly segments: readonly string[];
  /** Where the field is declared, e.g. `website.operatorBox.status.fields[2]`. */
  readonly katalogPath: string;
  readonly type: StatusFieldType | undefined;
  readonly clearOnFalse: boolean;
  /** True when the field has `when` or `anyOf` conditions (only those are evaluated after a failed reconcile). */
  readonly gated: boolean;
  readonly when: readonly Condition[];
  readonly anyOf: readonly Condition[];
  readonly value: CompiledValue;
}

/** CompileStatusFieldsOptions locate the fields in the Katalog. */
export interface CompileStatusFieldsOptions {
  /** Katalog path of the field list, e.g. `website.operatorBox.status.fields`. Default `status.fields`. */
  readonly katalogPath?: string | undefined;
  /** Template engine (inject one with a clock and a random source in tests). Default the shared engine. */
  readonly engine?: TemplateEngine | undefined;
}

/**
 * compileStatusFields compiles declared status fields once, at Katalog load. A template that does
 * not compile throws a `TemplateError`; a reserved or malformed path is reported at evaluation.
 */
export function compileStatusFields(
  fields: readonly StatusFieldDeclaration[],
  options: CompileStatusFieldsOptions = {},
): CompiledStatusField[] {
  const base = options.katalogPath ?? 'status.fields';
  return fields.map((field, index) => {
    const katalogPath = `${base}[${index}]`;
    const when = field.when ?? [];
    const anyOf = field.anyOf ?? [];
    return {
      path: field.path,
      segments: (field.path.startsWith('.') ? field.path.slice(1) : field.path).split('.'),
      katalogPath,
      type: field.type,
      clearOnFalse: field.clearOnFalse ?? false,
      gated: when.length > 0 || anyOf.length > 0,
      when,
      anyOf,
      value: compileValue(field.value, { path: `${katalogPath}.value`, engine: options.engine }),
    };
  });
}

/** ApplyStatusFieldsOptions is what one evaluation of the declared fields needs. */
export interface ApplyStatusFieldsOptions {
  /** The full template context, including `children`. */
  readonly context: Readonly<Record<string, unknown>>;
  /** After a failed reconcile only fields with `when` or `anyOf` are evaluated. */
  readonly failed: boolean;
  /** The current time for time conditions. */
  readonly now: Date;
  /** Called for each field that is skipped because of an error; other fields still apply. */
  readonly onFieldError: (path: string, message: string) => void;
  /** Engine that renders templated conditions. Default the shared engine. */
  readonly engine?: TemplateEngine | undefined;
}

function pathProblem(field: CompiledStatusField): string | undefined {
  if (field.segments.some((segment) => segment === '')) return 'the path has an empty segment';
  if (
    field.segments.some(
      (segment) => segment === '__proto__' || segment === 'constructor' || segment === 'prototype',
    )
  ) {
    return 'the path uses a forbidden key';
  }
  const first = field.segments[0] ?? '';
  if (RESERVED_STATUS_KEYS.has(first)) return `"${first}" is owned by the runtime and cannot be declared`;
  return undefined;
}

function setPath(target: Record<string, unknown>, segments: readonly string[], value: unknown): void {
  let node = target;
  for (const segment of segments.slice(0, -1)) {
    const next = node[segment];
    if (isMap(next)) node = next;
    else {
      const created: Record<string, unknown> = {};
      node[segment] = created;
      node = created;
    }
  }
  node[segments[segments.length - 1] ?? ''] = value;
}

function unsetPath(target: Record<string, unknown>, segments: readonly string[]): void {
  const parents: Record<string, unknown>[] = [];
  let node = target;
  for (const segment of segments.slice(0, -1)) {
    const next = node[segment];
    if (!isMap(next)) return;
    parents.push(node);
    node = next;
  }
  const leaf = segments[segments.length - 1] ?? '';
  if (!Object.hasOwn(node, leaf)) return;
  delete node[leaf];
  // Remove maps the removal left empty, innermost first.
  for (let depth = parents.length - 1; depth >= 0; depth--) {
    const parent = parents[depth];
    const key = segments[depth] ?? '';
    if (parent == null || !isMap(parent[key]) || Object.keys(parent[key]).length > 0) break;
    delete parent[key];
  }
}

const AUTO_ORDER = ['int', 'float', 'bool', 'string'] as const;

/** convertStatusValue converts a rendered value to a declared `type`; throws a TemplateError when it cannot. */
function convertStatusValue(value: unknown, type: StatusFieldType, katalogPath: string): unknown {
  if (type !== 'auto') return coerce(value, type, katalogPath);
  for (const candidate of AUTO_ORDER) {
    try {
      return coerce(value, candidate, katalogPath);
    } catch {
      // try the next type
    }
  }
  return coerce(value, 'string', katalogPath); // throws the string conversion's error
}

/**
 * applyStatusFields evaluates declared fields in declaration order against `status`, in place
 * (docs/reference/katalog.md §13.2): a field whose conditions fail is left as it is, or removed with
 * `clearOnFalse`; an absent or null value removes the field; `type` converts the value; a later
 * field with the same path overwrites an earlier one. After a failed reconcile only gated fields
 * run. A template error, a failed conversion or a reserved path skips that field and is reported
 * through `onFieldError`.
 */
export function applyStatusFields(
  status: Record<string, unknown>,
  fields: readonly CompiledStatusField[],
  options: ApplyStatusFieldsOptions,
): void {
  const render = (template: string, context: Readonly<Record<string, unknown>>): unknown =>
    renderTemplate(template, context, options.engine == null ? {} : { engine: options.engine });
  for (const field of fields) {
    if (options.failed && !field.gated) continue;
    const problem = pathProblem(field);
    if (problem != null) {
      options.onFieldError(field.path, `${field.katalogPath}.path: ${problem}`);
      continue;
    }
    const gate = evaluateConditions(field, options.context, {
      now: () => options.now,
      renderTemplate: render,
    });
    if (!gate.passed) {
      if (field.clearOnFalse) unsetPath(status, field.segments);
      continue;
    }
    let value: unknown;
    try {
      value = field.value.render(options.context);
      if (value != null && field.type != null)
        value = convertStatusValue(value, field.type, `${field.katalogPath}.value`);
    } catch (error) {
      options.onFieldError(field.path, error instanceof Error ? error.message : String(error));
      continue;
    }
    if (value == null) unsetPath(status, field.segments);
    else setPath(status, field.segments, value);
  }
}
