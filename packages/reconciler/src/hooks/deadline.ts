/**
 * A hook's own timeout combined with the caller's abort signal, on the injected clock.
 */
import type { Clock } from '../clock.js';
import { TimeoutError } from './http-request.js';

/** Deadline is an abort signal that fires at the timeout or when the parent signal aborts. */
export interface Deadline {
  readonly signal: AbortSignal;
  /** Cancels the timer; call it when the guarded work is over. */
  clear(): void;
}

/**
 * createDeadline returns a signal aborted with a TimeoutError (`message`) after `timeoutMs`, or with
 * the parent's reason when `parent` aborts first. A timeout of 0 or less means no timeout.
 */
export function createDeadline(
  clock: Clock,
  timeoutMs: number,
  message: string,
  parent?: AbortSignal,
): Deadline {
  const controller = new AbortController();
  const timer =
    timeoutMs > 0
      ? clock.setTimeout(() => controller.abort(new TimeoutError(message)), timeoutMs)
      : undefined;
  const onAbort = (): void => controller.abort(parent?.reason ?? new Error('aborted'));
  if (parent != null) {
    if (parent.aborted) onAbort();
    else parent.addEventListener('abort', onAbort, { once: true });
  }
  return {
    signal: controller.signal,
    clear: () => {
      if (timer != null) clock.clearTimeout(timer);
      parent?.removeEventListener('abort', onAbort);
    },
  };
}
