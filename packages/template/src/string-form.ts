/**
 * Value semantics shared by the helpers, rendering and coercion: the string form of section 8.4,
 * emptiness and truthiness of section 17.6, type names, decimal parsing and JSON equality. The
 * string form and type names come from @orkestra/types, which conditions use too.
 */
import { numberForm, stringForm, typeName } from '@orkestra/types';

/** TypeName is the name `typeOf` reports for a value (upstream's Go names). */
export type TypeName = ReturnType<typeof typeName>;

/** isPlainMap tells whether a value is a map (a non-null, non-array object). */
export function isPlainMap(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

// typeName, numberForm and stringForm are @orkestra/types' own, so conditions and templates give
// every value the same type name and string form (section 8.4).
export { numberForm, stringForm, typeName };

/** isEmpty tells whether a value is absent, null, `""`, an empty list or an empty map. */
export function isEmpty(value: unknown): boolean {
  if (value == null || value === '') return true;
  if (Array.isArray(value)) return value.length === 0;
  if (isPlainMap(value)) return Object.keys(value).length === 0;
  return false;
}

/** isTruthy follows Handlebars: absent, null, `false`, `0`, `NaN`, `""` and `[]` are false. */
export function isTruthy(value: unknown): boolean {
  if (Array.isArray(value)) return value.length > 0;
  return Boolean(value);
}

const decimalPattern = /^[+-]?(?:\d+(?:\.\d*)?|\.\d+)(?:[eE][+-]?\d+)?$/;

/** parseDecimal reads a number or a string that parses fully as a decimal number; else undefined. */
export function parseDecimal(value: unknown): number | undefined {
  if (typeof value === 'number') return Number.isFinite(value) ? value : undefined;
  if (typeof value === 'string' && decimalPattern.test(value)) {
    const parsed = Number(value);
    return Number.isFinite(parsed) ? parsed : undefined;
  }
  return undefined;
}

/** compareCodePoints orders two strings by Unicode code point (not UTF-16 code unit). */
export function compareCodePoints(a: string, b: string): number {
  let i = 0;
  let j = 0;
  while (i < a.length && j < b.length) {
    const ca = a.codePointAt(i) ?? 0;
    const cb = b.codePointAt(j) ?? 0;
    if (ca !== cb) return ca < cb ? -1 : 1;
    i += ca > 0xffff ? 2 : 1;
    j += cb > 0xffff ? 2 : 1;
  }
  const restA = a.length - i;
  const restB = b.length - j;
  return restA === restB ? 0 : restA < restB ? -1 : 1;
}

/** jsonEqual compares two values as JSON values (absent equals null; map key order ignored). */
function jsonEqual(a: unknown, b: unknown): boolean {
  if (a == null || b == null) return a == null && b == null;
  if (Array.isArray(a)) {
    return Array.isArray(b) && a.length === b.length && a.every((item, i) => jsonEqual(item, b[i]));
  }
  if (isPlainMap(a)) {
    if (!isPlainMap(b)) return false;
    const keys = Object.keys(a).filter((key) => a[key] !== undefined);
    const otherKeys = Object.keys(b).filter((key) => b[key] !== undefined);
    return (
      keys.length === otherKeys.length &&
      keys.every((key) => Object.hasOwn(b, key) && jsonEqual(a[key], b[key]))
    );
  }
  return a === b;
}

/** looseEqual is `eq`: JSON equality where a number equals a string holding the same number. */
export function looseEqual(a: unknown, b: unknown): boolean {
  if (typeof a === 'number' && typeof b === 'string') return parseDecimal(b) === a;
  if (typeof a === 'string' && typeof b === 'number') return parseDecimal(a) === b;
  return jsonEqual(a, b);
}

/** codePointLength counts the characters (code points) of a string. */
export function codePointLength(text: string): number {
  let count = 0;
  for (let i = 0; i < text.length; i++) {
    const code = text.charCodeAt(i);
    if (code >= 0xd800 && code <= 0xdbff && i + 1 < text.length) {
      const next = text.charCodeAt(i + 1);
      if (next >= 0xdc00 && next <= 0xdfff) i++;
    }
    count++;
  }
  return count;
}
