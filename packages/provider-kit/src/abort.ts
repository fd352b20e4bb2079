import { ProviderError } from '@orkestra/types';
import { ProviderErrorCode } from './provider-error-code.js';

/**
 * abortedError is the `ProviderError` (code `Aborted`, retryable) a provider throws when its
 * request's signal fired; the signal's reason is kept as `cause`.
 */
export function abortedError(signal: AbortSignal, what = 'provider call'): ProviderError {
  return new ProviderError(`${what} aborted: ${describeReason(signal.reason)}`, {
    code: ProviderErrorCode.Aborted,
    retryable: true,
    cause: signal.reason,
  });
}

/** throwIfAborted throws {@link abortedError} when the signal has already fired. */
export function throwIfAborted(signal: AbortSignal, what?: string): void {
  if (signal.aborted) throw abortedError(signal, what);
}

/**
 * raceAbort settles with `work`, or rejects with {@link abortedError} as soon as `signal` fires,
 * whichever comes first; work that finished in the same tick as the abort counts as aborted. The
 * work itself is not cancelled: pass the signal down as well.
 */
export async function raceAbort<T>(work: Promise<T>, signal: AbortSignal, what?: string): Promise<T> {
  throwIfAborted(signal, what);
  let onAbort: (() => void) | undefined;
  const aborted = new Promise<never>((_, reject) => {
    onAbort = () => reject(abortedError(signal, what));
    signal.addEventListener('abort', onAbort, { once: true });
  });
  try {
    const result = await Promise.race([work, aborted]);
    throwIfAborted(signal, what);
    return result;
  } finally {
    if (onAbort != null) signal.removeEventListener('abort', onAbort);
  }
}

/**
 * withTimeout combines a request's signal with a per-call timeout: the result fires when either
 * does. Use it for every external call so none can hang past its budget.
 */
export function withTimeout(signal: AbortSignal, timeoutMs: number): AbortSignal {
  return AbortSignal.any([signal, AbortSignal.timeout(timeoutMs)]);
}

/** isTimeoutReason tells whether a fired signal's reason is a timeout (`AbortSignal.timeout`). */
export function isTimeoutReason(reason: unknown): boolean {
  return reason instanceof Error && reason.name === 'TimeoutError';
}

function describeReason(reason: unknown): string {
  if (reason instanceof Error) return reason.message;
  if (reason === undefined) return 'signal fired';
  return String(reason);
}
