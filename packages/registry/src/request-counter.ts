/** RequestVerb is the verb a KubeClient request is counted under. */
export const RequestVerb = {
  Get: 'get',
  List: 'list',
  Create: 'create',
  Apply: 'apply',
  Patch: 'patch',
  Update: 'update',
  Delete: 'delete',
  Discovery: 'discovery',
} as const;
export type RequestVerb = (typeof RequestVerb)[keyof typeof RequestVerb];

/** RequestCounts maps `verb kind` (e.g. `apply Deployment`) to a number of requests. */
export type RequestCounts = Readonly<Record<string, number>>;

/**
 * RequestCounter counts API requests by verb and kind. `snapshot()` freezes the current counts;
 * `since(snapshot)` gives the requests made after it, so a test can assert "this call sent 0".
 *
 * @example
 * const before = client.requests.snapshot();
 * await kinds.deployments.ensure(child, options);
 * expect(client.requests.totalSince(before)).toBe(0);
 */
export class RequestCounter {
  readonly #counts = new Map<string, number>();

  /** record counts one request. */
  record(verb: RequestVerb, kind: string): void {
    const key = `${verb} ${kind}`;
    this.#counts.set(key, (this.#counts.get(key) ?? 0) + 1);
  }

  /** snapshot returns a frozen copy of the counts so far. */
  snapshot(): RequestCounts {
    return Object.freeze(Object.fromEntries(this.#counts));
  }

  /** total is the number of requests counted so far. */
  get total(): number {
    let n = 0;
    for (const v of this.#counts.values()) n += v;
    return n;
  }

  /** since returns the counts added after `before` (keys with zero are left out). */
  since(before: RequestCounts): RequestCounts {
    return diffCounts(before, this.snapshot());
  }

  /** totalSince is the number of requests made after `before`. */
  totalSince(before: RequestCounts): number {
    return Object.values(this.since(before)).reduce((a, b) => a + b, 0);
  }
}

/** diffCounts returns `after - before` per key, leaving out keys whose difference is zero. */
export function diffCounts(before: RequestCounts, after: RequestCounts): RequestCounts {
  const out: Record<string, number> = {};
  for (const [key, value] of Object.entries(after)) {
    const d = value - (before[key] ?? 0);
    if (d !== 0) out[key] = d;
  }
  return out;
}
