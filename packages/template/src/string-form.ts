/**
 * Value semantics shared by the helpers, rendering and coercion: the string form of section 8.4,
 * emptiness and truthiness of section 17.6, type names, decimal parsing and JSON equality.
 */

/** TypeName is the name `typeOf` reports for a value (upstream's Go names). */
export type TypeName = 'map' | 'slice' | 'string' | 'number' | 'bool' | 'null';

/** isPlainMap tells whether a value is a map (a non-null, non-array object). */
export function isPlainMap(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/** typeName returns `map`, `slice`, `string`, `number`, `bool` or `null` (absent counts as null). */
export function typeName(value: unknown): TypeName {
  if (value == null) return 'null';
  if (typeof value === 'string') return 'string';
  if (typeof value === 'number' || typeof value === 'bigint') return 'number';
  if (typeof value === 'boolean') return 'bool';
  if (Array.isArray(value)) return 'slice';
  return 'map';
}

/**
 * numberForm prints a number in shortest decimal form (`3`, `2.5`, `1000000000000000000000`), never
 * in exponent notation.
 */
export function numberForm(value: number): string {
  const text = String(value);
  if (!Number.isFinite(value) || !/e/i.test(text)) return text;
  const match = /^(-?)(\d)(?:\.(\d+))?e([+-]\d+)$/i.exec(text);
  if (match == null) return text;
  const [, sign = '', lead = '', rest = '', exp = '0'] = match;
  const digits = lead + rest;
  const point = 1 + Number(exp);
  if (point <= 0) return `${sign}0.${'0'.repeat(-point)}${digits}`;
  if (point >= digits.length) return `${sign}${digits}${'0'.repeat(point - digits.length)}`;
  return `${sign}${digits.slice(0, point)}.${digits.slice(point)}`;
}

/**
 * stringForm is the string form of section 8.4: absent and null give `""`, strings are kept,
 * numbers use the shortest decimal form, booleans `true`/`false`, maps and lists compact JSON.
 */
export function stringForm(value: unknown): string {
  if (value == null) return '';
  switch (typeof value) {
    case 'string':
      return value;
    case 'number':
      return numberForm(value);
    case 'boolean':
    case 'bigint':
      return String(value);
    default:
      return JSON.stringify(value) ?? '';
  }
}

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
export function jsonEqual(a: unknown, b: unknown): boolean {
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
