/**
 * Classification of what a reconcile threw, using the error classes of `@orkestra/types`.
 */
import { ConditionReason, OrkestraError, ProviderError } from '@orkestra/types';

/**
 * ReconcileErrorClass is how the dispatcher treats a thrown value: `retryable` (an Orkestra or
 * provider error that can be retried), `terminal` (`retryable: false`, e.g. a TerminalError: not
 * retried) or `unexpected` (anything else: retried and counted as a panic).
 */
export const ReconcileErrorClass = {
  Retryable: 'retryable',
  Terminal: 'terminal',
  Unexpected: 'unexpected',
} as const;
export type ReconcileErrorClass = (typeof ReconcileErrorClass)[keyof typeof ReconcileErrorClass];

/**
 * classifyReconcileError maps a thrown value to its ReconcileErrorClass: an `OrkestraError`
 * (including `TerminalError`) or a `ProviderError` by its `retryable` flag, anything else is
 * `unexpected`.
 */
export function classifyReconcileError(error: unknown): ReconcileErrorClass {
  if (error instanceof OrkestraError || error instanceof ProviderError) {
    return error.retryable ? ReconcileErrorClass.Retryable : ReconcileErrorClass.Terminal;
  }
  return ReconcileErrorClass.Unexpected;
}

/** ReconcileTimeoutError is the abort reason of a reconcile that exceeded `reconcileTimeoutMs`; code `ReconcileTimeout`, retried. */
export class ReconcileTimeoutError extends OrkestraError {
  override readonly name: string = 'ReconcileTimeoutError';
  /** The timeout that was exceeded. */
  readonly timeoutMs: number;

  constructor(timeoutMs: number) {
    super(`reconcile exceeded its timeout of ${timeoutMs} ms`, {
      code: ConditionReason.ReconcileTimeout,
      retryable: true,
    });
    this.timeoutMs = timeoutMs;
  }
}

/** DispatcherStoppedError is the abort reason of reconciles still running when `Dispatcher.stop` gives up waiting; code `InternalError`. */
export class DispatcherStoppedError extends OrkestraError {
  override readonly name: string = 'DispatcherStoppedError';

  constructor() {
    super('dispatcher stopped before the reconcile finished', {
      code: ConditionReason.InternalError,
      retryable: true,
    });
  }
}

/**
 * retryAfterMsOf returns the delay a server asked for with `429 Too Many Requests` and a
 * `Retry-After` (docs/reference/runtime.md §9.5), looking through the `cause` chain of what a reconcile threw;
 * undefined when there is none. Every API failure is the registry's KubeApiError (`status`,
 * `retryAfterSeconds`; ADR 0013); any error with those two fields is understood.
 */
export function retryAfterMsOf(error: unknown): number | undefined {
  let current: unknown = error;
  for (let depth = 0; depth < 10 && current != null && typeof current === 'object'; depth++) {
    const candidate = current as {
      status?: unknown;
      retryAfterSeconds?: unknown;
      cause?: unknown;
    };
    if (candidate.status === 429) {
      if (typeof candidate.retryAfterSeconds === 'number' && candidate.retryAfterSeconds > 0)
        return candidate.retryAfterSeconds * 1000;
      return undefined;
    }
    current = candidate.cause;
  }
  return undefined;
}
