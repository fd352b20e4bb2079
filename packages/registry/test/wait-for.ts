/**
 * waitFor polls `probe` every 500 ms until it returns something other than undefined, and fails
 * with `what` after `timeoutMs` (default 60 s). A throwing probe is retried; its last error becomes the cause.
 */
export async function waitFor<T>(
  what: string,
  probe: () => Promise<T | undefined>,
  timeoutMs = 60_000,
): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  let lastError: unknown;
  for (;;) {
    try {
      const value = await probe();
      if (value !== undefined) return value;
    } catch (err) {
      lastError = err;
    }
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`, { cause: lastError });
    await new Promise((r) => setTimeout(r, 500));
  }
}
