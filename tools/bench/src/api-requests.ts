/**
 * API request accounting from kube-apiserver's `apiserver_request_total`: snapshots keyed by verb,
 * resource and subresource, deltas between two snapshots, and the write/watch classification the
 * benchmark uses.
 */
import { sumMetric } from '@orkestra/testenv';

const METRIC = 'apiserver_request_total';

/** RequestKey identifies one counter: `VERB group/resource[/subresource]` (core group is empty). */
export type RequestKey = string;

/** RequestCounts maps a RequestKey to a request count. */
export type RequestCounts = ReadonlyMap<RequestKey, number>;

/** RequestLabels are the labels a RequestKey is made of. */
export interface RequestLabels {
  readonly verb: string;
  readonly group: string;
  readonly resource: string;
  readonly subresource: string;
}

/**
 * BACKGROUND_RESOURCES are resources kube-apiserver keeps writing by itself at a fixed rate (its
 * identity lease, the `kubernetes` Service endpoints); no system under test touches them, so
 * they are left out of every count.
 */
const BACKGROUND_RESOURCES: ReadonlySet<string> = new Set([
  'coordination.k8s.io/leases',
  '/endpoints',
  'discovery.k8s.io/endpointslices',
]);

const WATCH_VERBS: ReadonlySet<string> = new Set(['WATCH', 'WATCHLIST']);
const WRITE_VERBS: ReadonlySet<string> = new Set([
  'POST',
  'CREATE',
  'PUT',
  'UPDATE',
  'PATCH',
  'APPLY',
  'DELETE',
  'DELETECOLLECTION',
]);

/** requestKey builds the RequestKey of a label set. */
export function requestKey(labels: RequestLabels): RequestKey {
  const sub = labels.subresource === '' ? '' : `/${labels.subresource}`;
  return `${labels.verb} ${labels.group}/${labels.resource}${sub}`;
}

/** parseRequestKey splits a RequestKey back into its labels. */
export function parseRequestKey(key: RequestKey): RequestLabels {
  const space = key.indexOf(' ');
  const verb = key.slice(0, space);
  const [group = '', resource = '', subresource = ''] = key.slice(space + 1).split('/');
  return { verb, group, resource, subresource };
}

/**
 * readRequestCounts reads every `apiserver_request_total` counter from a `/metrics` exposition,
 * summed over the labels the benchmark does not distinguish (code, scope, version, component,
 * dry_run) with `sumMetric`.
 */
export function readRequestCounts(exposition: string): Map<RequestKey, number> {
  const label = (text: string, name: string): string =>
    new RegExp(`[{,]${name}="([^"]*)"`).exec(text)?.[1] ?? '';
  const seen = new Map<RequestKey, RequestLabels>();
  for (const line of exposition.split('\n')) {
    if (!line.startsWith(`${METRIC}{`)) continue;
    const labels: RequestLabels = {
      verb: label(line, 'verb'),
      group: label(line, 'group'),
      resource: label(line, 'resource'),
      subresource: label(line, 'subresource'),
    };
    seen.set(requestKey(labels), labels);
  }
  const counts = new Map<RequestKey, number>();
  for (const [key, labels] of seen) {
    counts.set(key, sumMetric(exposition, METRIC, { ...labels }));
  }
  return counts;
}

/** diffRequestCounts returns `after − before` for every key that grew. */
export function diffRequestCounts(before: RequestCounts, after: RequestCounts): Map<RequestKey, number> {
  const out = new Map<RequestKey, number>();
  for (const [key, value] of after) {
    const delta = value - (before.get(key) ?? 0);
    if (delta > 0) out.set(key, delta);
  }
  return out;
}

/** isWatch reports whether a verb is a watch (excluded from every request count). */
function isWatch(verb: string): boolean {
  return WATCH_VERBS.has(verb);
}

/** isWrite reports whether a verb changes state (create, update, patch, apply, delete). */
function isWrite(verb: string): boolean {
  return WRITE_VERBS.has(verb);
}

/** RequestFilter selects the counters one figure adds up. */
export interface RequestFilter {
  /** Only these verbs classes. Default `all` (every verb except watches). */
  readonly verbs?: 'all' | 'writes';
  /** Only these `group/resource` names; default every resource. */
  readonly resources?: ReadonlySet<string>;
  /** Only this subresource (`''` for the object itself); default any. */
  readonly subresource?: string;
}

/**
 * countRequests adds up a delta's counters that pass `filter`, always leaving out watches and
 * the BACKGROUND_RESOURCES.
 */
export function countRequests(delta: RequestCounts, filter: RequestFilter = {}): number {
  let total = 0;
  for (const [key, value] of delta) {
    const labels = parseRequestKey(key);
    const resource = `${labels.group}/${labels.resource}`;
    if (isWatch(labels.verb) || BACKGROUND_RESOURCES.has(resource)) continue;
    if (filter.verbs === 'writes' && !isWrite(labels.verb)) continue;
    if (filter.resources != null && !filter.resources.has(resource)) continue;
    if (filter.subresource != null && labels.subresource !== filter.subresource) continue;
    total += value;
  }
  return total;
}

/** onlyWrites keeps the write verbs of a delta. */
export function onlyWrites(delta: RequestCounts): RequestCounts {
  return new Map([...delta].filter(([key]) => isWrite(parseRequestKey(key).verb)));
}

/** describeRequests renders the counted part of a delta as `KEY×n` pairs, largest first. */
export function describeRequests(delta: RequestCounts): string {
  return [...delta]
    .filter(([key]) => {
      const labels = parseRequestKey(key);
      return !isWatch(labels.verb) && !BACKGROUND_RESOURCES.has(`${labels.group}/${labels.resource}`);
    })
    .sort((a, b) => b[1] - a[1])
    .map(([key, n]) => `${key}×${n}`)
    .join(', ');
}

/** apiServerCpuMs reads the API server's own CPU time (`process_cpu_seconds_total`) from its `/metrics`, ms. */
export function apiServerCpuMs(exposition: string): number {
  return sumMetric(exposition, 'process_cpu_seconds_total') * 1000;
}
