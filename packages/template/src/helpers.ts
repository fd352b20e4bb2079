import { createHash, randomBytes } from 'node:crypto';
import { stringify as stringifyYaml } from 'yaml';
import {
  codePointLength,
  compareCodePoints,
  isEmpty,
  isPlainMap,
  isTruthy,
  looseEqual,
  parseDecimal,
  stringForm,
  typeName,
} from './string-form.js';
import { upstreamHelpers } from './upstream-helpers.js';
import { goDuration, upstreamTimeNotes } from './upstream-time-notes.js';

/** RandomSource returns `size` cryptographically secure random bytes. */
export type RandomSource = (size: number) => Uint8Array;

/** Clock tells the current time in epoch milliseconds; tests pass a fixed or manual clock. */
export interface Clock {
  now(): number;
}

/** HelperDefinition is one template helper: its arity and its implementation over positional arguments. */
export interface HelperDefinition {
  /** Fewest positional arguments. */
  readonly minArgs: number;
  /** Most positional arguments (`Infinity` for variadic helpers). */
  readonly maxArgs: number;
  /** True when the result differs between calls with the same arguments (`now`, `uuid`, random helpers). */
  readonly volatile?: boolean;
  /** Computes the result; throws {@link HelperFailure} for bad input. */
  readonly fn: (args: readonly unknown[]) => unknown;
}

/** HelperFailure is thrown by a helper for bad input; rendering turns it into a `TemplateError`. */
export class HelperFailure extends Error {
  override readonly name: string = 'HelperFailure';
}

/** HelperOptions are the effects helpers use. */
export interface HelperOptions {
  /** Source of random bytes for `randomAlphanumeric`, `randomHex`, `randomBase64`, `uuid`. Default `crypto.randomBytes`. */
  readonly random?: RandomSource;
  /** Source of time for `now`. Default the system clock. */
  readonly clock?: Clock;
}

const systemClock: Clock = { now: () => Date.now() };
const maxRandomSize = 65_536;

/** The deepest value `toJson` writes; deeper data is a clear error, not a stack overflow. */
const MAX_JSON_DEPTH = 512;

/** depthOver says whether `value` nests arrays or objects more than `limit` deep (iteratively, no recursion). */
function depthOver(value: unknown, limit: number): boolean {
  const stack: [unknown, number][] = [[value, 0]];
  while (stack.length > 0) {
    const [node, depth] = stack.pop() as [unknown, number];
    if (node == null || typeof node !== 'object') continue;
    if (depth >= limit) return true;
    for (const child of Array.isArray(node) ? node : Object.values(node)) stack.push([child, depth + 1]);
  }
  return false;
}

function fail(helper: string, message: string): never {
  throw new HelperFailure(`${helper}: ${message}`);
}

function show(value: unknown): string {
  return value === undefined ? 'absent' : (JSON.stringify(value) ?? String(value));
}

function toInteger(helper: string, value: unknown): number {
  if (typeof value === 'number') {
    if (!Number.isFinite(value)) fail(helper, `cannot convert ${show(value)} to an integer`);
    return Math.trunc(value) + 0;
  }
  if (typeof value === 'boolean') return value ? 1 : 0;
  if (typeof value === 'string' && /^[+-]?\d+$/.test(value)) {
    const parsed = Number(value);
    if (Number.isSafeInteger(parsed)) return parsed;
  }
  return fail(helper, `cannot convert ${show(value)} to an integer`);
}

function toNumber(helper: string, value: unknown): number {
  const parsed = parseDecimal(value);
  return parsed ?? fail(helper, `expected a number, got ${show(value)}`);
}

function toSize(helper: string, value: unknown): number {
  const size = toInteger(helper, value);
  if (size < 0 || size > maxRandomSize)
    fail(helper, `size must be between 0 and ${maxRandomSize}, got ${size}`);
  return size;
}

function arithmetic(
  name: string,
  combine: (a: number, b: number, integers: boolean) => number,
): HelperDefinition {
  return {
    minArgs: 2,
    maxArgs: Infinity,
    fn: (args) => {
      const numbers = args.map((arg) => toNumber(name, arg));
      const integers = numbers.every((n) => Number.isInteger(n));
      return numbers.slice(1).reduce((acc, n) => combine(acc, n, integers), numbers[0] ?? 0);
    },
  };
}

function compare(name: string, test: (order: number) => boolean): HelperDefinition {
  return {
    minArgs: 2,
    maxArgs: 2,
    fn: ([a, b]) => {
      const x = parseDecimal(a);
      const y = parseDecimal(b);
      if (x !== undefined && y !== undefined) return test(x === y ? 0 : x < y ? -1 : 1);
      return test(compareCodePoints(stringForm(a), stringForm(b)));
    },
  };
}

function at(value: unknown, ...keys: string[]): unknown {
  let current = value;
  for (const key of keys) {
    if (!isPlainMap(current) || !Object.hasOwn(current, key)) return undefined;
    current = current[key];
  }
  return current;
}

function hasCondition(obj: unknown, type: unknown, status: unknown = 'True'): boolean {
  const conditions = at(obj, 'status', 'conditions');
  if (!Array.isArray(conditions)) return false;
  const wantType = stringForm(type);
  const wantStatus = stringForm(status);
  return conditions.some(
    (condition) =>
      stringForm(at(condition, 'type')) === wantType && stringForm(at(condition, 'status')) === wantStatus,
  );
}

const rfc3339 = /^\d{4}-\d{2}-\d{2}[Tt ]\d{2}:\d{2}:\d{2}(?:\.\d+)?(?:[Zz]|[+-]\d{2}:\d{2})$/;

function toEpochMs(helper: string, value: unknown): number {
  if (typeof value === 'string' && rfc3339.test(value)) {
    const ms = Date.parse(value.replace(' ', 'T'));
    if (Number.isFinite(ms)) return ms;
  }
  const seconds = parseDecimal(value);
  if (seconds !== undefined) return seconds * 1000;
  return fail(helper, `expected an RFC 3339 time or epoch seconds, got ${show(value)}`);
}

function pad(value: number, width: number): string {
  return String(value).padStart(width, '0');
}

/** formatTime renders epoch milliseconds in UTC with a layout of `formatDate`. */
function formatTime(ms: number, layout: string): string {
  const date = new Date(ms);
  if (layout === 'RFC3339') return `${date.toISOString().slice(0, 19)}Z`;
  if (layout === 'unix') return String(Math.floor(ms / 1000));
  return layout.replace(/YYYY|MM|DD|HH|mm|SSS|ss/g, (token) => {
    switch (token) {
      case 'YYYY':
        return pad(date.getUTCFullYear(), 4);
      case 'MM':
        return pad(date.getUTCMonth() + 1, 2);
      case 'DD':
        return pad(date.getUTCDate(), 2);
      case 'HH':
        return pad(date.getUTCHours(), 2);
      case 'mm':
        return pad(date.getUTCMinutes(), 2);
      case 'ss':
        return pad(date.getUTCSeconds(), 2);
      default:
        return pad(date.getUTCMilliseconds(), 3);
    }
  });
}

const alphanumeric = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789';
const strictUtf8 = new TextDecoder('utf-8', { fatal: true });

function base64Decode(helper: string, text: string): string {
  const body = text.replace(/=+$/, '');
  if (!/^[A-Za-z0-9+/_-]*$/.test(body) || body.length % 4 === 1 || text.length - body.length > 2) {
    fail(helper, `invalid base64 input ${show(text)}`);
  }
  try {
    return strictUtf8.decode(Buffer.from(body, 'base64'));
  } catch {
    return fail(helper, `decoded bytes of ${show(text)} are not UTF-8`);
  }
}

function trimSet(text: string, cutset: string): string {
  const cut = new Set(Array.from(cutset));
  const chars = Array.from(text);
  let start = 0;
  let end = chars.length;
  while (start < end && cut.has(chars[start] ?? '')) start++;
  while (end > start && cut.has(chars[end - 1] ?? '')) end--;
  return chars.slice(start, end).join('');
}

function toList(value: unknown): readonly unknown[] {
  if (value == null) return [];
  return Array.isArray(value) ? value : [value];
}

/**
 * createHelpers builds the helper library of section 17.6, with upstream aliases, bound to the
 * given random source and clock.
 *
 * @example
 * const helpers = createHelpers({ clock: { now: () => Date.UTC(2026, 0, 1) } });
 * helpers.now?.fn([]); // "2026-01-01T00:00:00Z"
 */
export function createHelpers(options: HelperOptions = {}): Readonly<Record<string, HelperDefinition>> {
  const random = options.random ?? ((size: number) => randomBytes(size));
  const clock = options.clock ?? systemClock;

  const bytes = (helper: string, size: number): Uint8Array => {
    const out = random(size);
    if (out.length < size) fail(helper, `random source returned ${out.length} bytes, wanted ${size}`);
    return out;
  };

  const lower: HelperDefinition = { minArgs: 1, maxArgs: 1, fn: ([s]) => stringForm(s).toLowerCase() };
  const upper: HelperDefinition = { minArgs: 1, maxArgs: 1, fn: ([s]) => stringForm(s).toUpperCase() };
  const b64enc: HelperDefinition = {
    minArgs: 1,
    maxArgs: 1,
    fn: ([s]) => Buffer.from(stringForm(s), 'utf8').toString('base64'),
  };
  const b64dec: HelperDefinition = {
    minArgs: 1,
    maxArgs: 1,
    fn: ([s]) => base64Decode('b64dec', stringForm(s)),
  };
  const toJson: HelperDefinition = {
    minArgs: 1,
    maxArgs: 1,
    fn: ([v]) => {
      // JSON.stringify recurses: data nested thousands deep (a CR can be) would overflow the stack.
      if (depthOver(v, MAX_JSON_DEPTH)) fail('toJson', `value nested more than ${MAX_JSON_DEPTH} deep`);
      return JSON.stringify(v ?? null);
    },
  };
  const uuid: HelperDefinition = {
    minArgs: 0,
    maxArgs: 0,
    volatile: true,
    fn: () => {
      const b = Uint8Array.from(bytes('uuid', 16).subarray(0, 16));
      b[6] = ((b[6] ?? 0) & 0x0f) | 0x40;
      b[8] = ((b[8] ?? 0) & 0x3f) | 0x80;
      const hex = Buffer.from(b).toString('hex');
      return `${hex.slice(0, 8)}-${hex.slice(8, 12)}-${hex.slice(12, 16)}-${hex.slice(16, 20)}-${hex.slice(20)}`;
    },
  };
  const int: HelperDefinition = { minArgs: 1, maxArgs: 1, fn: ([v]) => toInteger('int', v) };
  const float: HelperDefinition = { minArgs: 1, maxArgs: 1, fn: ([v]) => toNumber('float', v) };
  const sha256hex = (s: unknown): string => createHash('sha256').update(stringForm(s), 'utf8').digest('hex');
  const trim: HelperDefinition = {
    minArgs: 1,
    maxArgs: 2,
    fn: ([s, cutset]) => (cutset == null ? stringForm(s).trim() : trimSet(stringForm(s), stringForm(cutset))),
  };

  const helpers: Record<string, HelperDefinition> = {
    // Comparison and logic.
    eq: { minArgs: 2, maxArgs: 2, fn: ([a, b]) => looseEqual(a, b) },
    ne: { minArgs: 2, maxArgs: 2, fn: ([a, b]) => !looseEqual(a, b) },
    lt: compare('lt', (order) => order < 0),
    le: compare('le', (order) => order <= 0),
    gt: compare('gt', (order) => order > 0),
    ge: compare('ge', (order) => order >= 0),
    and: { minArgs: 1, maxArgs: Infinity, fn: (args) => args.every(isTruthy) },
    or: { minArgs: 1, maxArgs: Infinity, fn: (args) => args.some(isTruthy) },
    not: { minArgs: 1, maxArgs: 1, fn: ([v]) => !isTruthy(v) },
    default: { minArgs: 2, maxArgs: 2, fn: ([value, fallback]) => (isEmpty(value) ? fallback : value) },
    coalesce: { minArgs: 1, maxArgs: Infinity, fn: (args) => args.find((arg) => !isEmpty(arg)) },
    empty: { minArgs: 1, maxArgs: 1, fn: ([v]) => isEmpty(v) },
    ternary: { minArgs: 3, maxArgs: 3, fn: ([cond, a, b]) => (isTruthy(cond) ? a : b) },
    typeOf: { minArgs: 1, maxArgs: 1, fn: ([v]) => typeName(v) },

    // Conversion and encoding.
    int,
    float,
    toString: { minArgs: 1, maxArgs: 1, fn: ([v]: readonly unknown[]) => stringForm(v) },
    toJson,
    toYaml: {
      minArgs: 1,
      maxArgs: 1,
      fn: ([v]) => stringifyYaml(v ?? null, { lineWidth: 0 }).replace(/\n$/, ''),
    },
    fromJson: {
      minArgs: 1,
      maxArgs: 1,
      fn: ([s]) => {
        try {
          return JSON.parse(stringForm(s)) as unknown;
        } catch {
          return fail('fromJson', `invalid JSON ${show(s)}`);
        }
      },
    },
    b64enc,
    b64dec,
    sha256: { minArgs: 1, maxArgs: 1, fn: ([s]) => sha256hex(s) },
    quote: { minArgs: 1, maxArgs: 1, fn: ([s]) => JSON.stringify(stringForm(s)) },

    // Strings.
    upper,
    lower,
    title: {
      minArgs: 1,
      maxArgs: 1,
      fn: ([s]) =>
        stringForm(s).replace(
          /(^|[^\p{L}\p{N}_])(\p{Ll})/gu,
          (_m, sep: string, ch: string) => sep + ch.toUpperCase(),
        ),
    },
    trim,
    trunc: {
      minArgs: 2,
      maxArgs: 2,
      fn: ([s, n]) => {
        const chars = Array.from(stringForm(s));
        const count = toInteger('trunc', n);
        return count >= 0
          ? chars.slice(0, count).join('')
          : chars.slice(Math.max(0, chars.length + count)).join('');
      },
    },
    replace: {
      minArgs: 3,
      maxArgs: 3,
      fn: ([s, old, replacement]) => {
        const text = stringForm(s);
        const search = stringForm(old);
        return search === '' ? text : text.split(search).join(stringForm(replacement));
      },
    },
    contains: {
      minArgs: 2,
      maxArgs: 2,
      fn: ([s, x]) =>
        Array.isArray(s) ? s.some((item) => looseEqual(item, x)) : stringForm(s).includes(stringForm(x)),
    },
    hasPrefix: { minArgs: 2, maxArgs: 2, fn: ([s, p]) => stringForm(s).startsWith(stringForm(p)) },
    hasSuffix: { minArgs: 2, maxArgs: 2, fn: ([s, p]) => stringForm(s).endsWith(stringForm(p)) },
    split: {
      minArgs: 2,
      maxArgs: 2,
      fn: ([s, sep]) => {
        const text = stringForm(s);
        if (text === '') return [];
        const separator = stringForm(sep);
        return separator === '' ? Array.from(text) : text.split(separator);
      },
    },
    join: {
      minArgs: 2,
      maxArgs: 2,
      fn: ([list, sep]) => toList(list).map(stringForm).join(stringForm(sep)),
    },

    // Lists and maps.
    list: { minArgs: 0, maxArgs: Infinity, fn: (args) => [...args] },
    dict: {
      minArgs: 0,
      maxArgs: Infinity,
      fn: (args) => {
        if (args.length % 2 !== 0) fail('dict', `expected key/value pairs, got ${args.length} arguments`);
        const out: Record<string, unknown> = {};
        for (let i = 0; i < args.length; i += 2) out[stringForm(args[i])] = args[i + 1];
        return out;
      },
    },
    len: {
      minArgs: 1,
      maxArgs: 1,
      fn: ([v]) => {
        if (v == null) return 0;
        if (typeof v === 'string') return codePointLength(v);
        if (Array.isArray(v)) return v.length;
        if (isPlainMap(v)) return Object.keys(v).length;
        return fail('len', `expected a string, list or map, got ${show(v)}`);
      },
    },

    // Arithmetic.
    add: arithmetic('add', (a, b) => a + b),
    sub: { ...arithmetic('sub', (a, b) => a - b), maxArgs: 2 },
    mul: arithmetic('mul', (a, b) => a * b),
    div: {
      ...arithmetic('div', (a, b, integers) => {
        if (b === 0) fail('div', 'division by zero');
        return integers ? Math.trunc(a / b) + 0 : a / b;
      }),
      maxArgs: 2,
    },
    mod: {
      ...arithmetic('mod', (a, b) => {
        if (b === 0) fail('mod', 'division by zero');
        return (a % b) + 0;
      }),
      maxArgs: 2,
    },
    min: { ...arithmetic('min', (a, b) => Math.min(a, b)), minArgs: 1 },
    max: { ...arithmetic('max', (a, b) => Math.max(a, b)), minArgs: 1 },

    // Time and randomness.
    now: {
      minArgs: 0,
      maxArgs: 0,
      volatile: true,
      fn: () => formatTime(clock.now(), 'RFC3339'),
    },
    // Upstream's `timeUntil` (docs/reference/katalog.md §20.2): the duration from now until a time,
    // written the way Go prints one ("72h0m0s"), "0s" when the time is past or not a time.
    timeUntil: {
      minArgs: 1,
      maxArgs: 1,
      volatile: true,
      fn: ([t]) => {
        let ms: number;
        try {
          ms = toEpochMs('timeUntil', t);
        } catch {
          return '0s';
        }
        return goDuration(ms - clock.now());
      },
    },
    formatDate: {
      minArgs: 2,
      maxArgs: 2,
      fn: ([t, layout]) => {
        const ms = toEpochMs('formatDate', t);
        if (!Number.isFinite(new Date(ms).getTime())) fail('formatDate', `time out of range: ${show(t)}`);
        return formatTime(ms, stringForm(layout));
      },
    },
    randomAlphanumeric: {
      minArgs: 1,
      maxArgs: 1,
      volatile: true,
      fn: ([n]) => {
        const size = toSize('randomAlphanumeric', n);
        let out = '';
        while (out.length < size) {
          // 248 = 4 * 62: bytes at or above it are rejected so every character is equally likely.
          for (const byte of bytes('randomAlphanumeric', size - out.length + 8)) {
            if (byte < 248) out += alphanumeric[byte % 62];
            if (out.length === size) break;
          }
        }
        return out;
      },
    },
    randomHex: {
      minArgs: 1,
      maxArgs: 1,
      volatile: true,
      fn: ([n]) => {
        const size = toSize('randomHex', n);
        return Buffer.from(bytes('randomHex', size).subarray(0, size)).toString('hex');
      },
    },
    randomBase64: {
      minArgs: 1,
      maxArgs: 1,
      volatile: true,
      fn: ([n]) => {
        const size = toSize('randomBase64', n);
        return Buffer.from(bytes('randomBase64', size).subarray(0, size)).toString('base64url');
      },
    },
    uuid,
    cronExpr: {
      minArgs: 0,
      maxArgs: 5,
      fn: (args) => [0, 1, 2, 3, 4].map((i) => (isEmpty(args[i]) ? '*' : stringForm(args[i]))).join(' '),
    },

    // Kubernetes object helpers.
    readyReplicas: {
      minArgs: 1,
      maxArgs: 1,
      fn: ([obj]) => parseDecimal(at(obj, 'status', 'readyReplicas')) ?? 0,
    },
    allReplicasReady: {
      minArgs: 1,
      maxArgs: 1,
      fn: ([obj]) => {
        if (!isPlainMap(obj)) return false;
        const observed = parseDecimal(at(obj, 'status', 'observedGeneration')) ?? 0;
        const generation = parseDecimal(at(obj, 'metadata', 'generation')) ?? 0;
        const ready = parseDecimal(at(obj, 'status', 'readyReplicas')) ?? 0;
        const wanted = parseDecimal(at(obj, 'spec', 'replicas')) ?? 1;
        return observed >= generation && ready === wanted;
      },
    },
    hasCondition: {
      minArgs: 2,
      maxArgs: 3,
      fn: ([obj, type, status]) => hasCondition(obj, type, status ?? 'True'),
    },
    jobSucceeded: { minArgs: 1, maxArgs: 1, fn: ([obj]) => hasCondition(obj, 'Complete') },
    jobFailed: { minArgs: 1, maxArgs: 1, fn: ([obj]) => hasCondition(obj, 'Failed') },

    // Upstream aliases.
    toLower: lower,
    toUpper: upper,
    toBase64: b64enc,
    fromBase64: b64dec,
    toJSON: toJson,
    uuidv4: uuid,
    toInt: int,
    toFloat: float,
    trimSpace: { ...trim, maxArgs: 1 },
    sha256sum: { minArgs: 1, maxArgs: 1, fn: ([s]) => sha256hex(s).slice(0, 8) },
  };
  // A prototype-free record, so `constructor` or `toString` never look like helpers by accident.
  // Upstream's helpers come first: a helper of the library with the same name wins.
  return Object.freeze(
    Object.assign(
      Object.create(null) as Record<string, HelperDefinition>,
      upstreamHelpers(),
      upstreamTimeNotes(clock),
      helpers,
    ),
  );
}

/** builtinHelperArity lists the Handlebars built-ins a template may use, with their arity. */
export const builtinHelperArity: Readonly<
  Record<string, { readonly minArgs: number; readonly maxArgs: number }>
> = Object.freeze(
  Object.assign(
    Object.create(null) as Record<string, { readonly minArgs: number; readonly maxArgs: number }>,
    {
      if: { minArgs: 1, maxArgs: 1 },
      unless: { minArgs: 1, maxArgs: 1 },
      each: { minArgs: 1, maxArgs: 1 },
      with: { minArgs: 1, maxArgs: 1 },
      lookup: { minArgs: 2, maxArgs: 2 },
    },
  ),
);
