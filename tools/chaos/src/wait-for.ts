import { setTimeout as sleepFor } from 'node:timers/promises';

/** WaitForOptions tunes {@link waitFor}. */
export interface WaitForOptions {
  /** Give up after this long; the deadline only turns a hang into a failure. Default 120 000 ms. */
  readonly timeoutMs?: number;
  /** Delay between checks. Default 100 ms. */
  readonly intervalMs?: number;
}

/**
 * waitFor polls `check` until it returns true and resolves with the elapsed milliseconds; errors
 * thrown by `check` count as "not yet" (an API server may be down). After `timeoutMs` it throws
 * with `what` and the last error.
 *
 * @example
 * const ms = await waitFor('all CRs Ready', async () => (await converged()).length === 0);
 */
export async function waitFor(
  what: string,
  check: () => boolean | Promise<boolean>,
  options: WaitForOptions = {},
): Promise<number> {
  const timeoutMs = options.timeoutMs ?? 120_000;
  const started = performance.now();
  let last: unknown;
  for (;;) {
    try {
      if (await check()) return performance.now() - started;
    } catch (error) {
      last = error;
    }
    if (performance.now() - started > timeoutMs) {
      const because =
        last == null ? '' : ` (last error: ${last instanceof Error ? last.message : String(last)})`;
      throw new Error(`timed out after ${timeoutMs} ms waiting for ${what}${because}`);
    }
    await sleepFor(options.intervalMs ?? 100);
  }
}

/** sleep resolves after `ms` milliseconds. */
export async function sleep(ms: number): Promise<void> {
  await sleepFor(ms);
}
