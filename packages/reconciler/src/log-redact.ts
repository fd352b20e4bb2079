import { pino } from 'pino';
import type { DestinationStream, LoggerOptions } from 'pino';
import type { Logger } from '@orkestra/types';
import { redactUrlCredentials } from './redact-url.js';

/** REDACTED is what a redacted value is replaced with in log lines. */
export const REDACTED = '[REDACTED]';

/** Keys whose values are credentials wherever they appear (compared case-insensitively). */
const SECRET_KEYS = [
  'password',
  'passwd',
  'token',
  'accessToken',
  'refreshToken',
  'bearerToken',
  'idToken',
  'authorization',
  'cookie',
  'secretAccessKey',
  'sessionToken',
  'clientSecret',
  'privateKey',
  'apiKey',
] as const;

/** Keys whose whole value is secret material: Secret `data`/`stringData` (ConfigMap data cannot be told apart cheaply, so it is hidden too). */
const SECRET_CONTAINERS = ['data', 'stringData'] as const;

/** Keys whose values are each redacted while their keys stay visible: a provider's `config`. */
const VALUE_CONTAINERS = ['config'] as const;

const secretKeys: ReadonlySet<string> = new Set(SECRET_KEYS.map((k) => k.toLowerCase()));
const secretContainers: ReadonlySet<string> = new Set(SECRET_CONTAINERS);
const valueContainers: ReadonlySet<string> = new Set(VALUE_CONTAINERS);

/** A structure deeper than this is cut (`[Too deep]`) rather than walked; no log line nests this far. */
const MAX_DEPTH = 64;

/**
 * redactForLog returns a copy of `value` with secrets redacted at any depth
 * (docs/reference/runtime.md §18.3): credential keys (`password`, `token`, `authorization`,
 * `secretAccessKey`, …, any case), Secret `data`/`stringData`, and every value of a provider's
 * `config` (its keys stay visible). Strings anywhere, the message included, have credentials in
 * URLs redacted (`https://[REDACTED]@host`). Errors become plain objects (`type`, `message`, `stack`, own fields) so their fields are walked
 * too, and cycles are cut (`[Circular]`).
 */
function redactForLog(value: unknown): unknown {
  return walk(value, 0, new WeakSet(), '');
}

function walk(value: unknown, depth: number, seen: WeakSet<object>, key: string): unknown {
  if (typeof value === 'string') return redactUrlCredentials(value);
  if (value == null || typeof value !== 'object') return value;
  if (seen.has(value)) return '[Circular]';
  if (depth >= MAX_DEPTH) return '[Too deep]';
  seen.add(value);
  try {
    if (Array.isArray(value)) return value.map((item) => walk(item, depth + 1, seen, key));
    let source = value as Record<string, unknown>;
    if (value instanceof Error) {
      // The stack is kept under `err` only, where the serializer shows it at debug level.
      const { stack, ...rest } = pino.stdSerializers.err(value) as unknown as Record<string, unknown>;
      source = key === 'err' ? { ...rest, stack } : rest;
    }
    if (
      !(value instanceof Error) &&
      Object.getPrototypeOf(value) !== Object.prototype &&
      Object.getPrototypeOf(value) !== null
    ) {
      // Dates, Maps, class instances: serialized as pino would, then walked as plain data.
      const json = (value as { toJSON?: () => unknown }).toJSON?.();
      if (json !== undefined) return walk(json, depth + 1, seen, key);
    }
    const out: Record<string, unknown> = {};
    for (const [name, item] of Object.entries(source)) {
      if (secretKeys.has(name.toLowerCase()) || secretContainers.has(name)) out[name] = REDACTED;
      else if (valueContainers.has(name) && item != null && typeof item === 'object' && !Array.isArray(item))
        out[name] = Object.fromEntries(Object.keys(item).map((k) => [k, REDACTED]));
      else if (valueContainers.has(name)) out[name] = REDACTED;
      else out[name] = walk(item, depth + 1, seen, name);
    }
    return out;
  } finally {
    seen.delete(value);
  }
}

/** RedactingLoggerOptions configures createRedactingLogger. */
export interface RedactingLoggerOptions {
  /** Minimum level. Default `info`. */
  readonly level?: string;
  /** Fields written on every line (the operator's `katalog`). Default none. */
  readonly base?: Readonly<Record<string, unknown>>;
  /** Where JSON lines go. Default stdout (pino's default destination). */
  readonly destination?: DestinationStream;
}

/**
 * createRedactingLogger builds the pino logger of the operator and of the library's default
 * (docs/reference/runtime.md §18.3): JSON lines with `time`, `level` as a label and `msg`, errors
 * under `err` (`type`, `message`, `code`; `stack` only at debug), and every field, binding and
 * message passed through redactForLog (credential keys at any depth, credentials in URLs).
 *
 * @example
 * const logger = createRedactingLogger({ base: { katalog: 'shop' } });
 */
export function createRedactingLogger(options: RedactingLoggerOptions = {}): Logger & { flush(): void } {
  let debugEnabled = (): boolean => false;
  const settings: LoggerOptions = {
    level: options.level ?? 'info',
    base: { ...(options.base ?? {}) },
    timestamp: pino.stdTimeFunctions.isoTime,
    // Redaction at any depth (pino's path redaction only reaches the depths it is given).
    formatters: {
      level: (label) => ({ level: label }),
      // Applies to the root's bindings only; child bindings are redacted in `child` below.
      bindings: (bindings) => redactForLog(bindings) as Record<string, unknown>,
      log: (object) => redactForLog(object) as Record<string, unknown>,
    },
    hooks: {
      logMethod(args, method) {
        method.apply(
          this,
          args.map((arg) => (typeof arg === 'string' ? redactUrlCredentials(arg) : arg)) as Parameters<
            typeof method
          >,
        );
      },
    },
    serializers: {
      // `err` arrives already redacted as a plain object (formatters.log runs first).
      err: (error: unknown) => {
        const serialized = error instanceof Error ? pino.stdSerializers.err(error) : error;
        if (serialized == null || typeof serialized !== 'object') return serialized;
        const { stack, ...rest } = serialized as Record<string, unknown>;
        return debugEnabled() && stack !== undefined ? { ...rest, stack } : rest;
      },
    },
  };
  const base = options.destination == null ? pino(settings) : pino(settings, options.destination);
  debugEnabled = () => base.isLevelEnabled('debug');
  // pino skips the bindings formatter for children; redact their bindings on the way in. Children
  // inherit this `child` (pino creates them with Object.create(parent)), so it holds at any depth.
  const pinoChild = base.child;
  base.child = function child(this: typeof base, bindings, childOptions) {
    return pinoChild.call(this, redactForLog(bindings) as typeof bindings, childOptions);
  } as typeof base.child;
  return base as unknown as Logger & { flush(): void };
}

/**
 * runtimeLogger is the logger a KatalogRuntime uses: the given one, or, when a library user passes
 * none, createRedactingLogger's (the operator's redaction, not a path list that misses nested
 * credentials and URLs).
 */
export function runtimeLogger(logger: Logger | undefined, options: RedactingLoggerOptions = {}): Logger {
  return logger ?? createRedactingLogger(options);
}

/**
 * withBindings is `logger.child(bindings)` without the bindings the logger already carries with
 * the same value. pino writes a child's bindings after its parent's without merging them, so a
 * field bound twice (the operator's logger binds `katalog` at its root, and the runtime binds it
 * again) appears twice on every line. A logger that cannot tell its bindings (no pino
 * `bindings()`) gets them all.
 */
export function withBindings(logger: Logger, bindings: Record<string, unknown>): Logger {
  const reader = (logger as { bindings?: unknown }).bindings;
  const held =
    typeof reader === 'function' ? (reader.call(logger) as Record<string, unknown> | undefined) : undefined;
  const missing = Object.fromEntries(
    Object.entries(bindings).filter(([k, v]) => held == null || !Object.hasOwn(held, k) || held[k] !== v),
  );
  return Object.keys(missing).length === 0 ? logger : logger.child(missing);
}
