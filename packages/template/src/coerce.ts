import { describeValue } from './katalog-path.js';
import { parseDecimal, stringForm } from './string-form.js';
import { TemplateError } from './template-error.js';

/** CoerceType names the known scalar field types of section 17.4 (plus `float` for normalize). */
export const CoerceType = {
  int: 'int',
  bool: 'bool',
  quantity: 'quantity',
  intOrPercent: 'intOrPercent',
  string: 'string',
  float: 'float',
} as const;
export type CoerceType = (typeof CoerceType)[keyof typeof CoerceType];

const integerString = /^-?\d+$/;
const quantityString = /^[+-]?(?:\d+(?:\.\d*)?|\.\d+)(?:[KMGTPE]i|[numkMGTPE]|[eE][+-]?\d+)?$/;
const percentString = /^-?\d+%$/;

function failure(path: string | undefined, expected: string, value: unknown): TemplateError {
  return new TemplateError(`expected ${expected}, got ${describeValue(value)}`, { katalogPath: path });
}

function toInt(value: unknown, path: string | undefined): number {
  if (typeof value === 'number' && Number.isSafeInteger(value)) return value;
  if (typeof value === 'string' && integerString.test(value) && Number.isSafeInteger(Number(value))) {
    return Number(value);
  }
  throw failure(path, 'an integer', value);
}

/**
 * coerce converts a rendered value to a field's known type (section 17.4). `undefined` and `null`
 * pass through as `undefined` (the field is not set). A value that cannot be converted throws a
 * `TemplateError` naming the path, e.g. `deployments[0].replicas: expected an integer, got "three"`.
 *
 * - `int`: integers and strings of an optional minus sign followed by digits;
 * - `bool`: booleans and `"true"`/`"false"` in any case;
 * - `quantity`: numbers and strings that parse as Kubernetes quantities (kept as given);
 * - `intOrPercent`: integers, integer strings (→ number) and `"<n>%"` (kept as a string);
 * - `string`: strings, numbers and booleans in their string form, never maps or lists;
 * - `float`: numbers and decimal strings.
 */
export function coerce(value: unknown, type: CoerceType, path?: string): unknown {
  if (value == null) return undefined;
  switch (type) {
    case 'int':
      return toInt(value, path);
    case 'bool':
      if (typeof value === 'boolean') return value;
      if (typeof value === 'string' && /^(?:true|false)$/i.test(value)) return value.toLowerCase() === 'true';
      throw failure(path, 'a boolean', value);
    case 'quantity':
      if (typeof value === 'number' && Number.isFinite(value)) return value;
      if (typeof value === 'string' && quantityString.test(value)) return value;
      throw failure(path, 'a Kubernetes quantity', value);
    case 'intOrPercent':
      if (typeof value === 'string' && percentString.test(value)) return value;
      try {
        return toInt(value, path);
      } catch {
        throw failure(path, 'an integer or a percentage like "25%"', value);
      }
    case 'string':
      if (typeof value === 'string' || typeof value === 'number' || typeof value === 'boolean') {
        return stringForm(value);
      }
      throw failure(path, 'a string', value);
    case 'float': {
      const parsed = parseDecimal(value);
      if (parsed === undefined) throw failure(path, 'a number', value);
      return parsed;
    }
    default:
      throw new TemplateError(`unknown field type ${describeValue(type)}`, { katalogPath: path });
  }
}

/** isCoerceType tells whether a string names a {@link CoerceType}. */
export function isCoerceType(value: unknown): value is CoerceType {
  return typeof value === 'string' && Object.hasOwn(CoerceType, value);
}
