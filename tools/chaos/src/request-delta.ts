import { waitFor } from './wait-for.js';

/** WRITE_VERBS are the request verbs that change the cluster, as the runtime's request counts name them. */
const WRITE_VERBS: readonly string[] = ['apply', 'create', 'patch', 'update', 'delete'];

/**
 * requestDelta subtracts two readings of `runtime.requestCounts()` (keys such as `apply ConfigMap`,
 * `patch Shop`, `create Event`) and returns the differences that are not zero.
 *
 * @example
 * requestDelta({ 'apply ConfigMap': 2 }, { 'apply ConfigMap': 5, 'list /x': 1 }); // { 'apply ConfigMap': 3, 'list /x': 1 }
 */
export function requestDelta(
  before: Readonly<Record<string, number>>,
  after: Readonly<Record<string, number>>,
): Record<string, number> {
  const out: Record<string, number> = {};
  for (const [key, value] of Object.entries(after)) {
    const diff = value - (before[key] ?? 0);
    if (diff !== 0) out[key] = diff;
  }
  return out;
}

/** countWrites sums the entries of a request delta whose verb changes the cluster; `kind` narrows to one kind. */
export function countWrites(delta: Readonly<Record<string, number>>, kind?: string): number {
  let sum = 0;
  for (const [key, value] of Object.entries(delta)) {
    const [verb, what] = key.split(' ', 2);
    if (verb != null && WRITE_VERBS.includes(verb) && (kind == null || what === kind)) sum += value;
  }
  return sum;
}

/**
 * writesSettled resolves once the write count of `read()` (a `runtime.requestCounts`) has not
 * changed for `stableMs`: the reconcile that made the last correction has also written what
 * follows it (its Event, its status). A runtime that keeps writing more often than that never
 * settles and the wait times out.
 *
 * @example
 * await writesSettled(() => runtime.requestCounts(), 1000);
 */
export async function writesSettled(
  read: () => Readonly<Record<string, number>>,
  stableMs: number,
  timeoutMs = 60_000,
): Promise<void> {
  let last = countWrites(read());
  let since = performance.now();
  await waitFor(
    `${stableMs} ms without a write`,
    () => {
      const now = countWrites(read());
      if (now !== last) {
        last = now;
        since = performance.now();
      }
      return performance.now() - since >= stableMs;
    },
    { timeoutMs, intervalMs: 50 },
  );
}
