import type { HelperDefinition } from './helpers.js';
import { isEmpty, isPlainMap, isTruthy, parseDecimal, stringForm } from './string-form.js';

/**
 * Upstream Orkestra's template helpers ("notes") that mean something here (issue 14): Go's
 * `index`, `printf` and `print`, and upstream's safe-access, collection, field and container
 * helpers. Each keeps upstream's documented argument order and result.
 */

/**
 * UPSTREAM_HELPER_HINTS names upstream helpers that are not implemented here, with what to write
 * instead (issue 14; docs/reference/katalog.md §24). They are rejected, but never without an
 * alternative.
 */
export const UPSTREAM_HELPER_HINTS: Readonly<Record<string, string>> = {
  replicasReady:
    'use `allReplicasReady` (true once the workload reports every wanted replica ready for its current generation) or `readyReplicas` (the count)',
};

/** GO_INDEX_HELPER is the name Go's `index` compiles to (`index` itself is a context key of forEach copies). */
export const GO_INDEX_HELPER = '__goIndex';

/** GO_RANGE_HELPER is what a Go `range` iterates: a map with its keys sorted (as Go does), a list as it is. */
export const GO_RANGE_HELPER = '__goRange';

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
          out = arg === undefined || arg === null ? '<nil>' : stringForm(arg);
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
          : value,
    },
    // Registered under an internal name: `index` is the forEach copy number in the context.
    [GO_INDEX_HELPER]: { minArgs: 1, maxArgs: Infinity, fn: ([value, ...keys]) => path(value, keys) },
    printf: {
      minArgs: 1,
      maxArgs: Infinity,
      fn: ([format, ...args]) => formatGo(stringForm(format), args),
    },
    print: {
      minArgs: 0,
      maxArgs: Infinity,
      // Go's print puts a space between operands when neither is a string.
      fn: (args) =>
        args.reduce<string>((out, arg, i) => {
          const prev = args[i - 1];
          const space = i > 0 && typeof arg !== 'string' && typeof prev !== 'string' ? ' ' : '';
          return out + space + (arg == null ? '<nil>' : stringForm(arg));
        }, ''),
    },
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
    containerEnv: {
      minArgs: 3,
      maxArgs: 3,
      fn: ([obj, index, name]) => {
        const env = path(container(obj, index), ['env']);
        if (!Array.isArray(env)) return '';
        const found = env.find((item) => isPlainMap(item) && item['name'] === stringForm(name)) as
          Record<string, unknown> | undefined;
        return found?.['value'] == null ? '' : stringForm(found['value']);
      },
    },
    containerPort: {
      minArgs: 3,
      maxArgs: 3,
      fn: ([obj, index, port]) => {
        const ports = path(container(obj, index), ['ports']);
        const want = parseDecimal(port);
        return Array.isArray(ports) && ports.some((p) => parseDecimal(path(p, ['containerPort'])) === want);
      },
    },
  };
}
