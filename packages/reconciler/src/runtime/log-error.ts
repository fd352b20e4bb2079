/**
 * Errors in log lines (docs/reference/runtime.md §18.5): `err` carries `type` (the class name), `code` and
 * `message`, and the stack only at debug. pino's standard `err` serializer takes `type` from the
 * value's constructor, so a plain object would be logged as `type: "Object"`; the runtime logs an
 * error of the original class instead, without its `cause` (whose message pino would append).
 */
import { OrkestraError, ProviderError } from '@orkestra/types';
import { pino } from 'pino';
import { KubeApiError } from '@orkestra/registry';

/**
 * errorForLog returns what to log under `err`: a copy of `error` with the same class (so pino's
 * serializer reports its name as `type`), message, stack and own fields (`code`, `katalogPath`, …)
 * but no `cause`. A thrown non-Error becomes an Error with its string form.
 *
 * @example
 * logger.info({ err: errorForLog(error) }, 'reconcile failed');
 */
export function errorForLog(error: unknown): Error {
  if (!(error instanceof Error)) return new Error(typeof error === 'string' ? error : String(error));
  const copy = Object.create(Object.getPrototypeOf(error) as object) as Error & Record<string, unknown>;
  for (const [key, value] of Object.entries(error)) {
    if (key !== 'cause') copy[key] = value;
  }
  Object.defineProperty(copy, 'message', { value: error.message, enumerable: true, writable: true });
  Object.defineProperty(copy, 'stack', { value: error.stack, enumerable: false, writable: true });
  return copy;
}

/**
 * serializeError is the `err` serializer of the runtime's default logger: pino's standard one
 * (`type`, `message`, `stack`, own fields) with the stack kept only when `withStack` is true.
 */
export function serializeError(error: unknown, withStack: boolean): Record<string, unknown> {
  const { stack, ...rest } = pino.stdSerializers.err(error as Error) as unknown as Record<string, unknown>;
  return withStack ? { ...rest, stack } : rest;
}

/**
 * isPanic tells whether what a reconcile threw is an unexpected exception (docs/reference/runtime.md §6): the
 * innermost cause is not an Orkestra, provider or API error and not an abort, and no link of the
 * chain carries a specific reason (anything but `InternalError`).
 */
export function isPanic(error: unknown): boolean {
  let current: unknown = error;
  for (let depth = 0; depth < 10; depth++) {
    if (current instanceof OrkestraError) {
      if (current.code !== 'InternalError') return false;
      if (current.cause == null) return false;
      current = current.cause;
      continue;
    }
    if (current instanceof ProviderError || current instanceof KubeApiError) return false;
    if (current instanceof Error && (current.name === 'AbortError' || current.name === 'TimeoutError'))
      return false;
    return true;
  }
  return false;
}

/** panicCause is the innermost cause of an error chain: the unexpected exception itself. */
export function panicCause(error: unknown): unknown {
  let current: unknown = error;
  for (let depth = 0; depth < 10 && current instanceof OrkestraError && current.cause != null; depth++) {
    current = current.cause;
  }
  return current;
}
