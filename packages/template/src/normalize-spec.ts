import type { CoerceType } from './coerce.js';
import { coerce } from './coerce.js';
import { compileValue } from './compile-value.js';
import type { CompiledValue } from './compile-value.js';
import { joinPath } from './katalog-path.js';
import { compareCodePoints, isPlainMap, typeName } from './string-form.js';
import type { TemplateEngine } from './template-engine.js';
import { TemplateError } from './template-error.js';

/** NormalizeType is a type `normalize.types` may name. */
export type NormalizeType = Extract<CoerceType, 'string' | 'int' | 'float' | 'bool'>;

const normalizeTypes: ReadonlySet<string> = new Set<NormalizeType>(['string', 'int', 'float', 'bool']);

/** Normalize is the `normalize` block of a CRD entry (section 10). */
export interface Normalize {
  /** Dot path relative to `spec` → template. */
  readonly spec?: Readonly<Record<string, unknown>> | undefined;
  /** Dot path relative to `spec` → type the result is converted to. */
  readonly types?: Readonly<Record<string, string>> | undefined;
}

/** NormalizeOptions locate the block in the Katalog. */
export interface NormalizeOptions {
  /** Katalog path of the `normalize` block, e.g. `website.normalize`. */
  readonly path?: string | undefined;
  /** Engine to compile with; default the shared engine. */
  readonly engine?: TemplateEngine | undefined;
}

/** CompiledNormalize applies a normalize block to CRs. */
export interface CompiledNormalize {
  /** Every context path the templates read. */
  readonly referencedPaths: readonly string[];
  /** Returns a deep copy of the CR with the normalized fields written; the input is never changed. */
  apply<T extends object>(cr: T): T;
}

const nullWords = new Set(['null', 'Null', 'NULL', '~']);
const boolWords: ReadonlyMap<string, boolean> = new Map([
  ['true', true],
  ['True', true],
  ['TRUE', true],
  ['false', false],
  ['False', false],
  ['FALSE', false],
]);
const yamlInt = /^[-+]?\d+$/;
const yamlFloat = /^[-+]?(?:\.\d+|\d+(?:\.\d*)?)(?:[eE][-+]?\d+)?$/;

/**
 * readYamlScalar reads a rendered string as a YAML 1.2 core-schema scalar: null words, booleans,
 * decimal integers (within the safe range) and decimal floats; anything else stays a string.
 */
export function readYamlScalar(text: string): unknown {
  const trimmed = text.trim();
  if (trimmed === '' || nullWords.has(trimmed)) return null;
  const bool = boolWords.get(trimmed);
  if (bool != null) return bool;
  if (yamlInt.test(trimmed)) {
    const n = Number(trimmed);
    return Number.isSafeInteger(n) ? n : text;
  }
  if (yamlFloat.test(trimmed)) {
    const n = Number(trimmed);
    return Number.isFinite(n) ? n : text;
  }
  return text;
}

/** deepClone copies plain JSON data (maps, lists, scalars); frozen input gives unfrozen output. */
function deepClone<T>(value: T): T {
  if (Array.isArray(value)) return value.map((item: unknown) => deepClone(item)) as T;
  if (isPlainMap(value)) {
    const out: Record<string, unknown> = {};
    for (const [key, item] of Object.entries(value)) out[key] = deepClone(item);
    return out as T;
  }
  return value;
}

interface Field {
  readonly path: string;
  readonly segments: readonly string[];
  readonly katalogPath: string;
  readonly template: CompiledValue;
  readonly isTemplateString: boolean;
  readonly type: NormalizeType | undefined;
}

/**
 * compileNormalize compiles every template of a normalize block once. Each is rendered against the
 * CR as stored (`spec`, `metadata`, `status` only; no template sees another's result); a whole
 * expression keeps its native value, a string result is read as a YAML scalar unless its type is
 * `string`; `types` convert the result (failure: `TemplateError`); an empty or null result removes
 * the path; paths are written in sorted order, creating intermediate maps.
 */
export function compileNormalize(normalize: Normalize, options: NormalizeOptions = {}): CompiledNormalize {
  const specPath = joinPath(options.path, 'spec');
  const types = normalize.types ?? {};
  for (const [path, type] of Object.entries(types)) {
    if (!normalizeTypes.has(type)) {
      throw new TemplateError(`unknown type "${type}"; use string, int, float or bool`, {
        katalogPath: joinPath(joinPath(options.path, 'types'), path),
      });
    }
  }
  const fields: Field[] = Object.keys(normalize.spec ?? {})
    .sort(compareCodePoints)
    .map((path) => {
      const source = normalize.spec?.[path];
      const katalogPath = joinPath(specPath, path);
      const segments = path.replace(/^\./, '').split('.');
      if (segments.some((segment) => segment === '' || segment === '__proto__')) {
        throw new TemplateError(`invalid path "${path}"`, { katalogPath });
      }
      const template = compileValue(source, { path: katalogPath, engine: options.engine });
      const isWhole =
        template.templates.length === 1 && template.templates[0]?.template.isWholeExpression === true;
      return {
        path,
        segments,
        katalogPath,
        template,
        isTemplateString: typeof source === 'string' && !isWhole,
        type: Object.hasOwn(types, path) ? (types[path] as NormalizeType) : undefined,
      };
    });
  const referencedPaths = [...new Set(fields.flatMap((field) => field.template.referencedPaths))].sort();

  return {
    referencedPaths,
    apply: <T extends object>(cr: T): T => {
      const stored = cr as Record<string, unknown>;
      const context = { spec: stored['spec'], metadata: stored['metadata'], status: stored['status'] };
      const results = fields.map((field) => {
        let value = field.template.render(context);
        if (field.isTemplateString && field.type !== 'string' && typeof value === 'string')
          value = readYamlScalar(value);
        if (value == null || value === '') return undefined;
        return field.type == null ? value : coerce(value, field.type, field.katalogPath);
      });
      const copy = deepClone(cr) as Record<string, unknown>;
      if (fields.length === 0) return copy as T;
      if (copy['spec'] == null) copy['spec'] = {};
      if (!isPlainMap(copy['spec'])) {
        throw new TemplateError(`cannot normalize: spec is a ${typeName(copy['spec'])}, not a map`, {
          katalogPath: specPath,
        });
      }
      fields.forEach((field, i) => write(copy['spec'] as Record<string, unknown>, field, results[i]));
      return copy as T;
    },
  };
}

function write(spec: Record<string, unknown>, field: Field, value: unknown): void {
  let target = spec;
  const last = field.segments.length - 1;
  for (let i = 0; i < last; i++) {
    const key = field.segments[i] ?? '';
    const next = Object.hasOwn(target, key) ? target[key] : undefined;
    if (next == null) {
      if (value === undefined) return;
      const created: Record<string, unknown> = {};
      target[key] = created;
      target = created;
    } else if (isPlainMap(next)) {
      target = next;
    } else {
      const where = ['spec', ...field.segments.slice(0, i + 1)].join('.');
      throw new TemplateError(
        `cannot write spec.${field.segments.join('.')}: ${where} is a ${typeName(next)}, not a map`,
        {
          katalogPath: field.katalogPath,
        },
      );
    }
  }
  const key = field.segments[last] ?? '';
  if (value === undefined) delete target[key];
  else target[key] = value;
}

const normalizeCache = new WeakMap<object, Map<string, CompiledNormalize>>();

/**
 * normalizeSpec returns a deep copy of a CR with the `normalize.spec` fields replaced by their
 * rendered values; the input object is never mutated. The compiled block is cached per
 * `normalize` object; prefer {@link compileNormalize} at load time.
 *
 * @example
 * normalizeSpec(cr, { spec: { replicas: '{{ default spec.replicas 1 }}' }, types: { replicas: 'int' } });
 */
export function normalizeSpec<T extends object>(
  cr: T,
  normalize: Normalize,
  options: NormalizeOptions = {},
): T {
  if (options.engine != null) return compileNormalize(normalize, options).apply(cr);
  let byPath = normalizeCache.get(normalize);
  if (byPath == null) {
    byPath = new Map();
    normalizeCache.set(normalize, byPath);
  }
  const key = options.path ?? '';
  let compiled = byPath.get(key);
  if (compiled == null) {
    compiled = compileNormalize(normalize, options);
    byPath.set(key, compiled);
  }
  return compiled.apply(cr);
}
