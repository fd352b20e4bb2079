import { describe, expect, it } from 'vitest';
import {
  apiServerCpuMs,
  countRequests,
  describeRequests,
  diffRequestCounts,
  onlyWrites,
  parseRequestKey,
  readRequestCounts,
  requestKey,
} from './api-requests.js';

const line = (labels: Record<string, string>, value: number): string =>
  `apiserver_request_total{${Object.entries(labels)
    .map(([k, v]) => `${k}="${v}"`)
    .join(',')}} ${value}`;

const base = { component: 'apiserver', dry_run: '', scope: 'resource', version: 'v1' };
const exposition = (n: {
  apply: number;
  status: number;
  watch: number;
  lease: number;
  get404: number;
}): string =>
  [
    '# HELP apiserver_request_total [STABLE] Counter of apiserver requests',
    '# TYPE apiserver_request_total counter',
    line(
      { ...base, code: '200', group: '', resource: 'configmaps', subresource: '', verb: 'APPLY' },
      n.apply,
    ),
    line({ ...base, code: '201', group: '', resource: 'configmaps', subresource: '', verb: 'APPLY' }, 1),
    line(
      {
        ...base,
        code: '200',
        group: 'bench.orkestra.dev',
        resource: 'benchapps',
        subresource: 'status',
        verb: 'PATCH',
      },
      n.status,
    ),
    line(
      { ...base, code: '200', group: '', resource: 'configmaps', subresource: '', verb: 'WATCH' },
      n.watch,
    ),
    line(
      {
        ...base,
        code: '200',
        group: 'coordination.k8s.io',
        resource: 'leases',
        subresource: '',
        verb: 'PUT',
      },
      n.lease,
    ),
    line({ ...base, code: '404', group: '', resource: 'secrets', subresource: '', verb: 'GET' }, n.get404),
    'apiserver_request_total_other{verb="GET"} 99',
  ].join('\n');

describe('readRequestCounts', () => {
  it('sums each verb/resource/subresource over codes', () => {
    const counts = readRequestCounts(exposition({ apply: 5, status: 2, watch: 3, lease: 7, get404: 1 }));
    expect(counts.get('APPLY /configmaps')).toBe(6);
    expect(counts.get('PATCH bench.orkestra.dev/benchapps/status')).toBe(2);
    expect(counts.get('GET /secrets')).toBe(1);
    expect([...counts.keys()].some((k) => k.includes('other'))).toBe(false);
  });

  it('round-trips keys', () => {
    const labels = { verb: 'PATCH', group: 'apps', resource: 'deployments', subresource: 'status' };
    expect(parseRequestKey(requestKey(labels))).toEqual(labels);
    expect(parseRequestKey('GET /secrets')).toEqual({
      verb: 'GET',
      group: '',
      resource: 'secrets',
      subresource: '',
    });
  });
});

describe('deltas and counting', () => {
  const before = readRequestCounts(exposition({ apply: 5, status: 2, watch: 3, lease: 7, get404: 1 }));
  const after = readRequestCounts(exposition({ apply: 9, status: 3, watch: 10, lease: 9, get404: 3 }));
  const delta = diffRequestCounts(before, after);

  it('keeps only counters that grew', () => {
    expect(delta.get('APPLY /configmaps')).toBe(4);
    expect(diffRequestCounts(after, after).size).toBe(0);
  });

  it('leaves out watches and the API server upkeep', () => {
    // 4 applies + 1 status patch + 2 GETs; the 7 watches and 2 lease PUTs are not counted.
    expect(countRequests(delta)).toBe(7);
    expect(describeRequests(delta)).toBe(
      'APPLY /configmaps×4, GET /secrets×2, PATCH bench.orkestra.dev/benchapps/status×1',
    );
  });

  it('keeps the writes of a delta and drops the reads', () => {
    expect(describeRequests(onlyWrites(delta))).toBe(
      'APPLY /configmaps×4, PATCH bench.orkestra.dev/benchapps/status×1',
    );
  });

  it('filters writes, resources and subresources', () => {
    expect(countRequests(delta, { verbs: 'writes' })).toBe(5);
    expect(countRequests(delta, { verbs: 'writes', resources: new Set(['/configmaps']) })).toBe(4);
    expect(
      countRequests(delta, { resources: new Set(['bench.orkestra.dev/benchapps']), subresource: 'status' }),
    ).toBe(1);
    expect(
      countRequests(delta, { resources: new Set(['bench.orkestra.dev/benchapps']), subresource: '' }),
    ).toBe(0);
  });
});

describe('apiServerCpuMs', () => {
  it('reads process_cpu_seconds_total in ms', () => {
    const text = '# TYPE process_cpu_seconds_total counter\nprocess_cpu_seconds_total 12.5\n';
    expect(apiServerCpuMs(text)).toBe(12_500);
  });
});
