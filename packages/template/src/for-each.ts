import type { ForEach as KatalogForEach } from '@orkestra/types';
import { TEMPLATE_CONTEXT_KEYS } from '@orkestra/types';
import type { CompiledValue, FieldTypes } from './compile-value.js';
import { compileValue } from './compile-value.js';
import { DuplicateChildError } from './duplicate-child-error.js';
import { joinPath, resolveDotPath } from './katalog-path.js';
import { compareCodePoints, isPlainMap, stringForm } from './string-form.js';
import type { CompiledTemplate, TemplateContext, TemplateEngine } from './template-engine.js';
import { getDefaultEngine } from './template-engine.js';
import { TemplateError } from './template-error.js';

/** ForEach is the `forEach` block of a resource entry (section 9): @orkestra/types' ForEach. */
export type ForEach = KatalogForEach;

/** ForEachCopy is one element of a forEach expansion with the context its copy renders in. */
export interface ForEachCopy {
  /** 0-based position. */
  readonly index: number;
  /** The list element, or the map key. */
  readonly item: unknown;
  /** The map value (maps only). */
  readonly value?: unknown;
  /** The base context plus `item`, `index`, `value` and `<as>`. */
  readonly context: TemplateContext;
}

/** CompiledForEach expands a forEach block against a context. */
export interface CompiledForEach {
  readonly field: string;
  readonly as: string | undefined;
  /**
   * Lists one copy per list element, or per map key in code-point order; anything else (absent,
   * null, a scalar) gives no copies.
   */
  expand(context: TemplateContext): ForEachCopy[];
}

/**
 * Names an `as` may not take (section 9): the context keys of section 17.2 and Handlebars' `this`.
 * `item` itself is allowed (upstream writes `as: item`); compileForEach lets it through.
 */
const reservedNames: ReadonlySet<string> = new Set([...TEMPLATE_CONTEXT_KEYS, 'this']);

/** CompileForEachOptions locate the forEach block in the Katalog. */
export interface CompileForEachOptions {
  /** Katalog path of the `forEach` block. */
  readonly path?: string | undefined;
  /** Engine to compile with; default the shared engine. */
  readonly engine?: TemplateEngine | undefined;
}

/**
 * compileForEach checks and compiles a forEach block: `field` must be a dot path or a
 * whole-expression template, `as` must not be a context key or a helper name.
 */
export function compileForEach(forEach: ForEach, options: CompileForEachOptions = {}): CompiledForEach {
  const engine = options.engine ?? getDefaultEngine();
  const as = forEach.as;
  if (as != null && as !== 'item') {
    if (reservedNames.has(as) || engine.isHelper(as)) {
      const what = engine.isHelper(as) ? 'a helper name' : 'a context key';
      throw new TemplateError(`forEach.as "${as}" is ${what}; choose another name`, {
        katalogPath: joinPath(options.path, 'as'),
      });
    }
    if (!/^[\p{L}_][\p{L}\p{N}_-]*$/u.test(as)) {
      throw new TemplateError(`forEach.as "${as}" is not a valid name`, {
        katalogPath: joinPath(options.path, 'as'),
      });
    }
  }
  const fieldPath = joinPath(options.path, 'field');
  let read: (context: TemplateContext) => unknown;
  if (forEach.field.includes('{{')) {
    const template: CompiledTemplate = engine.compileTemplate(forEach.field, { path: fieldPath });
    if (!template.isWholeExpression) {
      throw new TemplateError('forEach.field must be a dot path or a single {{ … }} expression', {
        katalogPath: fieldPath,
      });
    }
    read = (context) => template.render(context);
  } else {
    const field = forEach.field.trim();
    read = (context) => resolveDotPath(context, field);
  }

  const copy = (
    context: TemplateContext,
    index: number,
    item: unknown,
    value?: { value: unknown },
  ): ForEachCopy => {
    const extra: Record<string, unknown> = { item, index };
    if (value != null) extra['value'] = value.value;
    if (as != null) extra[as] = item;
    return {
      index,
      item,
      ...(value == null ? {} : { value: value.value }),
      context: { ...context, ...extra },
    };
  };

  return {
    field: forEach.field,
    as,
    expand: (context) => {
      const target = read(context);
      if (Array.isArray(target)) return target.map((item, index) => copy(context, index, item));
      if (isPlainMap(target)) {
        return Object.keys(target)
          .sort(compareCodePoints)
          .map((key, index) => copy(context, index, key, { value: target[key] }));
      }
      return [];
    },
  };
}

/** EntryGate is the condition block of an entry, kept unrendered for the condition evaluator. */
export interface EntryGate {
  readonly when?: unknown;
  readonly anyOf?: unknown;
  readonly or?: unknown;
}

/** ExpandedEntry is one rendered copy of a resource entry. */
export interface ExpandedEntry {
  /** The rendered entry without `forEach`, `when`, `anyOf` and `or`. */
  readonly entry: Record<string, unknown>;
  /** The context the copy was rendered in; evaluate the gate with it. */
  readonly context: TemplateContext;
  /** The copy's unrendered `when`/`anyOf`/`or`. */
  readonly gate: EntryGate;
  /** Position and element, for forEach copies. */
  readonly index?: number;
  readonly item?: unknown;
}

/** CompileEntryOptions locate an entry in the Katalog and give its known field types. */
export interface CompileEntryOptions {
  /** Katalog path of the entry, e.g. `website.operatorBox.onReconcile.deployments[0]`. */
  readonly path?: string | undefined;
  /** Known field types of the entry's kind (section 17.4). */
  readonly fieldTypes?: FieldTypes | undefined;
  /** Engine to compile with; default the shared engine. */
  readonly engine?: TemplateEngine | undefined;
}

/** ExpandOptions decide which copies are kept and how a copy's child is named. */
export interface ExpandOptions {
  /**
   * Called with each copy's context and gate before it is rendered; a copy for which it returns
   * false is skipped (pass the condition evaluator here). Default: every copy is kept.
   */
  readonly include?: ((context: TemplateContext, gate: EntryGate) => boolean) | undefined;
  /** Child identity for the duplicate check; default `<namespace>/<name>` of the rendered entry. */
  readonly nameOf?: ((entry: Record<string, unknown>) => string | undefined) | undefined;
}

/** CompiledEntry is a resource entry compiled once: its forEach, its gate and its templated fields. */
export interface CompiledEntry {
  readonly forEach: CompiledForEach | undefined;
  readonly gate: EntryGate;
  readonly body: CompiledValue;
  /**
   * Renders the entry against a context: one copy without forEach, else one per element, each
   * rendered with its own `item`/`index`/`value`/`<as>`. Two kept copies with the same name throw
   * a `DuplicateChildError` naming both items.
   */
  expand(context: TemplateContext, options?: ExpandOptions): ExpandedEntry[];
}

const gateKeys = ['when', 'anyOf', 'or'] as const;

function defaultName(entry: Record<string, unknown>): string | undefined {
  const name = entry['name'];
  if (name == null || name === '') return undefined;
  const namespace = entry['namespace'];
  return namespace == null ? stringForm(name) : `${stringForm(namespace)}/${stringForm(name)}`;
}

/**
 * compileEntry compiles a resource entry: its `forEach` (if any) and every templated field except
 * `forEach`, `when`, `anyOf` and `or`, which stay unrendered for the condition evaluator.
 */
export function compileEntry(
  entry: Readonly<Record<string, unknown>>,
  options: CompileEntryOptions = {},
): CompiledEntry {
  const rawForEach = entry['forEach'];
  let forEach: CompiledForEach | undefined;
  if (rawForEach != null) {
    if (!isPlainMap(rawForEach) || typeof rawForEach['field'] !== 'string') {
      throw new TemplateError('forEach needs a "field" string', {
        katalogPath: joinPath(options.path, 'forEach'),
      });
    }
    const as = rawForEach['as'];
    forEach = compileForEach(
      { field: rawForEach['field'], as: typeof as === 'string' ? as : undefined },
      { path: joinPath(options.path, 'forEach'), engine: options.engine },
    );
  }
  const gate: Record<string, unknown> = {};
  for (const key of gateKeys) if (entry[key] !== undefined) gate[key] = entry[key];
  const body = compileValue(entry, {
    path: options.path,
    fieldTypes: options.fieldTypes,
    engine: options.engine,
    omitKeys: ['forEach', ...gateKeys],
  });
  return {
    forEach,
    gate,
    body,
    expand: (context, expandOptions = {}) => {
      const include = expandOptions.include;
      if (forEach == null) {
        if (include != null && !include(context, gate)) return [];
        return [{ entry: body.render(context) as Record<string, unknown>, context, gate }];
      }
      const nameOf = expandOptions.nameOf ?? defaultName;
      const seen = new Map<string, ForEachCopy>();
      const out: ExpandedEntry[] = [];
      for (const copy of forEach.expand(context)) {
        if (include != null && !include(copy.context, gate)) continue;
        const rendered = body.render(copy.context) as Record<string, unknown>;
        const name = nameOf(rendered);
        if (name != null) {
          const first = seen.get(name);
          if (first != null) {
            throw new DuplicateChildError({
              katalogPath: options.path,
              childName: name,
              first,
              second: copy,
            });
          }
          seen.set(name, copy);
        }
        out.push({ entry: rendered, context: copy.context, gate, index: copy.index, item: copy.item });
      }
      return out;
    },
  };
}

const entryCache = new WeakMap<object, Map<string, CompiledEntry>>();

/**
 * expandForEach renders an entry once per element of its forEach (or the given `forEach`), with
 * `item`, `index`, `value` and `<as>` visible to every field and returned with each copy's
 * context so its `when`/`anyOf` are evaluated per item. The compiled entry is cached per entry
 * object; prefer {@link compileEntry} at load time.
 */
export function expandForEach(
  entry: Readonly<Record<string, unknown>>,
  forEach: ForEach | undefined,
  context: TemplateContext,
  options: CompileEntryOptions & ExpandOptions = {},
): ExpandedEntry[] {
  const key = `${options.path ?? ''}\u0000${JSON.stringify(forEach ?? null)}`;
  let byKey = entryCache.get(entry);
  let compiled = byKey?.get(key);
  if (compiled == null || options.engine != null || options.fieldTypes != null) {
    const source = forEach == null ? entry : { ...entry, forEach };
    compiled = compileEntry(source, options);
    if (options.engine == null && options.fieldTypes == null) {
      if (byKey == null) {
        byKey = new Map();
        entryCache.set(entry, byKey);
      }
      byKey.set(key, compiled);
    }
  }
  return compiled.expand(context, options);
}
