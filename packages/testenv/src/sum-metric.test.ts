import { describe, expect, it } from 'vitest';
import { sumMetric } from './sum-metric.js';

const exposition = `# HELP apiserver_request_total [STABLE] Counter of apiserver requests
# TYPE apiserver_request_total counter
apiserver_request_total{code="200",component="apiserver",resource="configmaps",verb="GET",version="v1"} 3
apiserver_request_total{code="200",component="apiserver",resource="configmaps",verb="PATCH",version="v1"} 2
apiserver_request_total{code="403",component="apiserver",resource="pods",verb="LIST",version="v1"} 1
apiserver_request_total_extra{code="200",resource="configmaps",verb="GET"} 100
apiserver_request_duration_seconds_count{verb="GET"} 50
process_open_fds 12
`;

describe('sumMetric', () => {
  it('adds every sample of the metric when no labels are given', () => {
    expect(sumMetric(exposition, 'apiserver_request_total')).toBe(6);
  });

  it('keeps only samples whose labels match every given pair', () => {
    expect(sumMetric(exposition, 'apiserver_request_total', { resource: 'configmaps' })).toBe(5);
    expect(sumMetric(exposition, 'apiserver_request_total', { resource: 'configmaps', verb: 'PATCH' })).toBe(
      2,
    );
    expect(sumMetric(exposition, 'apiserver_request_total', { code: '403' })).toBe(1);
  });

  it('returns 0 when nothing matches', () => {
    expect(sumMetric(exposition, 'apiserver_request_total', { verb: 'DELETE' })).toBe(0);
    expect(sumMetric(exposition, 'no_such_metric')).toBe(0);
  });

  it('reads metrics without labels and does not confuse name prefixes', () => {
    expect(sumMetric(exposition, 'process_open_fds')).toBe(12);
    expect(sumMetric(exposition, 'apiserver_request_total_extra')).toBe(100);
  });

  it('unescapes label values', () => {
    expect(sumMetric('m{path="a\\"b"} 4\n', 'm', { path: 'a"b' })).toBe(4);
  });
});
