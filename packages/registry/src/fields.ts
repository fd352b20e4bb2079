import { stringForm } from '@orkestra/types';
import { RegistryError, RegistryErrorCode } from './errors.js';
import { isQuantity } from './quantity.js';

type Json = unknown;

/**
 * Fields reads a rendered Katalog entry (plain JSON) and coerces known scalar fields
 * (docs/reference/katalog.md §17.4); every failure is a `TemplateError` naming the Katalog path and the value.
 */
export class Fields {
  readonly path: string;
  readonly #obj: Readonly<Record<string, Json>>;

  constructor(obj: unknown, path: string) {
    if (obj == null || typeof obj !== 'object' || Array.isArray(obj)) {
      throw fail(path, 'expected a map', obj);
    }
    this.#obj = obj as Readonly<Record<string, Json>>;
    this.path = path;
  }

  /** raw returns the value under `key` as is. */
  raw(key: string): Json {
    const v = this.#obj[key];
    return v === null ? undefined : v;
  }

  /** has tells whether `key` is present (and not null). */
  has(key: string): boolean {
    return this.raw(key) !== undefined;
  }

  /** keys lists the keys present. */
  keys(): string[] {
    return Object.keys(this.#obj).filter((k) => this.has(k));
  }

  at(key: string): string {
    return `${this.path}.${key}`;
  }

  str(key: string): string | undefined {
    return coerceString(this.raw(key), this.at(key));
  }

  reqStr(key: string): string {
    const v = this.str(key);
    if (v == null || v === '') throw fail(this.at(key), 'is required', v);
    return v;
  }

  int(key: string): number | undefined {
    return coerceInt(this.raw(key), this.at(key));
  }

  reqInt(key: string): number {
    const v = this.int(key);
    if (v == null) throw fail(this.at(key), 'is required', v);
    return v;
  }

  bool(key: string): boolean | undefined {
    return coerceBool(this.raw(key), this.at(key));
  }

  quantity(key: string): string | undefined {
    return coerceQuantity(this.raw(key), this.at(key));
  }

  intOrPercent(key: string): number | string | undefined {
    return coerceIntOrPercent(this.raw(key), this.at(key));
  }

  /** intOrString reads a port-like field: an integer, or a name. */
  intOrString(key: string): number | string | undefined {
    const v = this.raw(key);
    if (v === undefined) return undefined;
    if (typeof v === 'number' || (typeof v === 'string' && /^-?\d+$/.test(v.trim())))
      return coerceInt(v, this.at(key));
    return coerceString(v, this.at(key));
  }

  strList(key: string): string[] | undefined {
    const v = this.raw(key);
    if (v === undefined) return undefined;
    if (!Array.isArray(v)) throw fail(this.at(key), 'expected a list', v);
    return v.map((item, i) => coerceString(item, `${this.at(key)}[${i}]`) ?? '');
  }

  /** strMap reads a map of strings; numbers and booleans become strings, maps and lists JSON when `json` is set. */
  strMap(key: string, options: { json?: boolean } = {}): Record<string, string> | undefined {
    const v = this.raw(key);
    if (v === undefined) return undefined;
    if (typeof v !== 'object' || Array.isArray(v)) throw fail(this.at(key), 'expected a map', v);
    const out: Record<string, string> = {};
    for (const [k, item] of Object.entries(v as Record<string, Json>)) {
      if (item == null) continue;
      if (options.json === true && typeof item === 'object') out[k] = JSON.stringify(item);
      else out[k] = coerceString(item, `${this.at(key)}.${k}`) ?? '';
    }
    return out;
  }

  obj(key: string): Fields | undefined {
    const v = this.raw(key);
    return v === undefined ? undefined : new Fields(v, this.at(key));
  }

  list(key: string): Fields[] | undefined {
    const v = this.raw(key);
    if (v === undefined) return undefined;
    if (!Array.isArray(v)) throw fail(this.at(key), 'expected a list', v);
    return v.map((item, i) => new Fields(item, `${this.at(key)}[${i}]`));
  }

  /** first returns the first present key among aliases (e.g. `secretName` for `name`). */
  alias(...keys: string[]): string | undefined {
    return keys.find((k) => this.has(k));
  }
}

function fail(path: string, what: string, value: unknown): RegistryError {
  const shown = value === undefined ? '' : `, got ${JSON.stringify(value)}`;
  return new RegistryError(RegistryErrorCode.TemplateError, `${what}${shown}`, { katalogPath: path });
}

/** coerceString accepts strings, numbers and booleans (converted to their string form, docs/reference/katalog.md §8.4). */
function coerceString(v: Json, path: string): string | undefined {
  if (v == null) return undefined;
  if (typeof v === 'string') return v;
  if (typeof v === 'number' || typeof v === 'boolean') return stringForm(v);
  throw fail(path, 'expected a string', v);
}

/** coerceInt accepts integers and strings of an optional minus sign followed by digits. */
function coerceInt(v: Json, path: string): number | undefined {
  if (v == null) return undefined;
  if (typeof v === 'number' && Number.isInteger(v)) return v;
  if (typeof v === 'string' && /^-?\d+$/.test(v.trim())) return Number.parseInt(v.trim(), 10);
  throw fail(path, 'expected an integer', v);
}

/** coerceBool accepts booleans and `"true"`/`"false"` in any case. */
function coerceBool(v: Json, path: string): boolean | undefined {
  if (v == null) return undefined;
  if (typeof v === 'boolean') return v;
  if (typeof v === 'string') {
    const t = v.trim().toLowerCase();
    if (t === 'true') return true;
    if (t === 'false') return false;
  }
  throw fail(path, 'expected a boolean', v);
}

/** coerceQuantity accepts numbers and strings that parse as Kubernetes quantities; returns the string form. */
function coerceQuantity(v: Json, path: string): string | undefined {
  if (v == null) return undefined;
  if (isQuantity(v)) return typeof v === 'number' ? String(v) : v.trim();
  throw fail(path, 'expected a quantity', v);
}

/** coerceIntOrPercent accepts integers (or digit strings) and `"<n>%"`. */
function coerceIntOrPercent(v: Json, path: string): number | string | undefined {
  if (v == null) return undefined;
  if (typeof v === 'number' && Number.isInteger(v)) return v;
  if (typeof v === 'string') {
    const t = v.trim();
    if (/^-?\d+$/.test(t)) return Number.parseInt(t, 10);
    if (/^\d+%$/.test(t)) return t;
  }
  throw fail(path, 'expected an integer or a percentage', v);
}

/** templateError builds the TemplateError a kind raises for a missing or inconsistent field. */
export function templateError(path: string, message: string): RegistryError {
  return new RegistryError(RegistryErrorCode.TemplateError, message, { katalogPath: path });
}
