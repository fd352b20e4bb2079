/**
 * sumMetric adds up the samples of `metric` in a Prometheus text exposition (what
 * kube-apiserver serves at `/metrics`) whose labels include every pair in `labels`.
 *
 * @example
 * sumMetric(await env.metrics(), 'apiserver_request_total', { verb: 'PATCH', resource: 'configmaps' });
 */
export function sumMetric(
  exposition: string,
  metric: string,
  labels: Readonly<Record<string, string>> = {},
): number {
  let total = 0;
  for (const line of exposition.split('\n')) {
    if (!line.startsWith(metric)) continue;
    const rest = line.slice(metric.length);
    let labelText = '';
    let valueText: string;
    if (rest.startsWith('{')) {
      const end = rest.lastIndexOf('}');
      if (end < 0) continue;
      labelText = rest.slice(1, end);
      valueText = rest.slice(end + 1);
    } else if (rest.startsWith(' ')) {
      valueText = rest;
    } else {
      continue; // a longer metric name with the same prefix
    }
    const found = new Map<string, string>();
    for (const match of labelText.matchAll(/([a-zA-Z_][a-zA-Z0-9_]*)="((?:[^"\\]|\\.)*)"/g)) {
      found.set(
        match[1] ?? '',
        (match[2] ?? '').replace(/\\(.)/g, (_, c: string) => (c === 'n' ? '\n' : c)),
      );
    }
    if (!Object.entries(labels).every(([key, value]) => found.get(key) === value)) continue;
    const value = Number(valueText.trim().split(/\s+/)[0]);
    if (Number.isFinite(value)) total += value;
  }
  return total;
}
