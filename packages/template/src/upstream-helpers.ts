import type { HelperDefinition } from './helpers.js';
import { isEmpty, isPlainMap, isTruthy, looseEqual, parseDecimal, stringForm } from './string-form.js';
import { upstreamEnrichedNotes } from './upstream-enriched-notes.js';
import { upstreamInrunNotes } from './upstream-inrun-notes.js';
import { upstreamKubeNotes } from './upstream-kube-notes.js';

/**
 * Upstream Orkestra's template helpers ("notes") that mean something here
 * (docs/reference/katalog.md §17.1.1, §17.6): Go's built-ins, and upstream's safe-access,
 * collection, field and container helpers. Each keeps upstream's documented argument order and
 * result.
 */

/**
 * UPSTREAM_HELPER_HINTS names upstream helpers that are not implemented here, with what to write
 * instead (docs/reference/katalog.md §24). They are rejected, but never without an
 * alternative.
 */
export const UPSTREAM_HELPER_HINTS: Readonly<Record<string, string>> = {
  joinList:
    'upstream has no `joinList` note either (its template parse fails: function "joinList" not defined); upstream’s `join` takes the same arguments: `{{ join .spec.regions "," }}`',
};

/** GO_INDEX_HELPER is the name Go's `index` compiles to (`index` itself is a context key of forEach copies). */
export const GO_INDEX_HELPER = '__goIndex';

/** GO_RANGE_HELPER is what a Go `range` iterates: a map with its keys sorted (as Go does), a list as it is. */
export const GO_RANGE_HELPER = '__goRange';

/**
 * GO_BUILTINS maps Go's built-in template functions whose meaning differs from the library helper
 * of the same name (or that have none) to the internal helper a Go template compiles to: `and`
 * and `or` give the deciding operand (not a boolean), truth is Go's (an empty map is false),
 * `eq` takes several candidates, `len` of a string counts bytes, and `slice`, `html`, `js`, `urlquery`, `println` are Go's own.
 * The names are internal: the library of docs/reference/katalog.md §17.6 is unchanged.
 */
export const GO_BUILTINS: Readonly<Record<string, string>> = {
  and: '__goAnd',
  or: '__goOr',
  not: '__goNot',
  eq: '__goEq',
  len: '__goLen',
  slice: '__goSlice',
  html: '__goHtml',
  js: '__goJs',
  urlquery: '__goUrlquery',
  println: '__goPrintln',
};

/** GO_TRUTH_HELPER is a Go `if`/`with` condition: the value when Go calls it true, else null. */
export const GO_TRUTH_HELPER = '__goTruth';

/** goTruth is Go's truth: false, 0, nil, and an empty string, list or map are false. */
function goTruth(value: unknown): boolean {
  if (value == null || value === false || value === 0 || value === '') return false;
  if (Array.isArray(value)) return value.length > 0;
  if (isPlainMap(value)) return Object.keys(value).length > 0;
  return true;
}

/** goFloatText is Go's `%v` of a float64: shortest digits, with an exponent below 1e-4 or from 1e6 on. */
export function goFloatText(value: number): string {
  if (value === 0 || !Number.isFinite(value)) return String(value);
  const [mantissa = '', power = '0'] = value.toExponential().split('e');
  const exponent = Number(power);
  if (exponent >= -4 && exponent < 6) return String(value);
  const digits = String(Math.abs(exponent)).padStart(2, '0');
  return `${mantissa}e${exponent < 0 ? '-' : '+'}${digits}`;
}

/** goValueText is Go's `%v` of a value: `<nil>`, `[a b]` for a list, `map[k:v]` (sorted keys) for a map. */
function goValueText(value: unknown): string {
  if (value == null) return '<nil>';
  if (Array.isArray(value)) return `[${value.map(goValueText).join(' ')}]`;
  if (isPlainMap(value))
    return `map[${Object.keys(value)
      .sort()
      .map((key) => `${key}:${goValueText(value[key])}`)
      .join(' ')}]`;
  if (typeof value === 'number' && !Number.isInteger(value)) return goFloatText(value);
  return stringForm(value);
}

/** goPrint is Go's fmt.Sprint: a space between operands when neither is a string. */
function goPrint(args: readonly unknown[]): string {
  return args.reduce<string>((out, arg, i) => {
    const prev = args[i - 1];
    const space = i > 0 && typeof arg !== 'string' && typeof prev !== 'string' ? ' ' : '';
    return out + space + goValueText(arg);
  }, '');
}

/** goEscapeArg is the text Go's html, js and urlquery escape: one string as it is, else their Sprint. */
function goEscapeArg(args: readonly unknown[]): string {
  const [only] = args;
  return args.length === 1 && typeof only === 'string' ? only : goPrint(args);
}

const HTML_ESCAPES: Readonly<Record<string, string>> = {
  '<': '&lt;',
  '>': '&gt;',
  '&': '&amp;',
  "'": '&#39;',
  '"': '&#34;',
  '\0': '\uFFFD',
};

const JS_ESCAPES: Readonly<Record<string, string>> = {
  '\\': '\\\\',
  "'": "\\'",
  '"': '\\"',
  '<': '\\u003C',
  '>': '\\u003E',
  '&': '\\u0026',
  '=': '\\u003D',
};

/** jsEscape is Go's template.JSEscapeString. */
function jsEscape(text: string): string {
  let out = '';
  for (const ch of text) {
    const code = ch.codePointAt(0) ?? 0;
    const known = JS_ESCAPES[ch];
    if (known != null) out += known;
    else if (code < 0x20) out += `\\u00${code.toString(16).toUpperCase().padStart(2, '0')}`;
    else if (code >= 0x80 && !/[\p{L}\p{M}\p{N}\p{P}\p{S}\u0020]/u.test(ch))
      out += `\\u${code.toString(16).toUpperCase().padStart(4, '0')}`;
    else out += ch;
  }
  return out;
}

/** queryEscape is Go's url.QueryEscape: unreserved bytes kept, a space as `+`, the rest %XX. */
function queryEscape(text: string): string {
  let out = '';
  for (const byte of Buffer.from(text, 'utf8')) {
    const ch = String.fromCharCode(byte);
    if (/[A-Za-z0-9\-_.~]/.test(ch)) out += ch;
    else if (ch === ' ') out += '+';
    else out += `%${byte.toString(16).toUpperCase().padStart(2, '0')}`;
  }
  return out;
}

/** goSlice is Go's `slice x i j k`: a substring (by byte index) or a sub-list. */
function goSlice(value: unknown, indexes: readonly unknown[]): unknown {
  const bounds = indexes.map((index) => {
    const n = parseDecimal(index);
    if (n === undefined || !Number.isInteger(n) || n < 0)
      throw new Error(`slice: bad index ${stringForm(index)}`);
    return n;
  });
  if (bounds.length > 3) throw new Error('slice: too many indexes');
  if (typeof value === 'string') {
    if (bounds.length === 3) throw new Error('slice: cannot 3-index slice a string');
    const bytes = Buffer.from(value, 'utf8');
    const [from = 0, to = bytes.length] = bounds;
    if (from > to || to > bytes.length) throw new Error(`slice: index out of range: ${to}`);
    return bytes.subarray(from, to).toString('utf8');
  }
  if (Array.isArray(value)) {
    const [from = 0, to = value.length, max = value.length] = bounds;
    if (from > to || to > max || max > value.length) throw new Error(`slice: index out of range: ${to}`);
    return value.slice(from, to);
  }
  if (value == null) throw new Error('slice: slice of untyped nil');
  throw new Error(`slice: can't slice item of type ${typeof value}`);
}

function child(value: unknown, key: unknown): unknown {
  if (Array.isArray(value)) {
    const index = parseDecimal(key);
    return index === undefined || !Number.isInteger(index) ? undefined : value[index];
  }
  if (isPlainMap(value)) {
    const name = stringForm(key);
    return Object.hasOwn(value, name) ? value[name] : undefined;
  }
  return undefined;
}

function path(value: unknown, keys: readonly unknown[]): unknown {
  let current = value;
  for (const key of keys) {
    // A dotted string key walks several levels, as upstream's `get` does.
    const parts = typeof key === 'string' && key.includes('.') ? key.split('.') : [key];
    for (const part of parts) current = child(current, part);
  }
  return current;
}

/** container returns `spec.template.spec.containers[index]` of a workload (or `spec.containers` of a Pod). */
function container(obj: unknown, index: unknown): unknown {
  const podSpec = path(obj, ['spec', 'template', 'spec']) ?? path(obj, ['spec']);
  return child(path(podSpec, ['containers']), index ?? 0);
}

/** formatGo formats like Go's fmt.Sprintf for the verbs templates use: %s %d %v %q %f %t %x %%. */
function formatGo(format: string, args: readonly unknown[]): string {
  let next = 0;
  return format.replace(
    /%([-+# 0]*)(\d+)?(?:\.(\d+))?([sdvqftxX%])/g,
    (whole, flags: string, width?: string, precision?: string, verb?: string) => {
      if (verb === '%') return '%';
      if (next >= args.length) return `%!${verb}(MISSING)`;
      const arg = args[next++];
      let out: string;
      switch (verb) {
        case 'd': {
          const n = parseDecimal(arg);
          out = n === undefined ? `%!d(${stringForm(arg)})` : String(Math.trunc(n));
          break;
        }
        case 'f': {
          const n = parseDecimal(arg);
          out =
            n === undefined
              ? `%!f(${stringForm(arg)})`
              : n.toFixed(precision === undefined ? 6 : Number(precision));
          break;
        }
        case 'q':
          out = JSON.stringify(stringForm(arg));
          break;
        case 't':
          out = String(isTruthy(arg));
          break;
        case 'x':
        case 'X': {
          const n = parseDecimal(arg);
          out =
            n !== undefined && Number.isInteger(n)
              ? n.toString(16)
              : Buffer.from(stringForm(arg), 'utf8').toString('hex');
          if (verb === 'X') out = out.toUpperCase();
          break;
        }
        default:
          out = goValueText(arg);
      }
      if (width !== undefined && out.length < Number(width)) {
        const pad = (flags.includes('0') && !flags.includes('-') ? '0' : ' ').repeat(
          Number(width) - out.length,
        );
        out = flags.includes('-') ? out + pad : pad + out;
      }
      void whole;
      return out;
    },
  );
}

/** upstreamHelpers returns the upstream helpers, keyed by name. */
export function upstreamHelpers(): Record<string, HelperDefinition> {
  const meta = (key: string): HelperDefinition => ({
    minArgs: 1,
    maxArgs: 1,
    fn: ([obj]) => {
      const value = path(obj, ['metadata', key]);
      return value == null ? '' : stringForm(value);
    },
  });
  return {
    ...upstreamKubeNotes(),
    ...upstreamEnrichedNotes(),
    ...upstreamInrunNotes(),
    // Go built-ins.
    [GO_RANGE_HELPER]: {
      minArgs: 1,
      maxArgs: 1,
      fn: ([value]) =>
        isPlainMap(value)
          ? Object.fromEntries(
              Object.keys(value)
                .sort()
                .map((key) => [key, value[key]]),
            )
          : typeof value === 'number' && Number.isInteger(value)
            ? Array.from({ length: Math.max(0, value) }, (_, i) => i)
            : value,
    },
    [GO_TRUTH_HELPER]: { minArgs: 1, maxArgs: 1, fn: ([value]) => (goTruth(value) ? value : null) },
    __goAnd: {
      minArgs: 1,
      maxArgs: Infinity,
      fn: (args) => args.find((arg) => !goTruth(arg)) ?? args.at(-1),
    },
    __goOr: {
      minArgs: 1,
      maxArgs: Infinity,
      fn: (args) => {
        const found = args.find((arg) => goTruth(arg));
        return found === undefined ? args.at(-1) : found;
      },
    },
    __goNot: { minArgs: 1, maxArgs: 1, fn: ([value]) => !goTruth(value) },
    __goEq: {
      minArgs: 2,
      maxArgs: Infinity,
      fn: ([value, ...candidates]) => candidates.some((candidate) => looseEqual(value, candidate)),
    },
    __goLen: {
      minArgs: 1,
      maxArgs: 1,
      fn: ([value]) => {
        if (typeof value === 'string') return Buffer.byteLength(value, 'utf8');
        if (Array.isArray(value)) return value.length;
        if (isPlainMap(value)) return Object.keys(value).length;
        if (value == null) return 0;
        throw new Error(`len of ${typeof value}`);
      },
    },
    __goSlice: { minArgs: 1, maxArgs: 4, fn: ([value, ...indexes]) => goSlice(value, indexes) },
    __goHtml: {
      minArgs: 0,
      maxArgs: Infinity,
      fn: (args) => goEscapeArg(args).replace(/[<>&'"\0]/g, (ch) => HTML_ESCAPES[ch] ?? ch),
    },
    __goJs: { minArgs: 0, maxArgs: Infinity, fn: (args) => jsEscape(goEscapeArg(args)) },
    __goUrlquery: { minArgs: 0, maxArgs: Infinity, fn: (args) => queryEscape(goEscapeArg(args)) },
    __goPrintln: {
      minArgs: 0,
      maxArgs: Infinity,
      fn: (args) => `${args.map(goValueText).join(' ')}\n`,
    },
    // Registered under an internal name: `index` is the forEach copy number in the context.
    // Go's index and field access: each key is one level, taken literally (`"example.com/x"`).
    [GO_INDEX_HELPER]: {
      minArgs: 1,
      maxArgs: Infinity,
      fn: ([value, ...keys]) => keys.reduce<unknown>((current, key) => child(current, key), value),
    },
    printf: {
      minArgs: 1,
      maxArgs: Infinity,
      fn: ([format, ...args]) => formatGo(stringForm(format), args),
    },
    // Go's print puts a space between operands when neither is a string.
    print: { minArgs: 0, maxArgs: Infinity, fn: (args) => goPrint(args) },
    // Safe access.
    get: { minArgs: 1, maxArgs: Infinity, fn: ([value, ...keys]) => path(value, keys) },
    getOr: { minArgs: 2, maxArgs: 2, fn: ([value, fallback]) => (isEmpty(value) ? fallback : value) },
    getStringOr: {
      minArgs: 2,
      maxArgs: 2,
      fn: ([value, fallback]) => (typeof value === 'string' && value !== '' ? value : fallback),
    },
    getIntOr: {
      minArgs: 2,
      maxArgs: 2,
      fn: ([value, fallback]) =>
        typeof value === 'number' && Number.isFinite(value) ? Math.trunc(value) : fallback,
    },
    getBoolOr: {
      minArgs: 2,
      maxArgs: 2,
      fn: ([value, fallback]) => (typeof value === 'boolean' ? value : fallback),
    },
    boolDefault: {
      minArgs: 2,
      maxArgs: 2,
      fn: ([value, fallback]) => (typeof value === 'boolean' ? value : fallback),
    },
    boolTernary: {
      minArgs: 3,
      maxArgs: 3,
      fn: ([condition, yes, no]) => (condition === true ? yes : no),
    },
    eqTernary: {
      minArgs: 4,
      maxArgs: 4,
      fn: ([value, target, yes, no]) => (stringForm(value) === stringForm(target) ? yes : no),
    },
    notEmpty: { minArgs: 1, maxArgs: 1, fn: ([value]) => !isEmpty(value) },
    // Collections.
    mapGet: { minArgs: 2, maxArgs: 2, fn: ([map, key]) => (isPlainMap(map) ? child(map, key) : undefined) },
    mapKeys: {
      minArgs: 1,
      maxArgs: 1,
      fn: ([map]) => (isPlainMap(map) ? Object.keys(map).sort() : []),
    },
    mapValues: {
      minArgs: 1,
      maxArgs: 1,
      fn: ([map]) =>
        isPlainMap(map)
          ? Object.keys(map)
              .sort()
              .map((k) => map[k])
          : [],
    },
    listGet: {
      minArgs: 2,
      maxArgs: 2,
      fn: ([list, i]) => (Array.isArray(list) ? child(list, i) : undefined),
    },
    listLen: { minArgs: 1, maxArgs: 1, fn: ([list]) => (Array.isArray(list) ? list.length : 0) },
    listHas: {
      minArgs: 2,
      maxArgs: 2,
      fn: ([list, value]) =>
        Array.isArray(list) && list.some((item) => stringForm(item) === stringForm(value)),
    },
    asString: {
      minArgs: 1,
      maxArgs: 1,
      fn: ([value]) =>
        value !== null && typeof value === 'object'
          ? JSON.stringify(value)
          : value == null
            ? ''
            : stringForm(value),
    },
    // Prometheus results (`external.<name>` of `protocol: prometheus`, docs/reference/katalog.md §15.1.1):
    // upstream's helpers, each answering a string as upstream does.
    promValue: { minArgs: 1, maxArgs: 1, fn: ([result]) => promValue(result) },
    promSum: {
      minArgs: 1,
      maxArgs: 1,
      fn: ([result]) => promFold(result, (a, b) => a + b),
    },
    promMax: { minArgs: 1, maxArgs: 1, fn: ([result]) => promFold(result, (a, b) => Math.max(a, b)) },
    promAboveThreshold: {
      minArgs: 2,
      maxArgs: 2,
      fn: ([result, threshold]) => promCompare(result, threshold, (v, t) => v > t),
    },
    promBelowThreshold: {
      minArgs: 2,
      maxArgs: 2,
      fn: ([result, threshold]) => promCompare(result, threshold, (v, t) => v < t),
    },
    promSeriesCount: { minArgs: 1, maxArgs: 1, fn: ([result]) => String(promSamples(result).length) },
    promLabelValues: {
      minArgs: 2,
      maxArgs: 2,
      fn: ([result, label]) =>
        promSeries(result)
          .map((series) => path(series, ['metric', stringForm(label)]))
          .filter((v): v is string => typeof v === 'string')
          .join(','),
    },
    // Kubernetes object fields.
    resourceExists: {
      minArgs: 1,
      maxArgs: 1,
      fn: ([obj]) =>
        isPlainMap(obj) && isPlainMap(obj['metadata']) && Object.keys(obj['metadata']).length > 0,
    },
    resourceName: meta('name'),
    resourceNamespace: meta('namespace'),
    resourceUID: meta('uid'),
    resourceVersion: meta('resourceVersion'),
    creationTimestamp: meta('creationTimestamp'),
    // Containers of a workload child.
    containerImage: {
      minArgs: 1,
      maxArgs: 2,
      fn: ([obj, index]) => {
        const image = path(container(obj, index), ['image']);
        return image == null ? '' : stringForm(image);
      },
    },
    // Two generations: (obj, index, name), and the newer (obj, name[, index]); told apart by the
    // second argument, a number in the older form.
    containerEnv: {
      minArgs: 2,
      maxArgs: 3,
      fn: ([obj, second, third]) => {
        const older =
          typeof second === 'number' || (third !== undefined && parseDecimal(second) !== undefined);
        const [index, name] = older ? [second, third] : [third, second];
        const env = path(container(obj, index), ['env']);
        if (!Array.isArray(env)) return '';
        const found = env.find((item) => isPlainMap(item) && item['name'] === stringForm(name)) as
          Record<string, unknown> | undefined;
        return found?.['value'] == null ? '' : stringForm(found['value']);
      },
    },
    // Two generations: (obj, index, port) is true when the container exposes the port; the newer
    // (obj[, containerIndex[, portIndex]]) is the port number there (0 without one).
    containerPort: {
      minArgs: 1,
      maxArgs: 3,
      fn: (args) => {
        const [obj, index, port] = args;
        const ports = path(container(obj, index), ['ports']);
        if (args.length < 3) {
          const number = parseDecimal(path(ports, [0, 'containerPort']));
          return number === undefined ? 0 : Math.trunc(number);
        }
        const want = parseDecimal(port);
        return Array.isArray(ports) && ports.some((p) => parseDecimal(path(p, ['containerPort'])) === want);
      },
    },
  };
}

/** promValue is a Prometheus result's canonical scalar (`result`): the scalar, or the first series' value. */
function promValue(result: unknown): string {
  const value = isPlainMap(result) ? result['result'] : undefined;
  return typeof value === 'string' ? value : '';
}

/** promSeries are the series of a vector or matrix answer (`raw.data.result`). */
function promSeries(result: unknown): readonly unknown[] {
  const data = path(result, ['raw', 'data']);
  if (!isPlainMap(data) || (data['resultType'] !== 'vector' && data['resultType'] !== 'matrix')) return [];
  return Array.isArray(data['result']) ? data['result'] : [];
}

/**
 * promSamples is one value per series (a vector's sample, a matrix's last one) or the scalar; a
 * result without `raw` falls back to its `result` (as upstream does).
 */
function promSamples(result: unknown): readonly string[] {
  if (!isPlainMap(result)) return [];
  const data = path(result, ['raw', 'data']);
  if (!isPlainMap(data)) {
    const value = promValue(result);
    return value === '' ? [] : [value];
  }
  if (data['resultType'] === 'scalar') {
    const value = Array.isArray(data['result']) ? data['result'][1] : undefined;
    return typeof value === 'string' ? [value] : [];
  }
  return promSeries(result).flatMap((series) => {
    const values = path(series, ['values']);
    const sample = Array.isArray(values) ? values[values.length - 1] : path(series, ['value']);
    const value = Array.isArray(sample) ? sample[1] : undefined;
    return typeof value === 'string' ? [value] : [];
  });
}

/** promFold combines every series' value; "" when there is none or one is not a number. */
function promFold(result: unknown, combine: (a: number, b: number) => number): string {
  const values = promSamples(result).map(promParse);
  if (values.length === 0 || values.some((v) => Number.isNaN(v))) return '';
  return promNumber(values.reduce((a, b) => combine(a, b)));
}

/** promCompare compares promValue with a threshold (a number or numeric text): "true" or "false". */
function promCompare(
  result: unknown,
  threshold: unknown,
  test: (value: number, threshold: number) => boolean,
): string {
  const value = promParse(promValue(result));
  const limit = typeof threshold === 'number' ? threshold : promParse(stringForm(threshold));
  return !Number.isNaN(value) && !Number.isNaN(limit) && test(value, limit) ? 'true' : 'false';
}

/** promNumber prints a whole number without a fraction, any other in its shortest form. */
function promNumber(value: number): string {
  return Number.isInteger(value) ? value.toFixed(0) : String(value);
}

/** promParse reads a sample value as Prometheus writes it (`12`, `0.5`, `+Inf`, `NaN`); NaN when it is not a number. */
function promParse(text: string): number {
  const trimmed = text.trim();
  if (trimmed === '') return Number.NaN;
  if (/^[+]?inf$/i.test(trimmed)) return Number.POSITIVE_INFINITY;
  if (/^-inf$/i.test(trimmed)) return Number.NEGATIVE_INFINITY;
  return Number(trimmed);
}
